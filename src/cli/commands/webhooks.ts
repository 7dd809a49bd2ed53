/**
 * `dropflow webhooks …`:
 * - `register --base-url <public https url> [--subscribe <pid,…>] [--cap <n>]`: the supplier
 *   pushes every topic to `<base>/webhooks/supplier`; then product subscriptions in calls of 100.
 * - `inbox [--json]`: the webhook events no workflow took (the account's `webhook-inbox`).
 * - `replay [messageId…] [--json]`: routes held events again (all when none are named).
 */
import { WorkflowNotFoundError } from '@temporalio/client';
import { InvalidArgumentError, type Command } from 'commander';

import {
  inboxQuery,
  replayUpdate,
  webhookInboxId,
  type InboxView,
  type ReplayResult,
} from '../../inbox/contract.js';
import { loadConfig, supplierTarget } from '../../config.js';
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

const idList = (value: string, previous: string[] = []): string[] => [
  ...previous,
  ...value.split(',').map((id) => id.trim()),
];

function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('must be a whole number ≥ 1');
  return n;
}

export function register(program: Command): void {
  const webhooks = program
    .command('webhooks')
    .description('supplier webhooks: register the gateway, look at and replay held events');

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
