/**
 * The account's session stays inside Temporal's limits while it has no token: orders keep asking
 * it for one (a `token` update each), and it continues as new at its update budget even while it
 * waits minutes for getAccessToken's spacing. Before, the chaos run under lowered limits saw a
 * session terminated by the server ("history count exceeds limit") in such a wait.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';

import { tokenUpdate, type SupplierSessionInput } from '../../src/session/contract.js';
import { eventually } from '../support/eventually.js';
import { orderHarness, type OrderHarness } from '../support/orders.js';

let h: OrderHarness;
beforeAll(async () => {
  h = await orderHarness('session-drain');
});
afterAll(() => h.close());

/** The session's updates per run here, more asks than that, and as many at once as Temporal lets in. */
const PER_RUN = 20;
const ASKS = 30;
const AT_ONCE = 10;

it('a session without a token, asked by many processes, continues as new while it waits for getAccessToken', async () => {
  const input: SupplierSessionInput = {
    // getAccessToken was just sent: the next one may go only in 10 minutes.
    lastObtainSentAt: Date.now(),
    lastObtainedAt: Date.now(),
    obtainIntervalMs: 10 * 60_000,
    updatesPerRun: PER_RUN,
  };
  const session = await h.client.workflow.start('supplierSession', {
    workflowId: `session-drain-${process.pid}-${Date.now().toString(36)}`,
    taskQueue: h.queues.orders,
    args: [input],
  });
  const first = (await session.describe()).runId;
  for (let i = 0; i < ASKS; i += AT_ONCE) {
    await Promise.allSettled(
      Array.from({ length: Math.min(AT_ONCE, ASKS - i) }, () =>
        session.executeUpdate(tokenUpdate, { args: [{}] }),
      ),
    );
  }
  const next = await eventually(
    'a new run of the session',
    () => session.describe(),
    (d) => d.runId !== first,
    60_000,
  );
  expect(next.status.name).toBe('RUNNING');
  await h.client.workflow.getHandle(session.workflowId).terminate('the test is over');
}, 240_000);
