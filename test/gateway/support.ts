/**
 * Gateway test helpers: a gateway on 127.0.0.1 for an order harness (its client, queues and
 * sandbox account), signed pushes with the signature computed here independently of src/
 * (node:crypto), and the account's inbox as the gateway leaves it.
 */
import { createHmac } from 'node:crypto';

import { WorkflowNotFoundError } from '@temporalio/client';
import pino from 'pino';
import { afterAll, beforeAll } from 'vitest';

import {
  catalogueEventsId,
  catalogueEventsQuery,
  inboxQuery,
  webhookInboxId,
  type CatalogueView,
  type InboxView,
} from '../../src/inbox/contract.js';
import type { AccountDirectory, StoreDirectory } from '../../src/accounts/contract.js';
import {
  startGateway,
  type CodecServerOptions,
  type StartedGateway,
} from '../../src/gateway/server.js';
import type { OpenIdSource } from '../../src/gateway/signingKey.js';
import { queuePrefix } from '../../src/temporal/taskQueues.js';
import {
  DEFAULT_CHECKOUT_SETTINGS,
  type CheckoutSettings,
} from '../../src/terms/checkoutSettings.js';
import { eventually } from '../support/eventually.js';
import { madeLater } from '../support/madeLater.js';
import type { OrderHarness } from '../support/orders.js';

export const quietLog = pino({ level: 'warn' }, pino.destination(2));

export interface TestGatewayOptions {
  openId?: OpenIdSource;
  intakeToken?: string;
  webhookDeadlineMs?: number;
  /** The deployment's checkout settings (default: the product's defaults). */
  checkout?: CheckoutSettings;
  /** The supplier accounts and their store tokens (default: the default account only). */
  accounts?: AccountDirectory;
  /** Serve the codec routes (payloads encrypted). */
  codec?: CodecServerOptions;
  /** Between two pulses of pushes to the account's sweeper (default: the gateway's). */
  webhookPulseMs?: number;
  /** The store connections whose webhooks the gateway takes. */
  stores?: StoreDirectory;
}

/**
 * The gateway of a test file (or describe block) for `h` (from useOrderHarness, called first):
 * started in a beforeAll, closed in an afterAll before the harness is.
 */
export function useTestGateway(h: OrderHarness, options: TestGatewayOptions = {}): StartedGateway {
  let started: StartedGateway | undefined;
  beforeAll(async () => {
    started = await startTestGateway(h, options);
  });
  afterAll(async () => {
    await started?.close();
  });
  return madeLater(() => started, 'the test gateway');
}

export function startTestGateway(
  h: OrderHarness,
  options: TestGatewayOptions = {},
): Promise<StartedGateway> {
  return startGateway({
    temporalClient: h.client,
    queues: h.queues,
    openId: options.openId ?? h.account.openId,
    checkout: options.checkout ?? DEFAULT_CHECKOUT_SETTINGS,
    ...(options.intakeToken !== undefined && { intakeToken: options.intakeToken }),
    ...(options.accounts !== undefined && { accounts: options.accounts }),
    ...(options.codec !== undefined && { codec: options.codec }),
    ...(options.stores !== undefined && { stores: options.stores }),
    ...(options.webhookPulseMs !== undefined && { webhookPulseMs: options.webhookPulseMs }),
    ...(options.webhookDeadlineMs !== undefined && {
      webhookDeadlineMs: options.webhookDeadlineMs,
    }),
    log: quietLog,
    port: 0,
    host: '127.0.0.1',
  });
}

/** Base64(HMAC-SHA256(openId, body)), computed here rather than by src/. */
export const hmac = (openId: string, body: string | Buffer): string =>
  createHmac('sha256', openId).update(body).digest('base64');

export interface Answer {
  status: number;
  body: Record<string, unknown>;
}

/** POSTs a body to the gateway's webhook path; `sign` undefined sends no header. */
export async function push(
  gateway: StartedGateway,
  body: string | Buffer,
  sign: string | undefined,
): Promise<Answer> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (sign !== undefined) headers['sign'] = sign;
  const res = await fetch(gateway.webhookUrl, { method: 'POST', headers, body });
  const text = await res.text();
  return { status: res.status, body: text === '' ? {} : (JSON.parse(text) as Answer['body']) };
}

/** A correctly signed push of `message` (as JSON). */
export function pushSigned(gateway: StartedGateway, openId: string, message: unknown) {
  const body = JSON.stringify(message);
  return push(gateway, body, hmac(openId, body));
}

let seq = 0;
export function messageId(tag: string): string {
  seq += 1;
  return `${tag}-${process.pid}-${Date.now().toString(36)}-${seq}`;
}

/** A MAKEUP (top-up) webhook message in `status` (PAID: the balance was topped up). */
export const makeupMessage = (status: string) => ({
  messageId: messageId('makeup'),
  type: 'MAKEUP',
  messageType: status,
  params: {
    orderId: `BT${Date.now()}`,
    amount: 500,
    reason: 'balance top-up',
    type: 1,
    diffUseType: 1,
    status,
    createDate: '2026-03-01 10:00:00',
    ...(status === 'PAID' && { payOrderId: 'PAY-1', paymentDate: '2026-03-01 10:01:00' }),
  },
});

/** The account's inbox; empty when the gateway never held anything (no workflow yet). */
export async function inbox(h: OrderHarness): Promise<InboxView> {
  try {
    return await h.client.workflow
      .getHandle(webhookInboxId(queuePrefix(h.queues)))
      .query(inboxQuery);
  } catch (err) {
    if (!(err instanceof WorkflowNotFoundError)) throw err;
    return { held: [], received: 0, delivered: 0, evicted: 0, expired: 0, discarded: 0 };
  }
}

export function catalogueView(h: OrderHarness): Promise<CatalogueView> {
  return h.client.workflow
    .getHandle(catalogueEventsId(queuePrefix(h.queues)))
    .query(catalogueEventsQuery);
}

/** The account's inbox once it holds the event with `id`. */
export function inboxHolding(h: OrderHarness, id: string): Promise<InboxView> {
  return eventually(
    `${id} held in the inbox`,
    () => inbox(h),
    (v) => v.held.some((e) => e.event.messageId === id),
  );
}

/** An ORDER topic message as docs/supplier-api.md §12.5 describes it. */
export function orderMessage(
  id: string,
  params: Record<string, unknown>,
  messageType = 'UPDATE',
): Record<string, unknown> {
  return {
    messageId: id,
    type: 'ORDER',
    messageType,
    params: { privateOutboundOrder: false, orderItems: [], ...params },
  };
}
