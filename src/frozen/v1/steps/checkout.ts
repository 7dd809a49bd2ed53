/**
 * From the order to a payable parent order: createOrderV3 → addCart → addCartConfirm →
 * saveGenerateParentOrder, stopping at INTERCEPTED with the supplier's reasons wherever the
 * supplier intercepts, and reconciling lost responses by looking the order up.
 */
import { ActivityFailure, sleep } from '@temporalio/workflow';
import type { CreatedOrder } from '../../../order/activities.js';
import type { ChangeLogisticsInput } from '../../../order/contract.js';
import type { Reason, StepOutcome } from '../../../supplier/interception.js';
import type { CreateOrderRequest } from '../../../supplier/api/orders.js';
import { Stage } from '../../common/contracts.js';
import { FailureType, SupplierCode } from '../../common/supplier.js';
import type { Activities } from '../activities.js';
import { backoff, isBusiness, isRetryable, mayHaveActed, supplierFailure } from '../failures.js';
import type { FrozenOrderV1 } from '../order.js';
import { lookUpOrder, MAX_UNANSWERED_IN_A_ROW, reached } from './lookup.js';
import { failureOf, needsAttention, waitAt } from './wait.js';

export interface ParentOrder {
  shipmentOrderId: string;
  payId: string;
  amount: number | undefined;
}

export async function checkout(
  o: FrozenOrderV1,
  acts: Activities,
  body: CreateOrderRequest,
): Promise<ParentOrder> {
  await createOrder(o, acts, body);

  const svcOrderId = o.status.svcOrderId!;
  await cartStep(o, acts, 'addCart', Stage.IN_CART, 'IN_CART', () =>
    acts.supplier.addCart(svcOrderId),
  );

  const confirmed = await cartStep(o, acts, 'addCartConfirm', Stage.CONFIRMED, undefined, () =>
    acts.supplier.addCartConfirm(svcOrderId),
  );
  o.confirmed = true;
  // The activity refuses a confirmation without one (NEEDS_ATTENTION), so it is here.
  const shipmentOrderId = confirmed.shipmentOrderId!;
  o.status.shipmentOrderId = shipmentOrderId;

  const parent = await cartStep(
    o,
    acts,
    'saveGenerateParentOrder',
    Stage.AWAITING_PAYMENT,
    undefined,
    () => acts.supplier.saveGenerateParentOrder(shipmentOrderId),
  );
  // As above: a parent order without a payId stops in the activity.
  const payId = parent.payId!;
  o.status.payId = payId;
  const amount = parent.amount ?? o.status.amounts?.orderAmount;
  return { shipmentOrderId, payId, amount };
}

/** createOrderV3, never twice: a lost response or 1603003 is answered by finding the order. */
async function createOrder(
  o: FrozenOrderV1,
  acts: Activities,
  body: CreateOrderRequest,
): Promise<void> {
  const created = await createOnce(o, acts, body);
  if (created === 'found') return;
  o.status.amounts = created.amounts;
  if (created.shipmentOrderId !== undefined) o.status.shipmentOrderId = created.shipmentOrderId;
  if (created.svcOrderId === undefined) {
    await awaitConnection(o, acts);
  } else {
    o.setSvcOrderId(created.svcOrderId);
    o.enter(Stage.CREATED);
  }
  const reasons = [
    ...created.reasons,
    ...(created.logisticsMiss
      ? [{ message: 'logisticsMiss: the logistics line does not serve this route' }]
      : []),
  ];
  // The supplier files an intercepted order anyway; addCart checks it again after a fix.
  if (reasons.length > 0) await intercepted(o, acts, 'createOrderV3', reasons);
}

/**
 * Sends createOrderV3 until it is answered, each attempt once (no blind activity retries): when
 * the supplier may have acted, or says the order exists, the order is looked up first and adopted.
 */
async function createOnce(
  o: FrozenOrderV1,
  acts: Activities,
  body: CreateOrderRequest,
): Promise<CreatedOrder | 'found'> {
  let unsure = 0;
  let busy = 0;
  for (;;) {
    o.checkCancel();
    try {
      return await acts.supplierOnce.createOrderV3(body);
    } catch (err) {
      const unknownOutcome = mayHaveActed(err);
      if (unknownOutcome || isBusiness(supplierFailure(err), SupplierCode.DuplicateOrder)) {
        const existing = await lookUpOrder(o, acts);
        if (existing) {
          o.setSvcOrderId(existing.svcOrderId);
          if (existing.orderAmount !== undefined) {
            o.status.amounts = { orderAmount: existing.orderAmount };
          }
          o.enter(Stage.CREATED, 'found at the supplier after an unanswered create');
          return 'found';
        }
        if (unknownOutcome && ++unsure <= MAX_UNANSWERED_IN_A_ROW) {
          await sleep(backoff(unsure));
          continue;
        }
      } else if (isRetryable(err) && ++busy <= MAX_UNANSWERED_IN_A_ROW) {
        await sleep(backoff(busy));
        continue;
      }
      unsure = 0;
      busy = 0;
      await needsAttention(o, 'createOrderV3', err);
    }
  }
}

/**
 * Flow C: the supplier filed the order as unconnected (its store product is new to it). Connect
 * the variants the input maps, then find the order; otherwise wait for ORDER_CONNNECTED, or a
 * resume after someone connected it.
 */
