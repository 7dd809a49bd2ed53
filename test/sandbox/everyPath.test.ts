/**
 * Every endpoint dropflow knows is served by the sandbox and answers in the supplier's envelope:
 * without a token the protected ones say 1600001, the token endpoints check their parameters.
 */
import { expect, it } from 'vitest';
import { endpoints } from '../../src/supplier/api/index.js';
import { SupplierCode } from '../../src/supplier/errors.js';
import { sandboxUrl } from '../support/sandbox.js';

it('answers every path of the API with the envelope', async () => {
  const all = Object.values(endpoints);
  expect(all.length).toBeGreaterThanOrEqual(46);
  for (const ep of all) {
    const res = await fetch(`${sandboxUrl()}/api2.0/v1/${ep.path}`, {
      method: ep.method,
      ...(ep.transport === 'json' && {
        headers: { 'content-type': 'application/json' },
        body: '{}',
      }),
    });
    const body = (await res.json()) as Record<string, unknown>;
    expect(body, `${ep.method} ${ep.path}`).toMatchObject({ result: false, data: null });
    expect(typeof body['message'], ep.name).toBe('string');
    expect(body['requestId'], ep.name).toMatch(/\w+/);
    // Calls that name no account are rate-limited by address: the second token call within a
    // second may be refused for that before its parameters are read.
    const expected = ep.auth
      ? [SupplierCode.AuthenticationFailed]
      : [SupplierCode.ParamError, SupplierCode.TooManyRequests];
    expect(expected, `${ep.method} ${ep.path}: code ${String(body['code'])}`).toContain(
      body['code'],
    );
  }
});
