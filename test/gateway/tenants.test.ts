/**
 * Tenants through a real gateway (docs/accounts.md): a store's intake token acts on its own
 * accounts' orders only — another account's order answers 403 and nothing reaches it — while
 * GATEWAY_TOKEN acts on every account; an order naming an account the registry does not have is
 * refused and nothing starts; the codec routes take CODEC_TOKEN only.
 */
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';

import { WorkflowNotFoundError } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { afterAll, describe, expect, it } from 'vitest';

import type { Account } from '../../src/accounts/contract.js';
import { intakeTokenHash } from '../../src/accounts/registryFile.js';
import { staticAccountDirectory } from '../../src/accounts/staticDirectory.js';
import { orderWorkflowId } from '../../src/order/contract.js';
import { SupplierAccount } from '../../src/temporal/searchAttributes.js';
import { EncryptionCodec } from '../../src/temporal/encryption.js';
import { useOrderHarness } from '../support/orders.js';
import { orderNumber } from '../supplier/orderHelpers.js';
import { useTestGateway } from './support.js';

const OPERATOR = 'operator-token-0123456789abcdef';
const TOKEN_A = 'store-a-token-0123456789abcdef';
const TOKEN_B = 'store-b-token-0123456789abcdef';
const CODEC_TOKEN = 'codec-token-0123456789abcdef';

const account = (id: string, token: string): Account => ({
  id,
  tier: 1,
  apiKey: `key-of-${id}`,
  intakeTokenSha256: [intakeTokenHash(token)],
});

const h = useOrderHarness('gw-tenants');
const accounts = staticAccountDirectory([account('shop-a', TOKEN_A), account('shop-b', TOKEN_B)]);
const gateway = useTestGateway(h, {
  intakeToken: OPERATOR,
  accounts,
  codec: {
    codec: new EncryptionCodec({ current: { id: 't', key: randomBytes(32) } }),
    token: CODEC_TOKEN,
  },
});

const idle: string[] = [];
afterAll(async () => {
  for (const id of idle) {
    await h.client.workflow
      .getHandle(id)
      .terminate('test over')
      .catch(() => undefined);
  }
});

async function example(number: string, extra: Record<string, unknown> = {}) {
  const order = JSON.parse(await readFile('examples/order-flow-b.json', 'utf8')) as Record<
    string,
    unknown
  >;
  return { ...order, orderNumber: number, ...extra };
}

