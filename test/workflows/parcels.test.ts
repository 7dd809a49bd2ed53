/**
 * The parcels' state and the split verdict, as pure functions: a split is believed only when the
 * supplier's look-up shows the new codes and their lines add up to the parcel they came from; the
 * order is delivered only once every parcel is delivered or cancelled; the sweeper asks a split
 * order's parcels one by one and never tells an order another supplier order's status as its own.
 */
import { describe, expect, it } from 'vitest';
import { ParcelStage, Stage } from '../../src/order/contract.js';
import { Parcels, parcelsGlance, sameLines } from '../../src/order/parcels.js';
import { judgeSplit } from '../../src/order/splitCheck.js';
import type { OrderSnapshot } from '../../src/order/lookupActivities.js';
import { byParcel } from '../../src/tracking/trackingMatch.js';
import { newsFor } from '../../src/tracking/trackingChanges.js';

const PARENT = {
  code: 'SO1',
  lines: [
    { vid: 'V1', quantity: 2, storeLineId: 'a' },
    { vid: 'V2', quantity: 1, storeLineId: 'b' },
  ],
};

const snap = (
  svcOrderId: string,
  lines: [string, number][],
  orderStatus = 'UNSHIPPED',
): OrderSnapshot => ({
  svcOrderId,
  orderNumber: 'N-1',
  orderStatus,
  lines: lines.map(([vid, quantity]) => ({ vid, quantity })),
});

describe('the split verdict', () => {
  it('believes a split whose new codes the supplier shows and whose lines add up', () => {
    const found = [snap('SO1-1', [['V1', 2]]), snap('SO1-2', [['V2', 1]])];
    const claims = [{ parentCode: 'SO1', codes: ['SO1-1', 'SO1-2'] }];
    const v = judgeSplit('N-1', [PARENT], ['SO1'], claims, found);
    expect(v.kind).toBe('split');
    if (v.kind !== 'split') return;
    expect(v.children.map((c) => [c.code, c.lines])).toEqual([
      ['SO1-1', [{ vid: 'V1', quantity: 2, storeLineId: 'a' }]],
      ['SO1-2', [{ vid: 'V2', quantity: 1, storeLineId: 'b' }]],
    ]);
  });

  it('names both lists when the children do not add up to the parcel', () => {
    const found = [snap('SO1-1', [['V1', 1]]), snap('SO1-2', [['V2', 1]])];
    const v = judgeSplit(
      'N-1',
      [PARENT],
      ['SO1'],
      [{ parentCode: 'SO1', codes: ['SO1-1', 'SO1-2'] }],
      found,
    );
    expect(v).toMatchObject({ kind: 'mismatch' });
    if (v.kind === 'mismatch') {
      expect(v.why).toContain('SO1 (2 × V1, 1 × V2)');
      expect(v.why).toContain('SO1-1 (1 × V1)');
    }
  });

  it('does not believe a code the supplier does not show (its view may lag)', () => {
    const found = [snap('SO1-1', [['V1', 2]])];
    const v = judgeSplit(
      'N-1',
      [PARENT],
      ['SO1'],
      [{ parentCode: 'SO1', codes: ['SO1-1', 'SO1-2'] }],
      found,
    );
    expect(v).toMatchObject({ kind: 'unconfirmed', why: 'the supplier does not show SO1-2' });
  });

  it('finds the whole split from one code the sweeper came across', () => {
    const found = [snap('SO1-1', [['V1', 2]], 'SHIPPED'), snap('SO1-2', [['V2', 1]])];
    const v = judgeSplit('N-1', [PARENT], ['SO1'], [{ codes: ['SO1-1'] }], found);
    expect(v.kind === 'split' && v.children.map((c) => c.code)).toEqual(['SO1-1', 'SO1-2']);
  });

  it('sees nothing split when the code is another name of the order', () => {
    const found = [
      {
        ...snap('SO1', [
          ['V1', 2],
          ['V2', 1],
        ]),
        svcOrderCode: 'SC1',
      },
    ];
    expect(judgeSplit('N-1', [PARENT], ['SO1'], [{ codes: ['SC1'] }], found)).toEqual({
      kind: 'none',
    });
  });
});

