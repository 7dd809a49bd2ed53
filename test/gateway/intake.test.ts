/**
 * Order intake (`/v1/orders`) and health through a real gateway, against the real dev server with
 * this file's own workers and sandbox account.
 */
import { readFile } from 'node:fs/promises';

import { describe, expect, it } from 'vitest';

import { Stage, type OrderStatus } from '../../src/order/contract.js';
import { eventually } from '../support/eventually.js';
import { useOrderHarness } from '../support/orders.js';
import { orderNumber } from '../supplier/orderHelpers.js';
import { useTestGateway } from './support.js';

const TOKEN = 'intake-test-token-0123456789abcdef';

const h = useOrderHarness('gw-intake');
const gateway = useTestGateway(h, { intakeToken: TOKEN });

async function example(number: string): Promise<Record<string, unknown>> {
  const order = JSON.parse(await readFile('examples/order-flow-b.json', 'utf8')) as Record<
    string,
    unknown
  >;
  return { ...order, orderNumber: number };
}

async function call(
  method: 'GET' | 'POST' | 'PATCH',
  path: string,
  options: { token?: string | null; body?: unknown; raw?: string } = {},
): Promise<{ status: number; body: Record<string, unknown> }> {
  const headers: Record<string, string> = {};
  const token = options.token === undefined ? TOKEN : options.token;
  if (token !== null) headers['authorization'] = `Bearer ${token}`;
  let body: string | undefined;
  if (options.raw !== undefined || options.body !== undefined) {
    headers['content-type'] = 'application/json';
    body = options.raw ?? JSON.stringify(options.body);
  }
  const res = await fetch(`${gateway.url}${path}`, { method, headers, body });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe('POST /v1/orders', () => {
  it('refuses requests without the bearer token, or with another one (401)', async () => {
    const order = await example(orderNumber('intake-auth'));
    expect((await call('POST', '/v1/orders', { token: null, body: order })).status).toBe(401);
    expect((await call('POST', '/v1/orders', { token: 'wrong-token', body: order })).status).toBe(
      401,
    );
    // Checked before the body is read: a bad body without the token is still 401.
    expect((await call('POST', '/v1/orders', { token: null, raw: '{' })).status).toBe(401);
    expect(
      (await call('GET', `/v1/orders/${String(order['orderNumber'])}`, { token: null })).status,
    ).toBe(401);
  });

  it('answers 400 listing the field errors of an invalid order', async () => {
    const order = await example(orderNumber('intake-bad'));
    delete order['shippingCountryCode'];
    (order['products'] as unknown[]).push({ vid: '', quantity: 0 });
    const answer = await call('POST', '/v1/orders', { body: order });
    expect(answer.status).toBe(400);
    const errors = answer.body['errors'] as { field: string; rule: string }[];
    expect(errors).toContainEqual({ field: 'shippingCountryCode', rule: 'is required' });
    expect(errors.map((e) => e.field)).toEqual(
      expect.arrayContaining([expect.stringMatching(/^products\[2\]\./)]),
    );
    const notJson = await call('POST', '/v1/orders', { raw: '{"orderNumber": ' });
    expect(notJson).toEqual({
      status: 400,
      body: { errors: [{ field: '(body)', rule: 'must be JSON' }] },
    });
  });

  it('starts the order once: 201, then 200 for the same body, 409 for a changed one; GET shows its status', async () => {
    const number = orderNumber('intake');
    const order = await example(number);
    const first = await call('POST', '/v1/orders', { body: order });
    expect(first).toEqual({
      status: 201,
      body: { outcome: 'started', workflowId: `order:${number}`, orderNumber: number },
    });
    // The same order with its keys in another order is the same order.
    const reordered = Object.fromEntries(Object.entries(order).reverse());
    const second = await call('POST', '/v1/orders', { body: reordered });
    expect(second).toEqual({
      status: 200,
      body: { outcome: 'existing', workflowId: `order:${number}`, orderNumber: number },
    });
    const changed = await call('POST', '/v1/orders', {
      body: { ...order, shippingZip: '90211' },
    });
    expect(changed.status).toBe(409);
    expect(changed.body).toMatchObject({ error: 'conflict', workflowId: `order:${number}` });

    const status = await call('GET', `/v1/orders/${number}`);
    expect(status.status).toBe(200);
    expect(status.body).toMatchObject({ orderNumber: number, flow: 'B' });
    expect(Object.values(Stage)).toContain(status.body['stage']);
    expect(Array.isArray(status.body['timeline'])).toBe(true);
  });

  it('GET answers 404 for an unknown order', async () => {
    const answer = await call('GET', `/v1/orders/${orderNumber('nobody')}`);
    expect(answer.status).toBe(404);
    expect(answer.body).toEqual({ error: expect.stringMatching(/^no order /) as unknown });
  });
});

describe('PATCH /v1/orders/<orderNumber>', () => {
  /** Polls GET until the order's status satisfies `done`. */
  const statusOf = (number: string, done: (s: OrderStatus) => boolean) =>
    eventually(
      `order ${number}`,
      async () => (await call('GET', `/v1/orders/${number}`)).body as unknown as OrderStatus,
      done,
    );

  it('needs the bearer token (401) and a known order (404)', async () => {
    const changes = { shippingZip: '90211' };
    expect((await call('PATCH', '/v1/orders/ANY-1', { token: null, body: changes })).status).toBe(
      401,
    );
    const unknown = await call('PATCH', `/v1/orders/${orderNumber('nobody')}`, { body: changes });
    expect(unknown).toEqual({
      status: 404,
      body: { error: expect.stringMatching(/^no order /) as unknown },
    });
  });

  it('amends an order stopped before the supplier has it: 400 field errors, 200 the answer, 409 once created', async () => {
    const number = orderNumber('intake-amend');
    const order = { ...(await example(number)), products: [{ vid: 'P9999-V9', quantity: 1 }] };
    expect((await call('POST', '/v1/orders', { body: order })).status).toBe(201);
    await statusOf(number, (s) => s.stage === Stage.NEEDS_ATTENTION && s.waitingFor !== undefined);

    const invalid = await call('PATCH', `/v1/orders/${number}`, {
      body: { products: [{ vid: 'P0001-V1', quantity: 0 }], orderNumber: 'other' },
    });
    expect(invalid.status).toBe(400);
    expect(invalid.body['errors']).toContainEqual({
      field: 'orderNumber',
      rule: 'cannot be amended: it names the order',
    });
    const invalidOrder = await call('PATCH', `/v1/orders/${number}`, {
      body: { products: [{ vid: 'P0001-V1', quantity: 0 }] },
    });
    expect(invalidOrder.status).toBe(400);
    expect((invalidOrder.body['errors'] as { field: string }[]).map((e) => e.field)).toEqual([
      'products[0].quantity',
    ]);

    const amended = await call('PATCH', `/v1/orders/${number}`, {
      body: { products: [{ vid: 'P0001-V1', quantity: 1 }] },
    });
    expect(amended.status).toBe(200);
    expect(amended.body).toMatchObject({
      accepted: true,
      message: expect.stringMatching(/^amended products; going on with createOrderV3/) as unknown,
    });

    await statusOf(number, (s) => s.svcOrderId !== undefined);
    const refused = await call('PATCH', `/v1/orders/${number}`, { body: { shippingZip: '90211' } });
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({
      error: 'refused',
      message: expect.stringMatching(/the supplier has created the order/) as unknown,
    });
  });
});

describe('health', () => {
  it('/healthz and /readyz answer 200 with Temporal up', async () => {
    const health = await fetch(`${gateway.url}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'ok' });
    const ready = await fetch(`${gateway.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ready' });
  });

  it('unknown paths answer a short 404 without details', async () => {
    const res = await fetch(`${gateway.url}/nope`);
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ error: 'not found' });
  });
});