async function call(
  method: 'GET' | 'POST' | 'PATCH',
  path: string,
  token: string,
  body?: unknown,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${gateway.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body !== undefined && { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

async function exists(workflowId: string): Promise<boolean> {
  try {
    await h.client.workflow.getHandle(workflowId).describe();
    return true;
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return false;
    throw err;
  }
}

/** The Updates a run's history holds: none, when nothing reached it. */
async function updatesOf(workflowId: string): Promise<number> {
  const history = await h.client.workflow.getHandle(workflowId).fetchHistory();
  const Type = temporal.api.enums.v1.EventType;
  return (history.events ?? []).filter(
    (e) =>
      e.eventType === Type.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ADMITTED ||
      e.eventType === Type.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED,
  ).length;
}

describe('an order for an account the registry does not have', () => {
  it('is refused by field and rule, and nothing starts', async () => {
    const number = orderNumber('tenant-unknown');
    const answer = await call(
      'POST',
      '/v1/orders',
      OPERATOR,
      await example(number, { account: 'shop-z' }),
    );
    expect(answer).toEqual({
      status: 400,
      body: { errors: [{ field: 'account', rule: 'no such supplier account' }] },
    });
    expect(await exists(orderWorkflowId(number, 'shop-z'))).toBe(false);
    expect(await exists(orderWorkflowId(number))).toBe(false);
  });
});

describe("a store token on another account's order", () => {
  it('cannot submit for another account: 403, nothing starts', async () => {
    const number = orderNumber('tenant-submit');
    const answer = await call(
      'POST',
      '/v1/orders',
      TOKEN_A,
      await example(number, { account: 'shop-b' }),
    );
    expect(answer.status).toBe(403);
    expect(answer.body['message']).toContain('not of account "shop-b"');
    // No account named: the default account's, which is not the store's either.
    expect((await call('POST', '/v1/orders', TOKEN_A, await example(number))).status).toBe(403);
    expect(await exists(orderWorkflowId(number, 'shop-b'))).toBe(false);
    expect(await exists(orderWorkflowId(number))).toBe(false);
  });

  it("cannot read or amend B's order: 403 and the order unchanged; B's token and the operator can", async () => {
    const number = orderNumber('tenant-b');
    const submitted = await call(
      'POST',
      '/v1/orders',
      TOKEN_B,
      await example(number, { account: 'shop-b' }),
    );
    expect(submitted.status).toBe(201);
    const workflowId = orderWorkflowId(number, 'shop-b');
    expect(submitted.body['workflowId']).toBe(workflowId);
    const run = await h.client.workflow.getHandle(workflowId).describe();
    expect(run.typedSearchAttributes.get(SupplierAccount)).toBe('shop-b');

    const path = `/v1/orders/${number}`;
    expect((await call('GET', `${path}?account=shop-b`, TOKEN_A)).status).toBe(403);
    const amend = await call('PATCH', `${path}?account=shop-b`, TOKEN_A, {
      shippingCustomerName: 'Someone Else',
    });
    expect(amend.status).toBe(403);
    expect(await updatesOf(workflowId)).toBe(0);
    // A's token without an account looks among A's orders: there is none by that number.
    expect((await call('GET', path, TOKEN_A)).status).toBe(404);

    // B's own token finds it by number alone (its one account); the operator names the account.
    expect((await call('GET', path, TOKEN_B)).status).toBe(200);
    expect((await call('GET', `${path}?account=shop-b`, OPERATOR)).status).toBe(200);
    expect((await call('GET', path, 'not-a-token-0123456789')).status).toBe(401);
  });

  it("cannot reach the default account's orders", async () => {
    const number = orderNumber('tenant-default');
    expect((await call('POST', '/v1/orders', OPERATOR, await example(number))).status).toBe(201);
    expect((await call('GET', `/v1/orders/${number}?account=default`, TOKEN_A)).status).toBe(403);
    const amend = await call('PATCH', `/v1/orders/${number}?account=default`, TOKEN_A, {
      shippingCustomerName: 'Someone Else',
    });
    expect(amend.status).toBe(403);
    expect(await updatesOf(orderWorkflowId(number))).toBe(0);
    expect((await call('GET', `/v1/orders/${number}`, OPERATOR)).status).toBe(200);
  });

  it("trusts the run's SupplierAccount, not its id", async () => {
    // A run under A's id space that was started for B (by hand, say): A's token may not touch it.
    const number = orderNumber('tenant-id');
    const workflowId = orderWorkflowId(number, 'shop-a');
    idle.push(workflowId);
    await h.client.workflow.start('fulfillOrder', {
      workflowId,
      taskQueue: `${workflowId}-idle`,
      args: [],
      typedSearchAttributes: [{ key: SupplierAccount, value: 'shop-b' }],
    });
    const answer = await call('GET', `/v1/orders/${number}?account=shop-a`, TOKEN_A);
    expect(answer.status).toBe(403);
    expect(answer.body['message']).toContain('not of account "shop-b"');
  });
});

describe('the codec routes', () => {
  it('take CODEC_TOKEN only: an intake token gets 403, an unknown one 401', async () => {
    const encode = (token: string) =>
      fetch(`${gateway.url}/codec/encode`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ payloads: [{ metadata: {}, data: 'aGk=' }] }),
      });
    expect((await encode(TOKEN_A)).status).toBe(403);
    expect((await encode(OPERATOR)).status).toBe(403);
    expect((await encode('not-a-token-0123456789')).status).toBe(401);
    expect((await encode(CODEC_TOKEN)).status).toBe(200);
  });
});
