/**
 * Test and demo controls of webhook delivery (docs/sandbox.md, Webhooks), as the vendor stops
 * pushing:
 *
 * - `POST /__sandbox/webhooks/pause {openId?, topic?}`: the account's pushes (every topic, or one)
 *   stop until the topic is set to ENABLE again (webhook/set), as the vendor pauses a receiver that
 *   fails about half the time. Pushes queued meanwhile are dropped.
 * - `POST /__sandbox/webhooks/close {openId?, topic}`: the topic is closed, as the auto-close rule
 *   does (`enabled: false` with a reason), until it is set to ENABLE again.
 * - `POST /__sandbox/webhooks/mute {openId?, muted}`: a supplier that pushes nothing at all, whatever
 *   is registered (`muted: false` ends it).
 * - `GET /__sandbox/webhooks?openId=`: the account's topics as the sandbox holds them.
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import { z } from 'zod';
import { WEBHOOK_TOPICS } from 'dropflow/supplier';
import type { Sandbox } from '../sandbox.js';
import type { SandboxAccount } from '../state.js';

const Topic = z.enum(WEBHOOK_TOPICS);
const Pause = z.strictObject({ openId: z.string().min(1).optional(), topic: Topic.optional() });
const Close = z.strictObject({ openId: z.string().min(1).optional(), topic: Topic });
const Mute = z.strictObject({ openId: z.string().min(1).optional(), muted: z.boolean() });

export function registerWebhookControlRoutes(app: FastifyInstance, sb: Sandbox): void {
  const accountOf = (openId: string | undefined): SandboxAccount | undefined =>
    openId === undefined ? sb.defaultAccount() : sb.state.accounts[openId];
  const invalid = (issues: z.ZodError) => ({ error: 'invalid request', issues: issues.issues });

  app.get('/__sandbox/webhooks', (req, reply) => {
    const account = accountOf((req.query as { openId?: string }).openId);
    if (!account) return reply.code(404).send({ error: 'no such account' });
    return view(account);
  });

  /**
   * A POST control on the account its body names (the default one without `openId`): `act`
   * changes it, or answers a refusal itself; the reply is then the account's topics.
   */
  const control = <T extends { openId?: string | undefined }>(
    path: string,
    body: z.ZodType<T>,
    act: (account: SandboxAccount, p: T, reply: FastifyReply) => FastifyReply | undefined,
  ) =>
    app.post(path, (req, reply) => {
      const p = body.safeParse(req.body ?? {});
      if (!p.success) return reply.code(400).send(invalid(p.error));
      const account = accountOf(p.data.openId);
      if (!account) return reply.code(404).send({ error: 'no such account' });
      const refused = act(account, p.data, reply);
      if (refused !== undefined) return refused;
      sb.changed();
      return view(account);
    });

  control('/__sandbox/webhooks/pause', Pause, (account, p) => {
    const topics = p.topic === undefined ? WEBHOOK_TOPICS : [p.topic];
    for (const topic of topics) {
      const sub = account.webhooks[topic];
      if (sub?.enabled !== true) continue;
      sub.pausedReason = `paused at ${new Date(sb.now()).toISOString()}: the receiver failed too often; register the webhook again to resume`;
    }
    return undefined;
  });

  control('/__sandbox/webhooks/close', Close, (account, p, reply) => {
    const sub = account.webhooks[p.topic];
    if (sub?.enabled !== true) return reply.code(409).send({ error: 'the topic is not enabled' });
    sub.enabled = false;
    sub.closedReason = `closed at ${new Date(sb.now()).toISOString()} by the sandbox control: set the topic to ENABLE again to reopen it`;
    return undefined;
  });

  control('/__sandbox/webhooks/mute', Mute, (account, p) => {
    if (p.muted) account.webhooksMuted = true;
    else delete account.webhooksMuted;
    return undefined;
  });
}

function view(account: SandboxAccount) {
  return {
    openId: account.openId,
    muted: account.webhooksMuted === true,
    topics: Object.fromEntries(
      Object.entries(account.webhooks).map(([topic, sub]) => [
        topic,
        {
          callbackUrl: sub.callbackUrl,
          enabled: sub.enabled,
          ...(sub.closedReason !== undefined && { closedReason: sub.closedReason }),
          ...(sub.pausedReason !== undefined && { pausedReason: sub.pausedReason }),
        },
      ]),
    ),
  };
}
