/**
 * `dropflow events replay <orderNumber> [--only <id,…>] [--json]`: sends an order's store events
 * again — read from its order and dispute workflows' histories, the same ids (`webhook-id`), in
 * the order they were emitted — to STORE_EVENTS_URL, signed with STORE_EVENTS_SECRET. It stops at
 * the first event the store does not take, so none arrives before an earlier one.
 */
import type { Command } from 'commander';

import type { StoreEvent } from '../../storeEvents/contract.js';
import { DEFAULT_ACCOUNT, type Account } from '../../accounts/contract.js';
import { loadAccountDirectory } from '../../accounts/registry.js';
import { loadConfig, storeEventsOptions, type Config } from '../../config/environment.js';
import { OrderOfAnotherAccountError, recordedStoreEvents } from '../storeEventHistory.js';
import { sendStoreEvent, type StoreTarget } from '../../storeEvents/sending.js';
import { CommandError } from '../failure.js';
import { EXIT_INVALID, printJson, printLines } from '../output.js';
import { idList } from '../options.js';
import { accountOption, orderAccount, unknownAccount, type AccountFlags } from '../orderAccount.js';
import { temporalOptions, withOrders, type TemporalFlags } from '../temporal.js';

interface ReplayFlags extends TemporalFlags, AccountFlags {
  only?: string[];
  json?: boolean;
}

export interface ReplayedEvent {
  id: string;
  type: StoreEvent['type'];
  outcome: 'sent' | 'failed' | 'not sent';
  /** The store's HTTP status, when it answered. */
  status?: number;
  /** Why it failed, or why it was not sent. */
  message?: string;
}

export interface ReplayReport {
  orderNumber: string;
  /** The store's host (the URL's path and query are not shown: they may hold a token). */
  host: string;
  sent: number;
  failed: number;
  notSent: number;
  events: ReplayedEvent[];
}

/** Sends `events` one after the other; after a failure the rest are not sent. */
export async function replayEvents(
  target: StoreTarget,
  orderNumber: string,
  events: readonly StoreEvent[],
): Promise<ReplayReport> {
  const out: ReplayedEvent[] = [];
  let failedAt: string | undefined;
  for (const event of events) {
    const { id, type } = event;
    if (failedAt !== undefined) {
      out.push({ id, type, outcome: 'not sent', message: `waits for ${failedAt}` });
      continue;
    }
    const result = await sendStoreEvent(target, event);
    if (result.ok) out.push({ id, type, outcome: 'sent', status: result.status });
    else {
      failedAt = id;
      out.push({
        id,
        type,
        outcome: 'failed',
        ...(result.status !== undefined && { status: result.status }),
        message: result.message,
      });
    }
  }
  const count = (outcome: ReplayedEvent['outcome']) =>
    out.filter((e) => e.outcome === outcome).length;
  return {
    orderNumber,
    host: new URL(target.url).host,
    sent: count('sent'),
    failed: count('failed'),
    notSent: count('not sent'),
    events: out,
  };
}

/**
 * Where an account's events go: its own store (the registry's storeEventsUrl and secret), else the
 * deployment's (STORE_EVENTS_URL): never another account's.
 */
export function storeTargetOf(
  account: Account | undefined,
  deployment: { url?: string; secret?: string },
): { url?: string; secret?: string } {
  if (account?.storeEventsUrl !== undefined) {
    return { url: account.storeEventsUrl, secret: account.storeEventsSecret };
  }
  return { url: deployment.url, secret: deployment.secret };
}

async function replayTarget(config: Config, account: string) {
  const options = storeEventsOptions(config);
  if (account === DEFAULT_ACCOUNT) return { ...options, url: options.url, secret: options.secret };
  const known = (await loadAccountDirectory(config)).get(account);
  if (known === undefined) throw unknownAccount(account);
  return { ...options, ...storeTargetOf(known, options) };
}

export function formatReplay(report: ReplayReport): string[] {
  const typeWidth = Math.max(0, ...report.events.map((e) => e.type.length));
  const lines = report.events.map((e) => {
    const head = `${e.outcome.padEnd(8)}  ${e.type.padEnd(typeWidth)}  ${e.id}`;
    if (e.outcome === 'sent') return `${head}  HTTP ${e.status ?? '?'}`;
    // The message names the store's host and its answer (or why it was not reached).
    if (e.outcome === 'failed') return `${head}  ${e.message ?? ''}`;
    return `${head}  (${e.message ?? 'not sent'})`;
  });
  lines.push(
    `${report.orderNumber}: ${report.sent} sent, ${report.failed} failed, ${report.notSent} not sent to ${report.host}` +
      (report.failed > 0
        ? ' (events after a failure wait, so that none arrives out of order)'
        : ''),
  );
  return lines;
}

export function register(program: Command): void {
  const events = program
    .command('events')
    .description('the store events of orders and disputes (STORE_EVENTS_URL): send them again');

  temporalOptions(
    accountOption(
      events
        .command('replay')
        .description(
          "send an order's store events again, same ids, in order, stopping at the first failure",
        )
        .argument('<orderNumber>', 'the order name it was submitted with'),
      "the order's supplier account (default: default); its events go to that account's store only",
    )
      .option('--only <id,…>', 'only these event ids (repeatable), in the order emitted', idList)
      .option('--json', 'print the outcome as one JSON document'),
  ).action(async (orderNumber: string, flags: ReplayFlags) => {
    const account = (await orderAccount(flags)).id;
    const { url, secret, timeoutMs } = await replayTarget(loadConfig(), account);
    if (url === undefined || secret === undefined) {
      throw new Error(
        'STORE_EVENTS_URL and STORE_EVENTS_SECRET are not set: where to send the events and the secret to sign them with',
      );
    }
    const recorded = await withOrders(flags, (orders) =>
      recordedStoreEvents(orders.client, orderNumber, account),
    ).catch((err: unknown) => {
      if (err instanceof OrderOfAnotherAccountError) {
        throw new CommandError(err.message, 'ORDER_OF_ANOTHER_ACCOUNT', EXIT_INVALID);
      }
      throw err;
    });
    let selected = recorded;
    if (flags.only !== undefined) {
      const only = new Set(flags.only);
      const unknown = [...only].filter((id) => !recorded.some((e) => e.id === id));
      if (unknown.length > 0) {
        throw new CommandError(
          `order ${orderNumber} emitted no event ${unknown.join(', ')}; nothing sent`,
          'UNKNOWN_EVENT',
          EXIT_INVALID,
        );
      }
      selected = recorded.filter((e) => only.has(e.id));
    }
    if (selected.length === 0) {
      if (flags.json === true) {
        printJson({
          orderNumber,
          host: new URL(url).host,
          sent: 0,
          failed: 0,
          notSent: 0,
          events: [],
        } satisfies ReplayReport);
      } else printLines([`${orderNumber}: no store events to send`]);
      return;
    }
    const report = await replayEvents(
      { url, secret, ...(timeoutMs !== undefined && { timeoutMs }) },
      orderNumber,
      selected,
    );
    if (flags.json === true) printJson(report);
    else printLines(formatReplay(report));
    if (report.failed > 0) process.exitCode = 1;
  });
}
