/** The chaos run's parcel counters: a split parcel no order follows, an order delivered too early. */
import { describe, expect, it } from 'vitest';
import { ParcelStage, Stage, type OrderStatus } from '../../src/order/contract.js';
import { parcelFindings } from '../../tools/src/chaos/parcels.js';
import type { SandboxOrder } from '../../tools/src/sandbox/state.js';

const at = (iso: string) => Date.parse(iso);

function child(svcOrderId: string, status: string, deliveredAt?: string): SandboxOrder {
  return {
    svcOrderId,
    orderNumber: 'N-1',
    splitFrom: 'SO1',
    status,
    ...(deliveredAt !== undefined && { deliveredAt: at(deliveredAt) }),
  } as SandboxOrder;
}

function status(parcels: string[], deliveredAt?: string): OrderStatus {
  return {
    orderNumber: 'N-1',
    flow: 'B',
    stage: deliveredAt ? Stage.COMPLETED : Stage.SHIPPED,
    parcels: parcels.map((code) => ({
      code,
      lines: [],
      stage: ParcelStage.DELIVERED,
      timeline: [],
    })),
    timeline: deliveredAt ? [{ stage: Stage.DELIVERED, at: deliveredAt }] : [],
  };
}

describe('parcel counters', () => {
  it('finds nothing when every parcel is followed and the order was delivered after the last', () => {
    const kids = [
      child('SO1-1', 'DELIVERED', '2026-11-27T10:00:00Z'),
      child('SO1-2', 'DELIVERED', '2026-11-27T11:00:00Z'),
    ];
    expect(
      parcelFindings('N-1', status(['SO1', 'SO1-1', 'SO1-2'], '2026-11-27T11:00:05Z'), kids),
    ).toEqual([]);
  });

  it('counts a parcel no order follows, and an order delivered before its last parcel', () => {
    const kids = [child('SO1-1', 'DELIVERED', '2026-11-27T10:00:00Z'), child('SO1-2', 'SHIPPED')];
    const found = parcelFindings('N-1', status(['SO1', 'SO1-1'], '2026-11-27T10:00:05Z'), kids);
    expect(found.map((f) => f.counter)).toEqual(['parcelsLost', 'deliveredTooEarly']);
    expect(found[0]!.detail).toContain('SO1-2');
  });
});