describe('parcels', () => {
  it('ships with the first parcel and settles only when every parcel is delivered or cancelled', () => {
    const p = new Parcels();
    p.splitInto(PARENT, [
      { code: 'SO1-1', lines: [PARENT.lines[0]!], facts: { orderStatus: 'UNSHIPPED' } },
      { code: 'SO1-2', lines: [PARENT.lines[1]!], facts: { orderStatus: 'UNSHIPPED' } },
    ]);
    expect(p.advance()).toEqual([]);
    p.heard('SO1-1', { orderStatus: 'DELIVERED', trackNumber: 'T1', proofOfDelivery: ['u'] });
    expect(p.advance().map((c) => [c.kind, c.parcel.code])).toEqual([
      ['shipped', 'SO1-1'],
      ['delivered', 'SO1-1'],
    ]);
    expect(p.anyShipped).toBe(true);
    expect(p.settled).toBe(false);
    expect(parcelsGlance(p.view)).toBe('1 of 2 parcels delivered');
    expect(p.openCodes).toEqual(['SO1-2']);
    // A proof that comes after the delivery still reaches the parcel.
    p.heard('SO1-1', { proofOfDelivery: ['u', 'v'] });
    expect(p.advance()).toEqual([]);
    expect(p.find('SO1-1')?.proofOfDelivery).toEqual(['u', 'v']);
    p.heard('SO1-2', { orderStatus: 'CANCELLED' });
    expect(p.advance().map((c) => c.kind)).toEqual(['cancelled']);
    expect(p.settled).toBe(true);
    expect(p.view.map((v) => v.stage)).toEqual([
      ParcelStage.SPLIT,
      ParcelStage.DELIVERED,
      ParcelStage.CANCELLED,
    ]);
    expect(parcelsGlance(p.view)).toBe('1 of 2 parcels delivered, 1 cancelled');
  });

  it('compares lines by variant and quantity', () => {
    expect(
      sameLines(
        [
          { vid: 'V1', quantity: 1 },
          { vid: 'V1', quantity: 1 },
        ],
        [{ vid: 'V1', quantity: 2 }],
      ),
    ).toBe(true);
    expect(sameLines([{ vid: 'V1', quantity: 1 }], [{ vid: 'V1', quantity: 2 }])).toBe(false);
  });
});

describe('the sweeper and parcels', () => {
  it("asks a split order's open parcels one by one, each told to the order", () => {
    const asked = byParcel([
      {
        workflowId: 'order:A',
        svcOrderId: 'SO1',
        stage: Stage.SHIPPED,
        parcelCodes: ['SO1-1', 'SO1-2'],
      },
      { workflowId: 'order:B', svcOrderId: 'SO2', stage: Stage.SHIPPED },
    ]);
    expect(asked.map((o) => [o.workflowId, o.svcOrderId, o.signalTo])).toEqual([
      ['order:A#SO1-1', 'SO1-1', 'order:A'],
      ['order:A#SO1-2', 'SO1-2', 'order:A'],
      ['order:B', 'SO2', undefined],
    ]);
  });

  it("tells another supplier order's status under that order's code, never as the order's own", () => {
    const order = {
      workflowId: 'order:A',
      svcOrderId: 'SO1',
      orderNumber: 'N-1',
      stage: Stage.AWAITING_SHIPMENT,
    };
    const news = newsFor(order, snap('SO1-1', [['V1', 2]], 'DELIVERED'), undefined);
    expect(news?.svcOrderId).toBe('SO1-1');
    expect(newsFor(order, snap('SO1', [], 'SHIPPED'), undefined)?.svcOrderId).toBe('SO1');
  });
});
