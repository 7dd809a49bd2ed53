/**
 * `fulfillOrder`: one order, from the store's hand-over to COMPLETED, through the supplier's
 * flow. Each step lives in ./steps and calls the supplier through ../durable/supplierStep.ts;
 * this file wires handlers and the sequence. Orders started before the reconciling steps run
 * ../frozen/v1 (src/workflows.ts sends them there); orders started before batched checkout check
 * out alone (./steps/checkout.ts, ./steps/payment.ts).
 */
import {
  allHandlersFinished,
  ApplicationFailure,
  condition,
  setHandler,
} from '@temporalio/workflow';
import {
  AMEND_INVALID,
  amendUpdate,
  approvePaymentUpdate,
  cancelUpdate,
  changeLogisticsUpdate,
  FINAL_STAGES,
  provideWaybillUpdate,
  resumeUpdate,
  statusQuery,
  supplierEventSignal,
  supplierStatusSignal,
  type AmendInput,
  type CancelInput,
  type ChangeLogisticsInput,
  type OrderStatus,
  type WaybillInput,
} from './contract.js';
import { amendOrder, usesPlatformLogistics, type OrderInput } from './orderInput.js';
import { activities } from '../durable/activityProxies.js';
import { checkoutOutcomeSignal } from '../checkout/contract.js';
import { Order } from './order.js';
import { CancelRequested } from './operatorActions.js';
import { checkoutAndPay } from './steps/batchedCheckout.js';
import { cancelOrder } from './steps/cancel.js';
import { checkout } from './steps/checkout.js';
import { pay } from './steps/payment.js';
import { planOrder } from './steps/plan.js';
import { followDelivery, uploadWaybill } from './steps/shipment.js';
import { keepDeadlines } from './slaWatch.js';
import { Patch } from '../durable/versions.js';
import { storeOrderSignal, storeSkuMappedSignal } from '../store/contract.js';
import { storeIntake } from './steps/storeIntake.js';
import { has } from '../durable/patches.js';

export async function fulfillOrder(input: OrderInput): Promise<OrderStatus> {
  const batched = has(Patch.BatchedCheckout);
  const o = new Order(input, { lean: batched });
  const acts = activities();
  registerHandlers(o);
  if (has(Patch.SlaTimers)) keepDeadlines(o);
  // Only store orders ask: no order started before store connections has a store.
  const fromStore = input.store !== undefined && has(Patch.StoreOrders);

  try {
    if (fromStore) await storeIntake(o, acts);
    const body = await planOrder(o, acts);
    if (batched) {
      await checkoutAndPay(o, acts, body);
    } else {
      const parent = await checkout(o, acts, body);
      if (parent !== undefined) await pay(o, acts, parent);
    }
    if (usesPlatformLogistics(input.fulfillment)) await uploadWaybill(o, acts);
    await followDelivery(o, acts);
  } catch (err) {
    if (!(err instanceof CancelRequested)) {
      // Every supplier call is caught by its step; anything else is a bug. A plain Error fails
      // the workflow task, not the order: Temporal retries it until a fixed worker runs it.
      throw new Error(`unexpected failure in fulfillOrder: ${String(err)}`);
    }
    await cancelOrder(o, acts, err.reason);
  }
  o.deadlines.ended();
  // Actions that arrived as the order finished are answered, so every Update completes.
  o.actions.refuseWaiting(`the order is ${o.view.stage}: nothing left to act on`);
  await o.notices.allDelivered();
  await condition(allHandlersFinished);
  o.view.flush();
  return o.view.status;
}

function refuse(o: Order, action: string, why: string): never {
  throw new Error(
    `${action} refused: ${why} (order ${o.view.status.orderNumber} is ${o.view.stage})`,
  );
}

function registerHandlers(o: Order): void {
  setHandler(statusQuery, () => o.view.status);
  setHandler(supplierEventSignal, (news) => void o.supplier.hear(news));
  setHandler(supplierStatusSignal, (news) => void o.supplier.hear(news));
  setHandler(checkoutOutcomeSignal, (outcome) => {
    o.money.heard(outcome);
  });
  setHandler(storeOrderSignal, (news) => {
    o.storeSide.heard(news);
  });
  setHandler(storeSkuMappedSignal, (news) => {
    if (news.connection === o.current.input.store?.connection) o.storeSide.skuMapped();
  });

  setHandler(resumeUpdate, (input) => o.actions.request('resume', input), {
    validator: (_input) => {
      if (!o.actions.accepting.has('resume')) refuse(o, 'resume', 'it is not waiting for a person');
    },
  });
  setHandler(changeLogisticsUpdate, (input) => o.actions.request('changeLogistics', input), {
    validator: (input: ChangeLogisticsInput) => {
      if (!o.actions.accepting.has('changeLogistics'))
        refuse(o, 'changeLogistics', 'only an intercepted order changes logistics');
      if (o.money.confirmed)
        refuse(o, 'changeLogistics', 'the cart is confirmed (the supplier answers 8002)');
      if (typeof input.logisticName !== 'string' || input.logisticName.trim() === '') {
        refuse(o, 'changeLogistics', 'logisticName is required');
      }
    },
  });
  setHandler(approvePaymentUpdate, (input) => o.actions.request('approvePayment', input), {
    validator: (_input) => {
      if (!o.actions.accepting.has('approvePayment'))
        refuse(o, 'approvePayment', 'no payment waits for approval');
    },
  });
  setHandler(provideWaybillUpdate, (input) => o.actions.request('provideWaybill', input), {
    validator: (input: WaybillInput) => {
      if (!o.actions.accepting.has('provideWaybill'))
        refuse(o, 'provideWaybill', 'no waybill is awaited');
      for (const field of ['carrier', 'trackNumber', 'filename', 'contentBase64'] as const) {
        if (typeof input[field] !== 'string' || input[field] === '') {
          refuse(o, 'provideWaybill', `${field} is required`);
        }
      }
    },
  });
  setHandler(cancelUpdate, (input) => o.actions.request('cancel', input), {
    validator: (input: CancelInput) => {
      if (FINAL_STAGES.includes(o.view.stage)) refuse(o, 'cancel', 'the order is finished');
      const shared = o.money.shipmentRefusal;
      if (shared !== undefined) refuse(o, 'cancel', shared);
      if (!o.money.cancellable) {
        refuse(
          o,
          'cancel',
          'the order is paid or its payment is under way; open a dispute instead',
        );
      }
      if (o.actions.cancelUnderWay) refuse(o, 'cancel', 'a cancel is already under way');
      if (typeof input.reason !== 'string' || input.reason.trim() === '')
        refuse(o, 'cancel', 'a reason is required');
    },
  });
  setHandler(amendUpdate, (input) => o.actions.request('amend', input), {
    validator: (input: AmendInput) => {
      // The changes first: a refused amend names the field and the rule whatever the stage.
      const amended = amendOrder(o.current.input, (input as AmendInput | undefined)?.order);
      if (!amended.ok) {
        throw ApplicationFailure.create({
          type: AMEND_INVALID,
          message: `amend refused: ${amended.issues.map((i) => `${i.field}: ${i.rule}`).join('; ')}`,
          details: [amended.issues],
          nonRetryable: true,
        });
      }
      if (!o.actions.accepting.has('amend')) refuse(o, 'amend', o.current.refusal());
    },
  });
}
