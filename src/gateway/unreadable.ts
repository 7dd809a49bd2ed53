/**
 * Correctly signed webhook bodies dropflow cannot read (docs/architecture.md §16.1, §16.3): an
 * unknown `type`, a field of an unexpected shape. They are the supplier's, so they are kept, not
 * dropped: as long as the body is JSON with a messageId (the inbox deduplicates by it), it is held
 * in the inbox as `unreadable: <issues>` for a person to look at, or for a replay once dropflow
 * reads it.
 */
import { unreadableReason, type WebhookEvent } from '../inbox/contract.js';
import type { FieldIssue } from '../supplier/errors.js';

/** A signed body that is JSON with a messageId, but no message dropflow knows how to read. */
export class UnreadableWebhook {
  constructor(
    readonly event: WebhookEvent,
    readonly issues: readonly FieldIssue[],
  ) {}

  get messageId(): string {
    return this.event.messageId;
  }

  get reason(): string {
    return unreadableReason(this.issues);
  }
}

/** A messageId as text: a non-empty string, or a number written as the supplier wrote it. */
function readableId(value: unknown): string | undefined {
  if (typeof value === 'string') return value.trim() === '' ? undefined : value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return undefined;
}

/** An envelope field as text, whatever shape it came in (so the inbox shows what was sent). */
function asText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === undefined) return '';
  return JSON.stringify(value);
}

/**
 * The event to hold for a parsed JSON body that failed validation, or undefined when the body has
 * no readable messageId (then nothing can deduplicate it, and it is refused). The top-level
 * `openId` some bodies carry is the webhook signing key: it is never kept.
 */
export function unreadableWebhook(
  body: unknown,
  issues: readonly FieldIssue[],
  receivedAt: Date,
): UnreadableWebhook | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const envelope = body as Record<string, unknown>;
  const messageId = readableId(envelope['messageId']);
  if (messageId === undefined) return undefined;
  return new UnreadableWebhook(
    {
      messageId,
      type: asText(envelope['type']),
      messageType: asText(envelope['messageType']),
      params: envelope['params'] ?? null,
      receivedAt: receivedAt.toISOString(),
    },
    issues,
  );
}
