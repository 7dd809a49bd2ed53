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
import { accountOf, control, refuse } from './control.js';

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
  /**
   * Global counters, or one account's with ?openId=: requests by endpoint, refusals (1600200) and
   * the most requests in any 1 s (peakRequestsPerSecond) since `since`.
   */
  control(app, 'GET', '/__sandbox/stats', {}, (_, req) => {
    const { openId } = req.query;
    if (openId === undefined) return sb.state.stats;
    accountOf(sb, openId);
    return sb.state.statsByAccount[openId] ?? emptyStats();
  });

  /**
   * The orders the sandbox holds, briefly: whose they are, their number, and whether they are paid
   * (a tool in another process follows its orders with it). One account's with ?openId=.
   */
  control(app, 'GET', '/__sandbox/orders', {}, (_, req) => {
    const { openId } = req.query;
    if (openId !== undefined) accountOf(sb, openId);
    const orders = Object.values(sb.state.orders)
      .filter((o) => openId === undefined || o.openId === openId)
      .map((o) => ({ openId: o.openId, orderNumber: o.orderNumber, paid: isPaid(o) }));
    return { orders };
  });

  /** One account's counters start again from zero (a new measure: peak, calls, refusals). */
  control(app, 'DELETE', '/__sandbox/stats', {}, (_, req) => {
    const { openId } = req.query;
    if (openId === undefined) throw refuse(400, 'name the account: ?openId=');
    accountOf(sb, openId);
    return sb.resetStats(openId);
  });

  /** A fresh account, so that concurrent users (tests) do not share one rate limit. */
  control(app, 'POST', '/__sandbox/accounts', { body: NewAccount, status: 201 }, (p) => {
    const a = sb.createAccount(p.apiKey, p.balance);
    const { ratePerSecond, oneBudget } = p;
    if (ratePerSecond !== undefined || oneBudget !== undefined) {
      a.settings = {
        ...a.settings,
        ...(ratePerSecond !== undefined && { ratePerSecond }),
        ...(oneBudget !== undefined && { oneBudget }),
      };
      sb.changed();
    }
    return { apiKey: a.apiKey, openId: a.openId };
  });

  control(app, 'POST', '/__sandbox/balance', { body: Balance, bare: true }, (p) => {
    const account = accountOf(sb, p.openId);
    account.balance.amount = p.amount;
    sb.changed();
    return { openId: account.openId, balance: account.balance };
  });

  /**
   * The merchant tops the balance up, as on the supplier's site: a balance top-up makeup order
   * (BT…) is made and paid at once, the balance grows by `amount`, and the makeup topic's callback
   * hears it CREATED then PAID — the news dropflow's funds watcher acts on.
   */
  control(app, 'POST', '/__sandbox/topup', { body: TopUp, bare: true }, (p) => {
    const account = accountOf(sb, p.openId);
    const amount = Math.round(p.amount * 100) / 100;
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
  control(app, 'POST', '/__sandbox/tokens/expire', { body: ExpireTokens, bare: true }, (p) => {
    const account = accountOf(sb, p.openId);
    const tokens = account.tokens;
    const live = tokens !== undefined && tokens.accessExpiresAt > sb.now();
    if (live) tokens.accessExpiresAt = sb.now();
    sb.changed();
    return { openId: account.openId, expired: live ? 1 : 0 };
  });

  control(app, 'GET', '/__sandbox/faults', {}, () => sb.faults.list(sb.now()));
  control(app, 'POST', '/__sandbox/faults', { body: FaultRule, bare: true, status: 201 }, (p) => {
    sb.faults.add(p, sb.now());
    return p;
  });
  control(app, 'DELETE', '/__sandbox/faults', {}, (_, req) => {
    sb.faults.clear(req.query.openId);
    return { cleared: true };
  });

  /** Automatic lifecycle speed: milliseconds between steps of a paid order; 0 stops it. */
  control(app, 'POST', '/__sandbox/lifecycle', { body: Lifecycle, bare: true }, (p) => {
    sb.state.lifecycleStepMs = p.stepMs;
    sb.changed();
    return { stepMs: sb.state.lifecycleStepMs };
  });
}
