/**
 * Trust, then verify (docs/architecture.md §10 "Supplier news"), for an order whose payment answer
 * was lost (forgedNews.test.ts has the other forged pushes): a correctly signed SHIPPED is no
 * proof of payment. The order waits at NEEDS_ATTENTION until the supplier shows the payment, and
 * is paid once. It follows the order through a lost answer, look-ups that fail and a recovery,
 * hence the slow suite. Real dev server, real sandbox, real gateway.
 */
import { describe, expect, it } from 'vitest';

import { Stage, statusQuery } from '../../src/order/contract.js';
import { startOrder, useOrderHarness, validOrder } from '../support/orders.js';
import { accountStats, injectFault } from '../support/sandbox.js';
import { eventually } from '../support/eventually.js';
import { atStage, lookUpsKeepFailing, recoverAndResume } from '../workflows/reconcile-support.js';
import { usOrder } from '../supplier/orderHelpers.js';
import { messageId, orderMessage, pushSigned, useTestGateway } from '../gateway/support.js';
import { newsSignals } from './support.js';

const h = useOrderHarness('sec-news-paid', 10_000);
const gateway = useTestGateway(h);
/** The supplier's view is believed once it had this long to catch up (look-ups over 2 s). */
const LAG_SECONDS = 2;

describe('a payment whose answer was lost', () => {
  it('a forged SHIPPED is no proof of payment: the order says paid only once the supplier has the payment', async () => {
    const { openId, client } = h.account;
    const before = await accountStats(openId);
    // The payment never reaches the supplier, and its look-up fails until the test clears it.
    await injectFault({ openId, path: 'shopping/pay/payBalanceV2', kind: 'reset' });
    await lookUpsKeepFailing(openId);
    const input = validOrder({
      ...usOrder(),
      fulfillment: { flow: 'B', supplierLagSeconds: LAG_SECONDS },
    });
    const handle = await startOrder(h, input);
    const stopped = await atStage(
      handle,
      Stage.NEEDS_ATTENTION,
      (s) => s.outcomeUnknown?.step === 'payBalanceV2',
    );

    const answer = await pushSigned(
      gateway,
      openId,
      orderMessage(messageId('forged-paid'), {
        orderNumber: input.order.orderNumber,
        svcOrderId: stopped.svcOrderId,
        orderStatus: 'SHIPPED',
        trackNumber: 'FORGED-PAID-1',
      }),
    );
    expect(answer).toMatchObject({ status: 200, body: { outcome: 'delivered' } });
    await eventually(
      'the push in the history',
      () => newsSignals(handle),
      (n) => n === 1,
    );
    await recoverAndResume(h, handle);

    // Paid, the order follows its parcel (the push's SHIPPED may show: it informs).
    await eventually(
      `${handle.workflowId} past its payment`,
      () => handle.query(statusQuery),
      (s) => s.stage === Stage.AWAITING_SHIPMENT || s.stage === Stage.SHIPPED,
      100_000,
    );
    const [atSupplier] = await client.api.getOrderDetailBatch({
      orderIds: [stopped.svcOrderId!],
    });
    expect(atSupplier?.orderStatus).toBe('UNSHIPPED');
    expect((await accountStats(openId)).payments - before.payments).toBe(1);
  });
});
