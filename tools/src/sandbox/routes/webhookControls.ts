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
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { WEBHOOK_TOPICS } from '../../../../src/supplier/api/webhooks.js';
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

  app.post('/__sandbox/webhooks/pause', (req, reply) => {
    const p = Pause.safeParse(req.body ?? {});
    if (!p.success) return reply.code(400).send(invalid(p.error));
    const account = accountOf(p.data.openId);
    if (!account) return reply.code(404).send({ error: 'no such account' });
    const topics = p.data.topic === undefined ? WEBHOOK_TOPICS : [p.data.topic];
    for (const topic of topics) {
      const sub = account.webhooks[topic];
      if (sub?.enabled !== true) continue;
      sub.pausedReason = `paused at ${new Date(sb.now()).toISOString()}: the receiver failed too often; register the webhook again to resume`;
    }
    sb.changed();
    return view(account);
  });

  app.post('/__sandbox/webhooks/close', (req, reply) => {
    const p = Close.safeParse(req.body ?? {});
    if (!p.success) return reply.code(400).send(invalid(p.error));
    const account = accountOf(p.data.openId);
    if (!account) return reply.code(404).send({ error: 'no such account' });
    const sub = account.webhooks[p.data.topic];
    if (sub?.enabled !== true) return reply.code(409).send({ error: 'the topic is not enabled' });
    sub.enabled = false;
    sub.closedReason = `closed at ${new Date(sb.now()).toISOString()} by the sandbox control: set the topic to ENABLE again to reopen it`;
    sb.changed();
    return view(account);
  });

  app.post('/__sandbox/webhooks/mute', (req, reply) => {
    const p = Mute.safeParse(req.body ?? {});
    if (!p.success) return reply.code(400).send(invalid(p.error));
    const account = accountOf(p.data.openId);
    if (!account) return reply.code(404).send({ error: 'no such account' });
    if (p.data.muted) account.webhooksMuted = true;
    else delete account.webhooksMuted;
    sb.changed();
    return view(account);
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
