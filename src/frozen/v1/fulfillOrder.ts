/**
 * `fulfillOrder`, as it was before the reconciling steps: one order, from the store's hand-over to COMPLETED, through
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
  statusQuery,
  supplierEventSignal,
  supplierStatusSignal,
  usesPlatformLogistics,
} from '../common/contracts.js';
import type {
  CancelInput,
  ChangeLogisticsInput,
  OrderStatus,
  WaybillInput,
} from '../../order/contract.js';
import type { OrderInput } from '../../order/orderInput.js';
import { activities } from './activities.js';
import { CancelRequested, FrozenOrderV1 } from './order.js';
import { cancelOrder } from './steps/cancel.js';
import { checkout } from './steps/checkout.js';
import { pay } from './steps/payment.js';
import { planOrder } from './steps/plan.js';
import { followDelivery, uploadWaybill } from './steps/shipment.js';

export async function fulfillOrderV1(input: OrderInput): Promise<OrderStatus> {
  const o = new FrozenOrderV1(input);
  const acts = activities();
  registerHandlers(o);

  try {
    const body = await planOrder(o, acts);
    const parent = await checkout(o, acts, body);
    await pay(o, acts, parent);
    if (usesPlatformLogistics(input.fulfillment)) await uploadWaybill(o, acts);
    await followDelivery(o);
  } catch (err) {
    if (!(err instanceof CancelRequested)) throw err;
    await cancelOrder(o, acts, err.reason);
  }
  // Actions that arrived as the order finished are answered, so every Update completes.
  o.refuseWaiting(`the order is ${o.stage}: nothing left to act on`);
  await condition(allHandlersFinished);
  return o.status;
}

function refuse(o: FrozenOrderV1, action: string, why: string): never {
  throw new Error(`${action} refused: ${why} (order ${o.status.orderNumber} is ${o.stage})`);
}

function registerHandlers(o: FrozenOrderV1): void {
  setHandler(statusQuery, () => o.status);
  setHandler(supplierEventSignal, (news) => void o.hear(news));
  setHandler(supplierStatusSignal, (news) => void o.hear(news));

  setHandler(resumeUpdate, (input) => o.request('resume', input), {
    validator: (_input) => {
      if (!o.accepting.has('resume')) refuse(o, 'resume', 'it is not waiting for a person');
    },
  });
  setHandler(changeLogisticsUpdate, (input) => o.request('changeLogistics', input), {
    validator: (input: ChangeLogisticsInput) => {
      if (!o.accepting.has('changeLogistics'))
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
      if (!o.accepting.has('approvePayment'))
        refuse(o, 'approvePayment', 'no payment waits for approval');
    },
  });
  setHandler(provideWaybillUpdate, (input) => o.request('provideWaybill', input), {
    validator: (input: WaybillInput) => {
      if (!o.accepting.has('provideWaybill')) refuse(o, 'provideWaybill', 'no waybill is awaited');
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
      if (!o.cancellable) {
        refuse(
          o,
          'cancel',
          'the order is paid or its payment is under way; open a dispute instead',
        );
      }
      if (o.hasAction(['cancel'])) refuse(o, 'cancel', 'a cancel is already under way');
      if (typeof input.reason !== 'string' || input.reason.trim() === '')
        refuse(o, 'cancel', 'a reason is required');
    },
  });
}
