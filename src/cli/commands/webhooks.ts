/**
 * `dropflow webhooks …`:
 * - `register --base-url <public https url> [--subscribe <pid,…>] [--cap <n>]`: the supplier
 *   pushes every topic to `<base>/webhooks/supplier`; then product subscriptions in calls of 100.
 * - `inbox [--json]`: the webhook events no workflow took (the account's `webhook-inbox`).
 * - `replay [messageId…] [--json]`: routes held events again (all when none are named).
 * - `health [--account <id>] [--json]`: the account's webhook health, kept by its tracking
 *   sweeper (docs/webhook-health.md).
 */
import { WorkflowNotFoundError } from '@temporalio/client';
import type { Command } from 'commander';
import { idList, positiveInt } from '../options.js';

import {
  inboxQuery,
  replayUpdate,
  webhookInboxId,
  type InboxView,
  type ReplayResult,
} from '../../inbox/contract.js';
import { loadConfig, supplierTarget } from '../../config/environment.js';
import { accountScope, DEFAULT_ACCOUNT } from '../../accounts/contract.js';
import {
  sweeperStatusQuery,
  trackingSweeperId,
  type SweeperStatus,
  type WebhookHealthView,
} from '../../tracking/contract.js';
import {
  callbackUrlFor,
  CallbackUrlRefused,
  enableWebhooks,
  subscribeProducts,
  type SubscribeOutcome,
} from '../../gateway/registration.js';
import { SupplierClient } from '../../supplier/client.js';
import { queuePrefix } from '../../temporal/taskQueues.js';
import { CommandError } from '../failure.js';
import { printJson, printLines } from '../output.js';
import { connectTemporal, temporalOptions, type TemporalFlags } from '../temporal.js';

interface RegisterFlags {
  baseUrl: string;
  subscribe?: string[];
  cap?: number;
  json?: boolean;
}

interface InboxFlags extends TemporalFlags {
  json?: boolean;
}

export function register(program: Command): void {
  const webhooks = program
    .command('webhooks')
    .description('supplier webhooks: register the gateway, look at and replay held events');
  registerCommand(webhooks);
  inboxCommand(webhooks);
  replayCommand(webhooks);
  healthCommand(webhooks);
}

function registerCommand(webhooks: Command): void {
  webhooks
    .command('register')
    .description('make the supplier push every topic to <base-url>/webhooks/supplier')
    .requiredOption('--base-url <url>', 'public https address of the gateway')
    .option('--subscribe <pid,…>', 'also subscribe these products (repeatable)', idList)
    .option('--cap <n>', "the account tier's subscription cap (lv1 100 … lv5 10000)", positiveInt)
    .option('--json', 'print the outcome as one JSON document')
    .action(async (flags: RegisterFlags) => {
      let callbackUrl: string;
      try {
        callbackUrl = callbackUrlFor(flags.baseUrl);
      } catch (err) {
        if (!(err instanceof CallbackUrlRefused)) throw err;
        throw new CommandError(err.message, 'CALLBACK_URL_REFUSED', 2);
      }
      const config = loadConfig();
      const supplier = new SupplierClient({
        ...supplierTarget(config),
        ratePerSecond: config.SUPPLIER_RATE_PER_SECOND,
      });
      try {
        const topics = await enableWebhooks(supplier, callbackUrl);
        let subscriptions: SubscribeOutcome | undefined;
        if (flags.subscribe !== undefined && flags.subscribe.length > 0) {
          subscriptions = await subscribeProducts(supplier, flags.subscribe, {
            ...(flags.cap !== undefined && { cap: flags.cap }),
          });
        }
        if (flags.json === true) {
          printJson({ callbackUrl, topics, ...(subscriptions && { subscriptions }) });
        } else {
          const lines = [`webhooks: ${topics.join(', ')} → ${callbackUrl}`];
          if (subscriptions) {
            const s = subscriptions;
            lines.push(`subscribed: ${s.subscribed.length} (${s.subscribed.join(', ') || '-'})`);
            if (s.failed.length > 0) lines.push(`refused by the supplier: ${s.failed.join(', ')}`);
            if (s.notSent.length > 0) {
              lines.push(`not sent (${s.stoppedBecause ?? 'cap'}): ${s.notSent.join(', ')}`);
            }
          }
          printLines(lines);
        }
        if (subscriptions && (subscriptions.failed.length > 0 || subscriptions.notSent.length > 0))
          process.exitCode = 1;
      } finally {
        await supplier.close();
      }
    });
}

