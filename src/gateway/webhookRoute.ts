/**
 * `POST /webhooks/<account>`, and `POST /webhooks/supplier` for the default account
 * (docs/architecture.md §16.1): the supplier's pushes become durable signals of that account.
 * An account the gateway does not know answers 404 before anything is read.
 *
 * 1. The body is kept as raw bytes (its own content-type parser, any content type) and limited in
 *    size (413 above the limit).
 * 2. `sign` = Base64(HMAC-SHA256(openId, raw body)) is checked on those bytes with a
 *    constant-time compare: missing, wrong or truncated → 401, before anything else happens.
 * 3. The JSON is validated per topic. A signed message dropflow cannot read (unknown `type`, a
 *    field of an unexpected shape) is still the supplier's: if it has a messageId it is held in
 *    the inbox as `unreadable: <issues>`, not dropped. Only a body that is not JSON, or has no
 *    readable messageId (nothing could deduplicate it), is refused: 400 with the issues.
 * 4. The message is handed to Temporal (routed, or held in the inbox) under a deadline: 200 only
 *    once Temporal has it; no answer in time → 503, and the supplier sends it again (same
 *    messageId, so a late first attempt and the retry have one effect).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

import { DEFAULT_ACCOUNT, isAccountId } from '../accounts/contract.js';
import type { Logger } from '../telemetry/log.js';
import type { FieldIssue } from '../supplier/errors.js';
import { parseWebhookMessage } from '../supplier/webhookMessages.js';
import { verifyWebhookSignature } from '../supplier/webhookSignature.js';
import { DeadlineExceeded, raceDeadline } from './deadline.js';
import type { HandoffOutcome, IncomingWebhook } from './handoff.js';
import { countWebhookEvent, handoffOutcome } from './metrics.js';
import { AcceptedMessages } from './acceptedMessages.js';
import { rawBody, registerRawBodyRoutes } from './rawBody.js';
import type { SigningKey } from './signingKey.js';
import { unreadableWebhook } from './unreadable.js';

export const WEBHOOK_PATH = '/webhooks/supplier';
export const accountWebhookPath = (account: string): string => `/webhooks/${account}`;

/** An account's webhooks: its signing key, and its hand-off to Temporal. */
export interface WebhookTarget {
  signingKey: SigningKey;
  /**
   * Hands a signed message to Temporal within `ms` (else rejects with DeadlineExceeded): a valid
   * one to be routed, an unreadable one to be held.
   */
  handOff: (message: IncomingWebhook, receivedAt: Date, ms: number) => Promise<HandoffOutcome>;
}

export interface WebhookRouteOptions {
  /** The account's webhook target; undefined: no such account (404). */
  targetOf: (account: string) => WebhookTarget | undefined;
  /** The whole answer's budget: learning the key (once) and the hand-off. */
  deadlineMs: number;
  /** Bytes; larger bodies are refused with 413. */
  bodyLimit: number;
  log: Logger;
  /**
   * Told of every push answered 200 (`accepted`; `told` when it brought an order news) or 503,
   * once the answer is decided.
   */
  onAnswered?: (
    account: string,
    type: string | undefined,
    accepted: boolean,
    told?: boolean,
  ) => void;
}

export function registerWebhookRoute(app: FastifyInstance, opts: WebhookRouteOptions): void {
  const accepted = new AcceptedMessages();
  registerRawBodyRoutes(app, opts.bodyLimit, (scope) => {
    const limits = { bodyLimit: opts.bodyLimit };
    scope.post(
      WEBHOOK_PATH,
      { ...limits, onRequest: refuseUnread(opts, () => DEFAULT_ACCOUNT) },
      (req, reply) => answerPush(opts, accepted, DEFAULT_ACCOUNT, req, reply),
    );
    scope.post<{ Params: { account: string } }>(
      '/webhooks/:account',
      {
        ...limits,
        onRequest: refuseUnread(opts, (req) => (req.params as { account: string }).account),
      },
      (req, reply) => answerPush(opts, accepted, req.params.account, req, reply),
    );
  });
}

/**
 * Before the body is read: a push to no account (404) or without a signature (401) costs no
 * read, and its connection is closed rather than drained.
 */
function refuseUnread(opts: WebhookRouteOptions, accountOf: (req: FastifyRequest) => string) {
  return async (req: FastifyRequest, reply: FastifyReply): Promise<unknown> => {
    const account = accountOf(req);
    if (!isAccountId(account) || opts.targetOf(account) === undefined) {
      return reply.code(404).header('connection', 'close').send({ error: 'not found' });
    }
    const sign = req.headers['sign'];
    if (typeof sign !== 'string' || sign === '') {
      countWebhookEvent('rejected', account);
      return reply
        .code(401)
        .header('connection', 'close')
        .send({ error: 'invalid or missing signature' });
    }
    return undefined;
  };
}

