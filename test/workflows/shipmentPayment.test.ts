/**
 * The shipment payment's reading of the supplier's refusals (src/durable/shipmentPayment.ts), for
 * an order paying alone and a checkout batch alike. The payments themselves are tested against a
 * real server in reconcile-payment.test.ts and checkout-batch.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { refusalMeans } from '../../src/durable/shipmentPayment.js';
import type { SupplierFailure } from '../../src/durable/failures.js';
import { FailureType } from '../../src/supplier/failureDetails.js';
import { SupplierCode } from '../../src/supplier/errors.js';

const refusal = (code: number): SupplierFailure => ({
  type: FailureType.Business,
  details: { endpoint: 'payBalanceV2', code, message: `supplier code ${code}` },
});

describe('a refused payment', () => {
  it('waits for funds when the balance is short and nothing is in doubt', () => {
    expect(refusalMeans(refusal(SupplierCode.InsufficientBalance), false)).toBe('balanceShort');
  });

  it('is looked up when the balance is short after a payment in doubt (it may be its doing)', () => {
    expect(refusalMeans(refusal(SupplierCode.InsufficientBalance), true)).toBe('inDoubt');
  });

  it('is looked up when the supplier says the payment failed (it may be paid already)', () => {
    expect(refusalMeans(refusal(SupplierCode.PayFailed), false)).toBe('inDoubt');
    expect(refusalMeans(refusal(SupplierCode.PayFailed), true)).toBe('inDoubt');
  });

  it('is left to the reconciling step otherwise (a person sees it)', () => {
    expect(refusalMeans(refusal(SupplierCode.BalancePaymentRestricted), false)).toBe('other');
  });
});
