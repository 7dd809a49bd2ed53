/**
 * A local store for the store-event tests: a real HTTP server that records each request (headers
 * and raw body) and answers as the test says.
 */
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

import { afterAll, beforeAll, beforeEach } from 'vitest';

import type { StoreEvent } from '../../src/storeEvents/contract.js';
import { madeLater } from '../support/madeLater.js';

export interface Received {
  method: string | undefined;
  url: string | undefined;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** Answers one request; may leave `res` open (a store that never answers). */
export type Answer = (res: ServerResponse, req: Received) => void;

export interface TestStore {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  host: string;
  received: Received[];
  /** How the next requests are answered (default 200). */
  answer: Answer;
  close(): Promise<void>;
}

export async function startStore(): Promise<TestStore> {
  const store: TestStore = {
    origin: '',
    host: '',
    received: [],
    answer: (res) => res.writeHead(200).end(),
    close: () => Promise.resolve(),
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const received = {
        method: req.method,
        url: req.url,
        headers: req.headers,
        body: Buffer.concat(chunks),
      };
      store.received.push(received);
      store.answer(res, received);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  store.host = `127.0.0.1:${port}`;
  store.origin = `http://${store.host}`;
  store.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => {
        resolve();
      });
    });
  return store;
}

/**
 * The store of a test file: started before its tests, closed after them, and before each test
 * emptied of what it received and answering 200 again.
 */
export function useStore(): TestStore {
  let started: TestStore | undefined;
  beforeAll(async () => {
    started = await startStore();
  });
  afterAll(async () => {
    await started?.close();
  });
  beforeEach(() => {
    if (started === undefined) return;
    started.received.length = 0;
    started.answer = (res) => res.writeHead(200).end();
  });
  return madeLater(() => started, 'the test store');
}

/** A port nothing listens on (it was free a moment ago). */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => {
    server.close(() => {
      resolve();
    });
  });
  return port;
}

export const SECRET = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
export const OLD_SECRET = `whsec_${Buffer.alloc(24, 9).toString('base64')}`;

export function paidEvent(id = 'evt_paid_0001'): StoreEvent {
  return {
    id,
    type: 'order.paid',
    occurredAt: '2026-11-23T10:00:00.000Z',
    orderNumber: 'STORE-EV-0001',
    stage: 'PAID',
    data: { amount: 12.5, currency: 'USD', paidAt: '2026-11-23T10:00:00.000Z', payId: 'PAY-1' },
  };
}
