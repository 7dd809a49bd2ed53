/** Payment from balance (docs/supplier-api.md §7.4). */
import { z } from 'zod';
import { endpoint } from '../endpoint.js';
import { money, optId, optMoney, record, text } from '../fields.js';

/**
 * Pays a parent order: shipmentOrderId from addCartConfirm (shipmentsId), payId from
 * saveGenerateParentOrder. Shape from the vendor's pages (docs/supplier-api.md §13): data is the
 * paid order reference, a number or a string. Failures: 1604000 balance insufficient, 1604001
 * balance payment restricted, 1603101 order pay fail.
 */
export const payBalanceV2 = endpoint({
  name: 'payBalanceV2',
  method: 'POST',
  path: 'shopping/pay/payBalanceV2',
  request: z.object({ shipmentOrderId: text(200), payId: text(200) }),
  response: optId,
});
export type PayBalanceV2Request = z.input<typeof payBalanceV2.request>;

/** The older single-order payment (documented); a parent order of several orders needs V2. */
export const payBalance = endpoint({
  name: 'payBalance',
  method: 'POST',
  path: 'shopping/pay/payBalance',
  request: z.object({ orderId: text(200) }),
  response: optId,
});

/** The balance (docs/supplier-api.md §7.4): USD; the bonus and frozen parts may be null. */
export const Balance = record({
  amount: money,
  noWithdrawalAmount: optMoney,
  freezeAmount: optMoney,
});
export type Balance = z.infer<typeof Balance>;

export const getBalance = endpoint({
  name: 'getBalance',
  method: 'GET',
  path: 'shopping/pay/getBalance',
  transport: 'none',
  request: z.object({}),
  response: Balance,
});

export const paymentEndpoints = { payBalanceV2, payBalance, getBalance } as const;