/** One push of `account`: verified, read, then handed to Temporal once per messageId. */
async function answerPush(
  opts: WebhookRouteOptions,
  accepted: AcceptedMessages,
  account: string,
  req: FastifyRequest,
  reply: FastifyReply,
): Promise<unknown> {
  const target = isAccountId(account) ? opts.targetOf(account) : undefined;
  if (target === undefined) return reply.code(404).send({ error: 'not found' });
  const receivedAt = new Date();
  countWebhookEvent('received', account);
  const until = performance.now() + opts.deadlineMs;
  const left = () => Math.max(1, Math.round(until - performance.now()));
  const raw = rawBody(req);
  if (!(await signatureVerified(opts, target, account, raw, req, reply, left()))) return reply;
  const read = readMessage(opts.log, account, raw, receivedAt);
  if (!read.ok) return reply.code(400).send({ errors: read.issues });
  const { message, envelope } = read;
  const { messageId, type, messageType } = envelope;
  const seenId = `${account}:${messageId}`;
  const earlier = accepted.get(seenId);
  if (earlier !== undefined) {
    // Temporal took this message already (a retry, or a replay by someone who kept it): its
    // recipients would drop it by messageId; answered as the first time, at no cost.
    countWebhookEvent('duplicate', account);
    opts.log.debug({ account, messageId, type, messageType }, 'webhook: messageId seen before');
    opts.onAnswered?.(account, type, true, false);
    return reply.code(200).send({ messageId, outcome: earlier });
  }
  try {
    const outcome = await target.handOff(message, receivedAt, left());
    countWebhookEvent(handoffOutcome(outcome), account);
    accepted.add(seenId, outcome.outcome);
    logAccepted(opts.log, account, envelope, outcome);
    opts.onAnswered?.(account, type, true, outcome.outcome === 'delivered');
    return await reply.code(200).send({ messageId, outcome: outcome.outcome });
  } catch (err) {
    countWebhookEvent('failed', account);
    opts.onAnswered?.(account, type, false);
    if (err instanceof DeadlineExceeded) {
      opts.log.warn({ messageId, type, ms: err.ms }, 'webhook: Temporal too slow; answered 503');
    } else {
      opts.log.error({ err, messageId, type }, 'webhook: hand-off to Temporal failed');
    }
    return reply.code(503).send({ error: 'not accepted yet; retry' });
  }
}

/**
 * Whether the push is signed with the account's key; if not, the refusal has been sent: 503 when
 * the key is not at hand, 401 when the signature is bad. (A boolean, not the reply: a reply is
 * thenable, and awaiting it would not say that it was sent.)
 */
async function signatureVerified(
  opts: WebhookRouteOptions,
  target: WebhookTarget,
  account: string,
  raw: Buffer,
  req: FastifyRequest,
  reply: FastifyReply,
  ms: number,
): Promise<boolean> {
  const sign = req.headers['sign'];
  let key: string;
  try {
    // Learning it may need a token call: bounded like the hand-off, the supplier waits 3 s.
    key = await raceDeadline(target.signingKey(), ms);
  } catch (err) {
    opts.log.error({ err, account }, 'webhook: the signing key (openId) is not available');
    countWebhookEvent('failed', account);
    opts.onAnswered?.(account, undefined, false);
    await reply.code(503).send({ error: 'not ready to verify webhooks; retry' });
    return false;
  }
  if (!verifyWebhookSignature(key, raw, typeof sign === 'string' ? sign : undefined)) {
    opts.log.warn(
      { account, bytes: raw.length, signed: sign !== undefined },
      'webhook: bad signature',
    );
    countWebhookEvent('rejected', account);
    await reply.code(401).send({ error: 'invalid or missing signature' });
    return false;
  }
  return true;
}

type Envelope = { messageId: string; type: string; messageType: string };
type ReadMessage =
  { ok: true; message: IncomingWebhook; envelope: Envelope } | { ok: false; issues: FieldIssue[] };

/**
 * A signed body as a message: a valid one, or an unreadable one with a messageId (held in the
 * inbox); not JSON, or no messageId: refused (400).
 */
function readMessage(log: Logger, account: string, raw: Buffer, receivedAt: Date): ReadMessage {
  const body = readJson(raw);
  if (!body.ok) {
    log.warn({ account, bytes: raw.length }, 'webhook: body is not JSON');
    countWebhookEvent('rejected', account);
    return body;
  }
  const parsed = parseWebhookMessage(body.value);
  if (parsed.ok) return { ok: true, message: parsed.message, envelope: parsed.message };
  const unreadable = unreadableWebhook(body.value, parsed.issues, receivedAt);
  if (unreadable === undefined) {
    log.warn({ account, issues: parsed.issues }, 'webhook: invalid message without a messageId');
    countWebhookEvent('rejected', account);
    return { ok: false, issues: parsed.issues };
  }
  log.warn(
    { messageId: unreadable.messageId, type: unreadable.event.type, issues: parsed.issues },
    'webhook: unreadable message; holding it in the inbox',
  );
  return { ok: true, message: unreadable, envelope: unreadable.event };
}

function logAccepted(log: Logger, account: string, e: Envelope, outcome: HandoffOutcome): void {
  const { messageId, type, messageType } = e;
  if (outcome.outcome === 'held' && outcome.foreign === true) {
    // A signed message naming another account's order: nothing reached that order.
    log.warn(
      { account, messageId, type, messageType },
      "webhook: refused routing to another account's order; held as an unknown order",
    );
  }
  const level = outcome.outcome === 'held' ? 'info' : 'debug';
  log[level]({ account, messageId, type, messageType, ...outcome }, 'webhook accepted');
}

type ReadJson = { ok: true; value: unknown } | { ok: false; issues: FieldIssue[] };

function readJson(raw: Buffer): ReadJson {
  try {
    return { ok: true, value: JSON.parse(raw.toString('utf8')) as unknown };
  } catch {
    return { ok: false, issues: [{ field: '(body)', rule: 'must be JSON' }] };
  }
}
