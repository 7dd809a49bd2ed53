/** INTERCEPTED: the supplier stopped the order; resume, a logistics change, or cancel. */
import { Stage, type ChangeLogisticsInput } from '../contract.js';
import type { Reason } from '../../supplier/interception.js';
import type { Activities } from '../../durable/activityProxies.js';
import type { SupplierFailure } from '../../durable/failures.js';
import type { Order } from '../order.js';
import type { PendingAction } from '../operatorActions.js';
import { supplierStep } from '../../durable/supplierStep.js';

/**
 * Stops at INTERCEPTED until resume (retry the step), a logistics change that clears it, or
 * cancel; with `amend`, also until an amend, which is returned unanswered for the caller to carry
 * out (undefined otherwise).
 */
export async function intercepted(
  o: Order,
  acts: Activities,
  step: string,
  reasons: Reason[],
  options: { amend?: boolean } = {},
): Promise<PendingAction | undefined> {
  o.view.enter(Stage.INTERCEPTED);
  o.view.intercepted(step, reasons);
  const amend = options.amend === true;
  for (;;) {
    const action = await o.waits.at(
      Stage.INTERCEPTED,
      amend
        ? 'amend the order, or resume after fixing the cause at the supplier, changeLogistics, or cancel'
        : 'resume after fixing the cause at the supplier, changeLogistics, or cancel',
      amend ? ['resume', 'changeLogistics', 'amend'] : ['resume', 'changeLogistics'],
    );
    if (!action) continue;
    if (action.kind === 'amend') return action;
    if (action.kind === 'resume') {
      o.actions.answer(action, `retrying ${step}`);
      return undefined;
    }
    const { logisticName } = action.input as ChangeLogisticsInput;
    const refusal = await changeLogistics(o, acts, logisticName);
    if (refusal === undefined) {
      o.view.record({ logisticName });
      o.view.note(`logistics changed to ${logisticName}`);
      o.actions.answer(action, `logistics changed to ${logisticName}; retrying ${step}`);
      return undefined;
    }
    o.view.enter(Stage.INTERCEPTED);
    o.view.intercepted('updateLogistics', refusal);
    o.actions.answer(
      action,
      `the supplier refused ${logisticName}: ${refusal.map((r) => r.message).join('; ')}`,
      false,
    );
  }
}

/**
 * The order's optional logistics, then updateLogistics; returns the refusal reasons, if any.
 * updateLogistics sets a value, so sending it again is harmless.
 */
async function changeLogistics(
  o: Order,
  acts: Activities,
  logisticName: string,
): Promise<Reason[] | undefined> {
  const orderCode = o.view.status.svcOrderId;
  if (orderCode === undefined) return [{ message: 'the order does not exist at the supplier yet' }];
  const refused = (f: SupplierFailure): Reason[] => [
    { ...(f.details.code !== undefined && { code: f.details.code }), message: f.details.message },
  ];
  const options = await supplierStep(o.waits, {
    name: 'getOrderLogisticsInfo',
    send: () => acts.supplier.getOrderLogisticsInfo(orderCode),
    expected: () => true,
  });
  if (!options.ok) return refused(options.failure);
  const option = options.value.find(
    (x) => x.logisticsName.toLowerCase() === logisticName.toLowerCase(),
  );
  if (!option) {
    return [
      {
        message: `not offered for this order; offered: ${options.value.map((x) => x.logisticsName).join(', ')}`,
      },
    ];
  }
  const outcome = await supplierStep(o.waits, {
    name: 'updateLogistics',
    send: () =>
      acts.supplier.updateLogistics({
        orderCode,
        optionId: option.id,
        logisticsName: option.logisticsName,
      }),
    expected: () => true,
  });
  if (!outcome.ok) return refused(outcome.failure);
  return outcome.value.intercepted ? outcome.value.reasons : undefined;
}
