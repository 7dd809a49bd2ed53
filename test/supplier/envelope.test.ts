/** The supplier's envelope: an error answer is read as the supplier's error, with or without data. */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';

import { Envelope, openEnvelope } from '../../src/supplier/envelope.js';
import { SupplierError } from '../../src/supplier/errors.js';

describe('the supplier envelope', () => {
  it('an error answer without data is the supplier error it names, not a broken answer', () => {
    const raw = { code: 1600200, result: false, message: 'Too Many Requests', requestId: 'r-1' };
    const parsed = Envelope.safeParse(raw);
    expect(parsed.success).toBe(true);
    const open = () =>
      openEnvelope('payBalanceV2', { status: 200, envelope: parsed.data! }, z.unknown());
    expect(open).toThrow(SupplierError);
    expect(open).toThrow(/1600200|Too Many Requests/);
  });

  it('a success answer hands over its data', () => {
    const parsed = Envelope.parse({ code: 200, result: true, data: { n: 1 }, requestId: 'r-2' });
    const { data, requestId } = openEnvelope(
      'getBalance',
      { status: 200, envelope: parsed },
      z.object({ n: z.number() }),
    );
    expect(data).toEqual({ n: 1 });
    expect(requestId).toBe('r-2');
  });
});
