/**
 * The rule for every URL dropflow calls out to (a supplier's base URL, a store's events URL, a
 * store connection): https://, or plain http:// to this machine only. A request to a plain-http
 * address elsewhere crosses networks unencrypted, carrying API keys, tokens and signed events.
 * Loopback stays open for the sandbox, dev set-ups and tests.
 */
import { isIPv4 } from 'node:net';

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

/**
 * Whether a host (a listen address, or a URL's hostname) is this machine only: `localhost`,
 * 127.0.0.0/8 (also IPv4-mapped, `::ffff:127.x.x.x`) or ::1, with or without brackets.
 */
export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  if (h === 'localhost' || h === '::1') return true;
  const v4 = h.startsWith('::ffff:') ? h.slice('::ffff:'.length) : h;
  return isIPv4(v4) && v4.startsWith('127.');
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