function inboxCommand(webhooks: Command): void {
  temporalOptions(
    webhooks
      .command('inbox')
      .description('webhook events no workflow took yet (held, not dropped)')
      .option('--json', 'print the inbox as one JSON document'),
    { queues: true },
  ).action(async (flags: InboxFlags) => {
    const temporal = await connectTemporal(flags);
    try {
      const id = webhookInboxId(queuePrefix(temporal.target.queues));
      let view: InboxView;
      try {
        view = await temporal.client.workflow.getHandle(id).query(inboxQuery);
      } catch (err) {
        if (!(err instanceof WorkflowNotFoundError)) throw err;
        view = { held: [], received: 0, delivered: 0, evicted: 0, expired: 0, discarded: 0 };
      }
      if (flags.json === true) {
        printJson(view);
        return;
      }
      const lines = [
        `${id}: ${view.held.length} held; ${view.received} received, ${view.delivered} delivered by replay, ${view.evicted} evicted, ${view.expired} expired, ${view.discarded} discarded`,
      ];
      for (const h of view.held) {
        lines.push(
          `  ${h.heldAt}  ${h.event.messageId}  ${h.event.type}/${h.event.messageType}  ${h.reason}` +
            (h.nextReplayAt !== undefined ? `  (next try ${h.nextReplayAt})` : '') +
            (h.expiresAt !== undefined ? `  (let go ${h.expiresAt})` : ''),
        );
      }
      printLines(lines);
    } finally {
      await temporal.close();
    }
  });
}

function replayCommand(webhooks: Command): void {
  temporalOptions(
    webhooks
      .command('replay')
      .description('route held webhook events again, now that their orders may exist')
      .argument('[messageId...]', 'only these events (default: every held event)')
      .option('--json', 'print the outcome as one JSON document'),
    { queues: true },
  ).action(async (messageIds: string[], flags: InboxFlags) => {
    const temporal = await connectTemporal(flags);
    try {
      const id = webhookInboxId(queuePrefix(temporal.target.queues));
      let result: ReplayResult;
      try {
        result = await temporal.client.workflow
          .getHandle(id)
          .executeUpdate(replayUpdate, { args: [messageIds.length > 0 ? { messageIds } : {}] });
      } catch (err) {
        if (!(err instanceof WorkflowNotFoundError)) throw err;
        // No inbox workflow yet: the gateway never had to hold anything.
        result = { delivered: [], closed: [], stillHeld: [] };
      }
      if (flags.json === true) printJson(result);
      else {
        printLines([
          `delivered: ${result.delivered.length}  closed orders: ${result.closed.length}  still held: ${result.stillHeld.length}`,
        ]);
      }
    } finally {
      await temporal.close();
    }
  });
}

function healthCommand(webhooks: Command): void {
  temporalOptions(
    webhooks
      .command('health')
      .description(
        "the account's webhook health: the gap, pushes per topic, repairs, and how late a change may reach an order",
      )
      .option('--account <id>', 'a supplier account of the registry (default: the default one)')
      .option('--json', 'print the health as one JSON document'),
    { queues: true },
  ).action(async (flags: InboxFlags & { account?: string }) => {
    const temporal = await connectTemporal(flags);
    try {
      const id = trackingSweeperId(
        accountScope(queuePrefix(temporal.target.queues), flags.account ?? DEFAULT_ACCOUNT),
      );
      let status: SweeperStatus;
      try {
        status = await temporal.client.workflow.getHandle(id).query(sweeperStatusQuery);
      } catch (err) {
        if (!(err instanceof WorkflowNotFoundError)) throw err;
        throw new CommandError(
          `${id} is not running: start a worker (it ensures the sweeper)`,
          'NOT_FOUND',
          1,
        );
      }
      const health = status.webhooks;
      if (flags.json === true) {
        printJson({ sweeper: id, everySeconds: status.settings.everySeconds, webhooks: health });
        return;
      }
      if (health === undefined) {
        printLines([
          `${id}: no webhook health yet (the sweeper takes it up when it next continues as new)`,
        ]);
        return;
      }
      printLines(healthLines(id, status.settings.everySeconds, health));
    } finally {
      await temporal.close();
    }
  });
}

function healthLines(id: string, everySeconds: number, h: WebhookHealthView): string[] {
  const lines = [
    `${id}: webhooks ${h.mode}` +
      (h.gapSeconds > 0
        ? `, news only by sweeps for ${h.gapSeconds} s (since ${h.pollOnlySince ?? '-'}; bound ${h.gapBoundSeconds ?? '-'} s)`
        : '') +
      (h.failingSince !== undefined ? `, acknowledgements failing since ${h.failingSince}` : ''),
    `worst case: a change reaches its order within ${h.worstCaseSeconds} s (sweeps every ${everySeconds} s; pushes, when they work, within seconds)`,
    `changes first seen by a sweep: ${h.polledChanges}; registrations sent: ${h.registrations}` +
      (h.lastRegistration !== undefined
        ? ` (last ${h.lastRegistration.at}, ${h.lastRegistration.ok ? 'ok' : `failed: ${h.lastRegistration.error ?? ''}`})`
        : '') +
      (h.nextRepairAt !== undefined ? `; next repair ${h.nextRepairAt}` : ''),
  ];
  for (const [topic, t] of Object.entries(h.topics)) {
    lines.push(
      `  ${topic}: ${t.accepted} accepted, ${t.failed} failed` +
        (t.lastAcceptedAt !== undefined ? `, last ${t.lastAcceptedAt}` : ''),
    );
  }
  return lines;
}
