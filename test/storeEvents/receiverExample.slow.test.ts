/**
 * The store receiver example (examples/store-receiver.ts): docs/store-events.md shows it verbatim, and run
 * as a store developer would, it accepts a signed event (204), handles a repeated delivery once,
 * and refuses a tampered body (400). It starts the example as a process, hence the slow suite.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { readFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { createInterface } from 'node:readline';

import { afterAll, beforeAll, expect, it } from 'vitest';

import type { StoreEvent } from '../../src/storeEvents/contract.js';
import { storeEventHeaders } from '../../src/storeEvents/signing.js';
import { eventually } from '../support/eventually.js';
import { freePort } from '../support/ports.js';

const EXAMPLE = 'examples/store-receiver.ts';
const secret = `whsec_${randomBytes(32).toString('base64')}`;
let port: number;
let child: ChildProcess;
/** The example's stdout lines, and a wait for the next one. */
const logged: string[] = [];
let onLine: (() => void) | undefined;

function accepts(): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => {
      resolve(false);
    });
  });
}

beforeAll(async () => {
  port = await freePort();
  child = spawn(process.execPath, ['--import', 'tsx', EXAMPLE], {
    env: { ...process.env, PORT: String(port), STORE_EVENTS_SECRET: secret },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  createInterface({ input: child.stdout! }).on('line', (line) => {
    logged.push(line);
    onLine?.();
  });
  await eventually('the example to listen', accepts, (up) => up);
});
afterAll(async () => {
  if (child.exitCode === null) {
    child.kill('SIGTERM');
    await once(child, 'exit');
  }
});

function event(orderNumber: string): StoreEvent {
  const at = new Date().toISOString();
  return {
    id: `evt_${randomBytes(8).toString('hex')}`,
    type: 'order.paid',
    occurredAt: at,
    orderNumber,
    stage: 'PAID',
    data: { amount: 20, currency: 'USD', paidAt: at },
  };
}

async function post(e: StoreEvent, tamper?: (body: string) => string): Promise<number> {
  const body = JSON.stringify(e);
  const res = await fetch(`http://127.0.0.1:${port}/`, {
    method: 'POST',
    headers: storeEventHeaders(e.id, new Date(), body, secret),
    body: tamper === undefined ? body : tamper(body),
  });
  return res.status;
}

/** Resolves once the example has logged `n` lines in all. */
function linesLogged(n: number): Promise<void> {
  return new Promise((resolve) => {
    const check = () => {
      if (logged.length >= n) resolve();
    };
    onLine = check;
    check();
  });
}

it('is shown verbatim in docs/store-events.md', async () => {
  const [page, example] = await Promise.all([
    readFile('docs/store-events.md', 'utf8'),
    readFile(EXAMPLE, 'utf8'),
  ]);
  expect(page).toContain('```ts\n' + example + '```\n');
});

it('has at most 15 lines of code', async () => {
  const code = (await readFile(EXAMPLE, 'utf8'))
    .split('\n')
    .filter((l) => l.trim() !== '' && !l.trim().startsWith('//'));
  expect(code.length).toBeLessThanOrEqual(15);
});

it('accepts a signed event once, however often it comes, and refuses a tampered one', async () => {
  const first = event('EX-1');
  expect(await post(first)).toBe(204);
  await linesLogged(1);
  expect(logged[0]).toContain('order.paid EX-1');

  // Delivered again (a retry, a replay): answered 204, not handled twice.
  expect(await post(first)).toBe(204);
  const second = event('EX-2');
  expect(await post(second)).toBe(204);
  await linesLogged(2);
  expect(logged[1]).toContain('order.paid EX-2');

  expect(await post(event('EX-3'), (body) => body.replace('"amount":20', '"amount":2000'))).toBe(
    400,
  );
  const unsigned = await fetch(`http://127.0.0.1:${port}/`, {
    method: 'POST',
    body: JSON.stringify(event('EX-4')),
  });
  expect(unsigned.status).toBe(400);
  // A last good one: the refused ones logged nothing before it.
  expect(await post(event('EX-5'))).toBe(204);
  await linesLogged(3);
  expect(logged.map((l) => l.split(' ').slice(0, 2).join(' '))).toEqual([
    'order.paid EX-1',
    'order.paid EX-2',
    'order.paid EX-5',
  ]);
});
