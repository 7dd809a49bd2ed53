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
import { WEBHOOK_TOPICS } from 'dropflow/supplier';
import type { Sandbox } from '../sandbox.js';
import type { SandboxAccount } from '../state.js';
import { accountOf, control, refuse } from './control.js';

const Topic = z.enum(WEBHOOK_TOPICS);
const Pause = z.strictObject({ openId: z.string().min(1).optional(), topic: Topic.optional() });
const Close = z.strictObject({ openId: z.string().min(1).optional(), topic: Topic });
const Mute = z.strictObject({ openId: z.string().min(1).optional(), muted: z.boolean() });

export function registerWebhookControlRoutes(app: FastifyInstance, sb: Sandbox): void {
  control(app, 'GET', '/__sandbox/webhooks', {}, (_, req) => view(accountOf(sb, req.query.openId)));

  /** A POST control on the account its body names (the default one without `openId`). */
  const webhookControl = <T extends { openId?: string | undefined }>(
    path: string,
    body: z.ZodType<T>,
    act: (account: SandboxAccount, p: T) => void,
  ) => {
    control(app, 'POST', path, { body }, (p) => {
      const account = accountOf(sb, p.openId);
      act(account, p);
      sb.changed();
      return view(account);
    });
  };

  webhookControl('/__sandbox/webhooks/pause', Pause, (account, p) => {
    const topics = p.topic === undefined ? WEBHOOK_TOPICS : [p.topic];
    for (const topic of topics) {
      const sub = account.webhooks[topic];
      if (sub?.enabled !== true) continue;
      sub.pausedReason = `paused at ${new Date(sb.now()).toISOString()}: the receiver failed too often; register the webhook again to resume`;
    }
  });

  webhookControl('/__sandbox/webhooks/close', Close, (account, p) => {
    const sub = account.webhooks[p.topic];
    if (sub?.enabled !== true) throw refuse(409, 'the topic is not enabled');
    sub.enabled = false;
    sub.closedReason = `closed at ${new Date(sb.now()).toISOString()} by the sandbox control: set the topic to ENABLE again to reopen it`;
  });

  webhookControl('/__sandbox/webhooks/mute', Mute, (account, p) => {
    if (p.muted) account.webhooksMuted = true;
    else delete account.webhooksMuted;
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
