/**
 * The rule for every URL dropflow calls out to (a supplier's base URL, a store's events URL, a
 * store connection): https://, or plain http:// to this machine only. A request to a plain-http
 * address elsewhere crosses networks unencrypted, carrying API keys, tokens and signed events.
 * Loopback stays open for the sandbox, dev set-ups and tests.
 */

export const OUTBOUND_URL_RULE =
  'must be https:// unless the host is loopback (127.0.0.0/8, ::1, localhost)';

/** An outbound URL that breaks the rule; `field` names where it was given. */
export class OutboundUrlError extends Error {
  override readonly name = 'OutboundUrlError';
  readonly rule = OUTBOUND_URL_RULE;
  constructor(readonly field: string) {
    super(`${field}: ${OUTBOUND_URL_RULE}`);
  }
}

/** 127.0.0.0/8 (in the URL parser's canonical dotted form), ::1 or `localhost`. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase();
  if (host === 'localhost' || host === '[::1]') return true;
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/** Whether `value` is an https URL, or an http URL to a loopback host. */
export function isOutboundUrl(value: string): boolean {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  if (url.protocol === 'https:') return url.hostname !== '';
  return url.protocol === 'http:' && isLoopbackHost(url.hostname);
}

/** `value` when it keeps the rule; otherwise an OutboundUrlError naming `field` and the rule. */
export function outboundUrl(value: string, field: string): string {
  if (!isOutboundUrl(value)) throw new OutboundUrlError(field);
  return value;
}
