/**
 * An account whose API key the supplier refuses has no access token, so no supplier call of its
 * orders is sent. The order stops at NEEDS_ATTENTION saying so, with what moves it on — and once
 * the key works again, it goes on by itself, without a resume.
 */
import { randomBytes } from 'node:crypto';
import { expect, it } from 'vitest';
import { toApplicationFailure } from '../../src/supplier/supplierCall.js';
import { Stage, statusQuery } from '../../src/order/contract.js';
import { SupplierClient } from '../../src/supplier/client.js';
import { SupplierCode, SupplierError } from '../../src/supplier/errors.js';
import { eventually } from '../support/eventually.js';
import { startOrder, validOrder, useOrderHarness } from '../support/orders.js';
import { accountStats, newSandboxAccount, sandboxUrl } from '../support/sandbox.js';
import { usOrder } from '../supplier/orderHelpers.js';

/** A key the sandbox does not know until the test creates its account. */
const apiKey = `sbx_later_${randomBytes(8).toString('hex')}`;
const h = useOrderHarness('key-refused', undefined, () => {
  const client = new SupplierClient({ baseUrl: sandboxUrl(), apiKey, tokenCallIntervalMs: 1_000 });
  return { account: { url: sandboxUrl(), apiKey, openId: '', client } };
});

it('a call whose token the supplier refused for the key says the key is refused', () => {
  const f = toApplicationFailure(
    'createOrderV3',
    new SupplierError('getAccessToken', SupplierCode.UserNotFound, 'User not find', 'r1', 200),
  ) as { type: string; details: { noToken?: boolean; keyRefused?: boolean; code?: number }[] };
  expect(f.type).toBe('SupplierRetryable');
  expect(f.details[0]).toMatchObject({
    noToken: true,
    keyRefused: true,
    code: SupplierCode.UserNotFound,
  });
});

it('an order of an account whose key is refused stops naming it, and goes on by itself once the key works', async () => {
  const handle = await startOrder(h, validOrder({ ...usOrder(), fulfillment: { flow: 'B' } }));
  const stopped = await eventually(
    `${handle.workflowId} stopped`,
    () => handle.query(statusQuery),
    (s) => s.stage === Stage.NEEDS_ATTENTION,
    60_000,
  );
  expect(stopped.error).toMatchObject({ code: SupplierCode.UserNotFound });
  expect(stopped.error?.message).toMatch(/^supplier key refused: /);
  expect(stopped.error?.step).toBeTruthy();
  expect(stopped.waitingFor).toMatch(
    /^the account's key works again \(dropflow account reauth .+\); the order goes on by itself — or cancel/,
  );

  // The key works: the account exists at the supplier now. Nobody resumes the order.
  const account = await newSandboxAccount(undefined, undefined, apiKey);
  const paid = await eventually(
    `${handle.workflowId} paid`,
    () => handle.query(statusQuery),
    (s) => s.stage === Stage.AWAITING_SHIPMENT,
    120_000,
  );
  const notes = paid.timeline.map((t) => t.note ?? '');
  expect(notes.some((n) => n.startsWith('the account has an access token again'))).toBe(true);
  expect(notes).not.toContain('resume');
  const stats = await accountStats(account.openId);
  expect(stats.ordersCreated).toBe(1);
  expect(stats.payments).toBe(1);
});
