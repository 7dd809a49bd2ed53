/**
 * `fulfillOrder` (architecture §3): one order, from the store's hand-over to COMPLETED, through
 * the supplier's flow. Each step lives in ./steps; this file wires handlers and the sequence.
 */
import { allHandlersFinished, condition, setHandler } from '@temporalio/workflow';
import {
  approvePaymentUpdate,
  cancelUpdate,
  changeLogisticsUpdate,
  FINAL_STAGES,
  provideWaybillUpdate,
  resumeUpdate,
  Stage,
  statusQuery,
  supplierEventSignal,
  supplierStatusSignal,
  type CancelInput,
  type ChangeLogisticsInput,
  type OrderStatus,
  type WaybillInput,
} from '../client/definitions.js';
import type { OrderInput } from '../client/orderInput.js';
import { activities } from './activities.js';
import { CancelRequested, Order } from './order.js';
import { cancelOrder } from './steps/cancel.js';
import { checkout } from './steps/checkout.js';
import { pay } from './steps/payment.js';
import { planOrder } from './steps/plan.js';
import { followDelivery, isPlatformLogistics, uploadWaybill } from './steps/shipment.js';

export async function fulfillOrder(input: OrderInput): Promise<OrderStatus> {
  const o = new Order(input);
  const acts = activities();
  registerHandlers(o);

  try {
    const body = await planOrder(o, acts);
    const parent = await checkout(o, acts, body);
    await pay(o, acts, parent);
    if (isPlatformLogistics(o)) await uploadWaybill(o, acts);
    await followDelivery(o);
  } catch (err) {
    if (!(err instanceof CancelRequested)) throw err;
    await cancelOrder(o, acts, err.reason);
  }
  await condition(allHandlersFinished);
  return o.status;
}

const RESUMABLE: readonly Stage[] = [
  Stage.INTERCEPTED,
  Stage.AWAITING_FUNDS,
  Stage.AWAITING_CONNECTION,
  Stage.NEEDS_ATTENTION,
];

function refuse(o: Order, action: string, why: string): never {
  throw new Error(`${action} refused: ${why} (order ${o.status.orderNumber} is ${o.stage})`);
}

function registerHandlers(o: Order): void {
  setHandler(statusQuery, () => o.status);
  setHandler(supplierEventSignal, (news) => void o.hear(news));
  setHandler(supplierStatusSignal, (news) => void o.hear(news));

  setHandler(resumeUpdate, (input) => o.request('resume', input), {
    validator: (_input) => {
      if (!RESUMABLE.includes(o.stage)) refuse(o, 'resume', 'it is not waiting for a person');
    },
  });
  setHandler(changeLogisticsUpdate, (input) => o.request('changeLogistics', input), {
    validator: (input: ChangeLogisticsInput) => {
      if (o.stage !== Stage.INTERCEPTED)
        refuse(o, 'changeLogistics', 'only an intercepted order changes logistics');
      if (o.confirmed)
        refuse(o, 'changeLogistics', 'the cart is confirmed (the supplier answers 8002)');
      if (typeof input.logisticName !== 'string' || input.logisticName.trim() === '') {
        refuse(o, 'changeLogistics', 'logisticName is required');
      }
    },
  });
  setHandler(approvePaymentUpdate, (input) => o.request('approvePayment', input), {
    validator: (_input) => {
      if (!o.awaitingApproval) refuse(o, 'approvePayment', 'no payment waits for approval');
    },
  });
  setHandler(provideWaybillUpdate, (input) => o.request('provideWaybill', input), {
    validator: (input: WaybillInput) => {
      if (o.stage !== Stage.AWAITING_WAYBILL) refuse(o, 'provideWaybill', 'no waybill is awaited');
      for (const field of ['carrier', 'trackNumber', 'filename', 'contentBase64'] as const) {
        if (typeof input[field] !== 'string' || input[field] === '') {
          refuse(o, 'provideWaybill', `${field} is required`);
        }
      }
    },
  });
  setHandler(cancelUpdate, (input) => o.request('cancel', input), {
    validator: (input: CancelInput) => {
      if (FINAL_STAGES.includes(o.stage)) refuse(o, 'cancel', 'the order is finished');
      if (o.paid) refuse(o, 'cancel', 'the order is paid; open a dispute instead');
      if (typeof input.reason !== 'string' || input.reason.trim() === '')
        refuse(o, 'cancel', 'a reason is required');
    },
  });
}