async function awaitConnection(o: FrozenOrderV1, acts: Activities): Promise<void> {
  if (o.input.fulfillment.connections.length > 0) {
    await connectStoreProducts(o, acts);
    if (await adoptConnected(o, acts)) return;
  }
  for (;;) {
    const action = await waitAt(
      o,
      Stage.AWAITING_CONNECTION,
      'the store product to be connected (ORDER_CONNNECTED), or resume after connecting it',
      ['resume'],
      { until: () => o.news.connected === true && o.news.svcOrderId !== undefined },
    );
    if (o.news.connected === true && o.news.svcOrderId !== undefined) {
      o.setSvcOrderId(o.news.svcOrderId);
      o.enter(Stage.CREATED, 'store product connected');
      if (action) o.answer(action, 'connected');
      return;
    }
    const connected = await adoptConnected(o, acts);
    if (action) {
      if (connected) o.answer(action, 'connected; continuing');
      else o.answer(action, 'the supplier still files the order as unconnected', false);
    }
    if (connected) return;
  }
}

async function adoptConnected(o: FrozenOrderV1, acts: Activities): Promise<boolean> {
  const found = await lookUpOrder(o, acts);
  if (!found) return false;
  o.setSvcOrderId(found.svcOrderId);
  // The unconnected order was priced at 0; the connected one has the supplier's amount.
  if (found.orderAmount !== undefined) o.status.amounts = { orderAmount: found.orderAmount };
  o.enter(Stage.CREATED, 'store product connected');
  return true;
}

/** Connects the store variants the input maps to catalogue variants (createConnection). */
async function connectStoreProducts(o: FrozenOrderV1, acts: Activities): Promise<void> {
  const logistics = o.status.logisticName ?? '';
  for (const c of o.input.fulfillment.connections) {
    for (;;) {
      try {
        await acts.supplier.createConnection({ ...c, logistics });
        o.note(`connected store variant ${c.storeVariantId} to ${c.svcVariantId}`);
        break;
      } catch (err) {
        await needsAttention(o, 'createConnection', err);
      }
    }
  }
}

/**
 * One cart step: run it; if the supplier intercepts, stop at INTERCEPTED and run it again after
 * resume or a logistics change. A lost response is checked against the order's status.
 */
async function cartStep<T extends StepOutcome>(
  o: FrozenOrderV1,
  acts: Activities,
  step: string,
  stageAfter: Stage,
  doneAtStatus: string | undefined,
  run: () => Promise<T>,
): Promise<T> {
  let unanswered = 0;
  for (;;) {
    o.checkCancel();
    try {
      const outcome = await run();
      if (!outcome.intercepted) {
        o.enter(stageAfter);
        return outcome;
      }
      await intercepted(o, acts, step, outcome.reasons);
    } catch (err) {
      const f = supplierFailure(err);
      if (f?.type === FailureType.Ambiguous && ++unanswered <= MAX_UNANSWERED_IN_A_ROW) {
        // The cart steps are safe to repeat; a step whose result we don't need is done when the
        // supplier's status shows it.
        const now = await lookUpOrder(o, acts);
        if (doneAtStatus !== undefined && reached(now?.orderStatus, doneAtStatus)) {
          o.enter(stageAfter, `${step} found done after an unanswered call`);
          return { intercepted: false, reasons: [] } as unknown as T;
        }
        continue;
      }
      unanswered = 0;
      await needsAttention(o, step, err);
    }
  }
}

/** Stops at INTERCEPTED until resume (retry the step), a logistics change that clears it, or cancel. */
export async function intercepted(
  o: FrozenOrderV1,
  acts: Activities,
  step: string,
  reasons: Reason[],
): Promise<void> {
  o.status.interception = { step, reasons };
  for (;;) {
    const action = await waitAt(
      o,
      Stage.INTERCEPTED,
      'resume after fixing the cause at the supplier, changeLogistics, or cancel',
      ['resume', 'changeLogistics'],
    );
    if (!action) continue;
    if (action.kind === 'resume') {
      o.answer(action, `retrying ${step}`);
      return;
    }
    const { logisticName } = action.input as ChangeLogisticsInput;
    const refusal = await changeLogistics(o, acts, logisticName);
    if (refusal === undefined) {
      o.status.logisticName = logisticName;
      o.note(`logistics changed to ${logisticName}`);
      o.answer(action, `logistics changed to ${logisticName}; retrying ${step}`);
      return;
    }
    o.status.interception = { step: 'updateLogistics', reasons: refusal };
    o.answer(
      action,
      `the supplier refused ${logisticName}: ${refusal.map((r) => r.message).join('; ')}`,
      false,
    );
  }
}

/** The order's optional logistics, then updateLogistics; returns the refusal reasons, if any. */
async function changeLogistics(
  o: FrozenOrderV1,
  acts: Activities,
  logisticName: string,
): Promise<Reason[] | undefined> {
  const orderCode = o.status.svcOrderId;
  if (orderCode === undefined) return [{ message: 'the order does not exist at the supplier yet' }];
  try {
    const options = await acts.supplier.getOrderLogisticsInfo(orderCode);
    const option = options.find(
      (x) => x.logisticsName.toLowerCase() === logisticName.toLowerCase(),
    );
    if (!option) {
      return [
        {
          message: `not offered for this order; offered: ${options.map((x) => x.logisticsName).join(', ')}`,
        },
      ];
    }
    const outcome = await acts.supplier.updateLogistics({
      orderCode,
      optionId: option.id,
      logisticsName: option.logisticsName,
    });
    return outcome.intercepted ? outcome.reasons : undefined;
  } catch (err) {
    if (!(err instanceof ActivityFailure)) throw err;
    const failure = failureOf('updateLogistics', err);
    return [
      { ...(failure.code !== undefined && { code: failure.code }), message: failure.message },
    ];
  }
}
