/**
 * Test and demo controls under /__sandbox/ (docs/sandbox.md). Not part of the supplier's API.
 */
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { MakeupStatus, WebhookTopic } from 'dropflow/supplier';
import { FaultRule } from '../faults.js';
import { isPaid } from '../orderBook.js';
import { utcDate } from '../orderView.js';
import type { Sandbox } from '../sandbox.js';
import { emptyStats } from '../state.js';

const Balance = z.object({ amount: z.number().nonnegative(), openId: z.string().optional() });
const NewAccount = z.object({
  apiKey: z.string().min(1).max(200).optional(),
  balance: z.number().nonnegative().optional(),
  /** The account's tier: its general limit in requests per second (settings.ratePerSecond). */
  ratePerSecond: z.number().positive().max(50).optional(),
  /** Every request but the token calls spends the general limit (settings.oneBudget). */
  oneBudget: z.boolean().optional(),
});
const Lifecycle = z.object({ stepMs: z.number().int().nonnegative() });
const TopUp = z.object({
  amount: z.number().positive().max(1_000_000),
  openId: z.string().optional(),
});
const ExpireTokens = z.object({ openId: z.string().min(1) });

export function registerControlRoutes(app: FastifyInstance, sb: Sandbox): void {
  const bad = (issues: z.ZodError) => ({ error: 'invalid request', issues: issues.issues });

  /**
   * Global counters, or one account's with ?openId=: requests by endpoint, refusals (1600200) and
   * the most requests in any 1 s (peakRequestsPerSecond) since `since`.
   */
  app.get('/__sandbox/stats', (req, reply) => {
    const { openId } = req.query as { openId?: string };
    if (openId === undefined) return sb.state.stats;
    if (!sb.state.accounts[openId]) return reply.code(404).send({ error: 'no such account' });
    return sb.state.statsByAccount[openId] ?? emptyStats();
  });

  /**
   * The orders the sandbox holds, briefly: whose they are, their number, and whether they are paid
   * (a tool in another process follows its orders with it). One account's with ?openId=.
   */
  app.get('/__sandbox/orders', (req, reply) => {
    const { openId } = req.query as { openId?: string };
    if (openId !== undefined && !sb.state.accounts[openId]) {
      return reply.code(404).send({ error: 'no such account' });
    }
    const orders = Object.values(sb.state.orders)
      .filter((o) => openId === undefined || o.openId === openId)
      .map((o) => ({ openId: o.openId, orderNumber: o.orderNumber, paid: isPaid(o) }));
    return { orders };
  });

  /** One account's counters start again from zero (a new measure: peak, calls, refusals). */
  app.delete('/__sandbox/stats', (req, reply) => {
    const { openId } = req.query as { openId?: string };
    if (openId === undefined) return reply.code(400).send({ error: 'name the account: ?openId=' });
    if (!sb.state.accounts[openId]) return reply.code(404).send({ error: 'no such account' });
    return sb.resetStats(openId);
  });

  /** A fresh account, so that concurrent users (tests) do not share one rate limit. */
  app.post('/__sandbox/accounts', (req, reply) => {
    const p = NewAccount.safeParse(req.body ?? {});
    if (!p.success) return reply.code(400).send(bad(p.error));
    const { apiKey, balance, ratePerSecond, oneBudget } = p.data;
    const a = sb.createAccount(apiKey, balance);
    if (ratePerSecond !== undefined || oneBudget !== undefined) {
      a.settings = {
        ...a.settings,
        ...(ratePerSecond !== undefined && { ratePerSecond }),
        ...(oneBudget !== undefined && { oneBudget }),
      };
      sb.changed();
    }
    return reply.code(201).send({ apiKey: a.apiKey, openId: a.openId });
  });

  app.post('/__sandbox/balance', (req, reply) => {
    const p = Balance.safeParse(req.body);
    if (!p.success) return reply.code(400).send(bad(p.error));
    const account =
      p.data.openId === undefined ? sb.defaultAccount() : sb.state.accounts[p.data.openId];
    if (!account) return reply.code(404).send({ error: 'no such account' });
    account.balance.amount = p.data.amount;
    sb.changed();
    return { openId: account.openId, balance: account.balance };
  });

  /**
   * The merchant tops the balance up, as on the supplier's site: a balance top-up makeup order
   * (BT…) is made and paid at once, the balance grows by `amount`, and the makeup topic's callback
   * hears it CREATED then PAID — the news dropflow's funds watcher acts on.
   */
  app.post('/__sandbox/topup', (req, reply) => {
    const p = TopUp.safeParse(req.body);
    if (!p.success) return reply.code(400).send(bad(p.error));
    const account =
      p.data.openId === undefined ? sb.defaultAccount() : sb.state.accounts[p.data.openId];
    if (!account) return reply.code(404).send({ error: 'no such account' });
    const amount = Math.round(p.data.amount * 100) / 100;
    const makeupOrderId = sb.nextId('BT');
    const at = utcDate(sb.now());
    account.balance.amount = Math.round((account.balance.amount + amount) * 100) / 100;
    sb.changed();
    const params = {
      orderId: makeupOrderId,
      amount,
      reason: 'balance top-up',
      type: 1,
      diffUseType: 1,
      createDate: at,
    };
    const pushed = [
      sb.webhooks.enqueue(account.openId, WebhookTopic.Makeup, {
        type: 'MAKEUP',
        messageType: 'INSERT',
        params: { ...params, status: MakeupStatus.Created },
      }),
      sb.webhooks.enqueue(account.openId, WebhookTopic.Makeup, {
        type: 'MAKEUP',
        messageType: 'PAID',
        params: {
          ...params,
          status: MakeupStatus.Paid,
          payOrderId: sb.nextId('PAY'),
          paymentDate: at,
        },
      }),
    ].filter((id) => id !== undefined);
    return {
      openId: account.openId,
      makeupOrderId,
      amount,
      balance: account.balance,
      // Empty when the account has no enabled makeup callback (webhook/set).
      webhookMessageIds: pushed,
    };
  });

  /** The account's access token expires now (its next use answers 1600001); refresh still works. */
  app.post('/__sandbox/tokens/expire', (req, reply) => {
    const p = ExpireTokens.safeParse(req.body);
    if (!p.success) return reply.code(400).send(bad(p.error));
    const account = sb.state.accounts[p.data.openId];
    if (!account) return reply.code(404).send({ error: 'no such account' });
    const tokens = account.tokens;
    const live = tokens !== undefined && tokens.accessExpiresAt > sb.now();
    if (live) tokens.accessExpiresAt = sb.now();
    sb.changed();
    return { openId: account.openId, expired: live ? 1 : 0 };
  });

  app.get('/__sandbox/faults', () => sb.faults.list(sb.now()));
  app.post('/__sandbox/faults', (req, reply) => {
    const p = FaultRule.safeParse(req.body);
    if (!p.success) return reply.code(400).send(bad(p.error));
    sb.faults.add(p.data, sb.now());
    return reply.code(201).send(p.data);
  });
  app.delete('/__sandbox/faults', (req) => {
    const { openId } = req.query as { openId?: string };
    sb.faults.clear(openId);
    return { cleared: true };
  });

  /** Automatic lifecycle speed: milliseconds between steps of a paid order; 0 stops it. */
  app.post('/__sandbox/lifecycle', (req, reply) => {
    const p = Lifecycle.safeParse(req.body);
    if (!p.success) return reply.code(400).send(bad(p.error));
    sb.state.lifecycleStepMs = p.data.stepMs;
    sb.changed();
    return { stepMs: sb.state.lifecycleStepMs };
  });
}
