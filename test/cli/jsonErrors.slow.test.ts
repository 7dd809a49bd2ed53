/**
 * A command given `--json` that fails prints one JSON document on stdout,
 * `{"error": {"message", "code"}}`, and exits non-zero; without `--json` the message goes to stderr.
 */
import { createServer } from 'node:net';

import { describe, expect, inject, it } from 'vitest';
import { runDropflow } from '../support/cli.js';

function dropflow(args: string[], env: Record<string, string> = {}) {
  return runDropflow(args, {
    env: {
      TEMPORAL_ADDRESS: inject('temporalAddress'),
      TEMPORAL_NAMESPACE: inject('temporalNamespace'),
      ...env,
    },
  });
}

interface ErrorDocument {
  error: { message: string; code?: string };
}

/** stdout holds exactly one JSON document with an error. */
function errorOf(stdout: string): ErrorDocument['error'] {
  const doc = JSON.parse(stdout) as ErrorDocument;
  expect(Object.keys(doc)).toEqual(['error']);
  return doc.error;
}

describe('--json failures', () => {
  it('status --json of an unknown order: the error as JSON on stdout, exit 1', async () => {
    const orderNumber = `NO-SUCH-ORDER-${process.pid}`;
    const { code, stdout, stderr } = await dropflow(['status', orderNumber, '--json']);
    expect(code).toBe(1);
    expect(stderr).toBe('');
    expect(errorOf(stdout)).toEqual({
      message: `no order ${orderNumber} (workflow order:${orderNumber} not found)`,
      code: 'ORDER_NOT_FOUND',
    });
  });

  it('without --json, the same failure is a line on stderr', async () => {
    const { code, stdout, stderr } = await dropflow(['status', `NO-SUCH-ORDER-${process.pid}`]);
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toMatch(/^dropflow: no order NO-SUCH-ORDER-\d+ \(workflow .* not found\)\n$/);
  });

  it('a refused action on an unknown order, and a Temporal that cannot be reached', async () => {
    const resumed = await dropflow(['resume', `NO-SUCH-ORDER-${process.pid}`, '--json']);
    expect(resumed.code).toBe(1);
    expect(errorOf(resumed.stdout).code).toBe('ORDER_NOT_FOUND');

    const server = createServer();
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    const { port } = server.address() as { port: number };
    await new Promise((done) => server.close(done));
    const listed = await dropflow(['list', '--json'], { TEMPORAL_ADDRESS: `127.0.0.1:${port}` });
    expect(listed.code).toBe(1);
    expect(errorOf(listed.stdout)).toMatchObject({
      code: 'TEMPORAL_UNREACHABLE',
      message: expect.stringContaining(`cannot reach Temporal at 127.0.0.1:${port}`) as unknown,
    });
  });

  it("Commander's usage errors too", async () => {
    const { code, stdout, stderr } = await dropflow(['list', '--json', '--stage', 'NOWHERE']);
    expect(code).toBe(1);
    expect(stderr).toBe('');
    expect(errorOf(stdout)).toMatchObject({
      code: 'USAGE',
      message: expect.stringContaining("'NOWHERE' is invalid") as unknown,
    });
  });
});
