/**
 * addCartConfirm's success without a shipment as workflow code reads it (src/durable/failures.ts):
 * by its own failure type, and in histories recorded before that type by the Fatal failure's
 * message. The path itself runs against a real server in checkout-bounds.slow.test.ts.
 */
import { ActivityFailure, type ApplicationFailure, RetryState } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import {
  confirmedWithoutShipment,
  isTransient,
  mayHaveActed,
  supplierFailure,
} from '../../src/durable/failures.js';
import {
  confirmedWithoutShipmentFailure,
  unusableAnswer,
} from '../../src/supplier/supplierCall.js';
import { CONFIRMED_WITHOUT_SHIPMENT } from '../../src/supplier/failureDetails.js';

const failed = (cause: ApplicationFailure) =>
  new ActivityFailure(
    'Activity task failed',
    'addCartConfirm',
    '12',
    RetryState.NON_RETRYABLE_FAILURE,
    undefined,
    cause,
  );

describe('a confirmation the supplier answered without a shipment', () => {
  it('is known by its type, and is otherwise as sure as any refusal: nothing to retry', () => {
    const err = failed(confirmedWithoutShipmentFailure('req-1'));
    expect(confirmedWithoutShipment(supplierFailure(err))).toBe(true);
    expect(mayHaveActed(err)).toBe(false);
    expect(isTransient(err)).toBe(false);
  });

  it('is still known in histories recorded before its type, by the Fatal failure of then', () => {
    const before = failed(unusableAnswer('addCartConfirm', CONFIRMED_WITHOUT_SHIPMENT, 'req-1'));
    expect(confirmedWithoutShipment(supplierFailure(before))).toBe(true);
  });

  it('is not any other unusable answer', () => {
    const other = failed(
      unusableAnswer('saveGenerateParentOrder', 'a parent order without a payId'),
    );
    expect(confirmedWithoutShipment(supplierFailure(other))).toBe(false);
  });
});
