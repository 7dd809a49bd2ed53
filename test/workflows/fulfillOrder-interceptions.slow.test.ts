/**
 * Interceptions stop an order at INTERCEPTED with the supplier's reasons, visible to operators by
 * search attribute; resume after a fix, or a logistics change, takes it onward.
 */
import { describe, expect, it } from 'vitest';
import { changeLogisticsUpdate, resumeUpdate, Stage } from '../../src/order/contract.js';
import {
  reachStage,
  startOrder,
  sweepOnce,
  validOrder,
  visibleIn,
  useOrderHarness,
} from '../support/orders.js';
import { advance, editOrder, usOrder } from '../supplier/orderHelpers.js';

const h = useOrderHarness('intercept');

describe('interceptions', () => {
  it('a US zip ABCDE stops at INTERCEPTED with the reason; after the fix, resume takes it to COMPLETED', async () => {
    const input = validOrder({ ...usOrder({ shippingZip: 'ABCDE' }), fulfillment: { flow: 'B' } });
    const handle = await startOrder(h, input);
    const stopped = await reachStage(handle, Stage.INTERCEPTED);
    expect(stopped.interception?.step).toBe('createOrderV3');
    expect(stopped.interception?.reasons).toHaveLength(1);
    expect(stopped.interception?.reasons[0]?.code).toBe(100102);
    expect(stopped.interception?.reasons[0]?.message).toMatch(/zip/i);
    await visibleIn(h, input.order.orderNumber, Stage.INTERCEPTED);
    // The Temporal UI's Current Details start with the stage, the reason and what moves it on.
    const details = await handle.query<{ currentDetails?: string }>('__temporal_workflow_metadata');
    expect(details.currentDetails?.split('\n')[0]).toMatch(
      /^\*\*INTERCEPTED\*\* — intercepted at createOrderV3: 100102 .*zip.* — amend the order, or resume after fixing the cause at the supplier, changeLogistics, or cancel$/i,
    );

    // Resuming without a fix: the supplier intercepts again, at addCart, with the same reason.
    await handle.executeUpdate(resumeUpdate, { args: [{ by: 'test' }] });
    const again = await reachStage(
      handle,
      Stage.INTERCEPTED,
      (s) => s.interception?.step === 'addCart',
    );
    expect(again.interception?.reasons[0]?.code).toBe(100102);

    expect((await editOrder(stopped.svcOrderId!, { shippingZip: '90210' })).status).toBe(200);
    const resumed = await handle.executeUpdate(resumeUpdate, { args: [{ by: 'test' }] });
    expect(resumed.accepted).toBe(true);
    const waiting = await reachStage(handle, Stage.AWAITING_SHIPMENT);
    // The stop is over: its reason, its wait and the operators' flag are gone.
    expect(waiting.interception).toBeUndefined();
    expect(waiting.waitingFor).toBeUndefined();
    await visibleIn(h, input.order.orderNumber, Stage.AWAITING_SHIPMENT, 'NeedsAttention = false');

    await advance(waiting.svcOrderId!, 'DELIVERED');
    await sweepOnce(h);
    expect(((await handle.result()) as { stage: string }).stage).toBe(Stage.COMPLETED);
  });

  it('a logistics line that does not serve the route is changed by changeLogistics', async () => {
    const input = validOrder({
      ...usOrder({ logisticName: 'DHL Paket' }),
      fulfillment: { flow: 'B' },
    });
    const handle = await startOrder(h, input);
    const stopped = await reachStage(handle, Stage.INTERCEPTED);
    expect(stopped.interception?.reasons.some((r) => /logistics/i.test(r.message))).toBe(true);

    const refused = await handle.executeUpdate(changeLogisticsUpdate, {
      args: [{ logisticName: 'USPS Ground' }],
    });
    expect(refused.accepted).toBe(false);
    expect(refused.stage).toBe(Stage.INTERCEPTED);

    const changed = await handle.executeUpdate(changeLogisticsUpdate, {
      args: [{ logisticName: 'SvcPacket Express' }],
    });
    expect(changed.accepted).toBe(true);
    const waiting = await reachStage(handle, Stage.AWAITING_SHIPMENT);
    expect(waiting.logisticName).toBe('SvcPacket Express');
  });

  it('an operator action that does not fit the stage is refused with the reason', async () => {
    const input = validOrder({ ...usOrder(), fulfillment: { flow: 'B' } });
    const handle = await startOrder(h, input);
    await reachStage(handle, Stage.AWAITING_SHIPMENT);
    const refusal = await handle.executeUpdate(resumeUpdate, { args: [{}] }).then(
      () => undefined,
      (e: unknown) => e as { cause?: { message?: string } },
    );
    expect(refusal?.cause?.message).toMatch(/resume refused: it is not waiting for a person/);
  });
});
