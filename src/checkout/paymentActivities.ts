/** Payment activities (docs/supplier-api.md §7.4). */
import type { SupplierClient } from '../supplier/client.js';
import { getBalance, payBalanceV2 } from '../supplier/api/payment.js';
import { supplierCall } from '../supplier/supplierCall.js';

export function paymentActivities(supplier: SupplierClient) {
  return {
    /** Pays the parent order from the balance; 1604000 (insufficient) arrives as a business failure. */
    async payBalanceV2(pay: {
      shipmentOrderId: string;
      payId: string;
    }): Promise<string | undefined> {
      return (await supplierCall(supplier, payBalanceV2, pay)) ?? undefined;
    },

    async getBalance(): Promise<number> {
      return (await supplierCall(supplier, getBalance, {})).amount;
    },
  };
}

declare module '../durable/supplierActivities.js' {
  interface SupplierActivities extends ReturnType<typeof paymentActivities> {}
}
