/**
 * A store system's receiver for the tests: it checks every delivery's Standard Webhooks signature
 * on its own (node:crypto, not dropflow's code or the specification's library), records every
 * delivery, and can refuse each event's first delivery or be down (not listening) for a while.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import type { StoreEvent } from '../../src/storeEvents/contract.js';
import { eventually } from './eventually.js';

export interface Delivery {
  id: string;
  timestamp: string;
  signature: string;
  body: string;
  /** Whether one of the signatures is the HMAC of `id.timestamp.body` with the secret. */
  signatureValid: boolean;
  /** What the receiver answered. */
  status: number;
  event: StoreEvent;
}

export interface ReceiverOptions {
  /** Answer 500 to the first delivery of every event id. */
  refuseFirst?: boolean;
}

export class StoreReceiver {
  readonly deliveries: Delivery[] = [];
  readonly secret = `whsec_${randomBytes(32).toString('base64')}`;
  private server: Server | undefined;
  private port = 0;

  constructor(private readonly options: ReceiverOptions = {}) {}

  /** Listens (again) on its port; the first time on a free one. */
  async up(): Promise<void> {
    const server = createServer((req, res) => {
      void this.receive(req).then((status) => {
        res.statusCode = status;
        res.end();
      });
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => {
        resolve();
      });
    });
    this.port = (server.address() as AddressInfo).port;
    this.server = server;
  }

  /** Stops listening: deliveries find no one (connection refused). */
  async down(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (server === undefined) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) =>
      server.close(() => {
        resolve();
      }),
    );
  }

  /** A port that is free now, for a receiver that starts down. */
  async reservePort(): Promise<void> {
    await this.up();
    await this.down();
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}/store/events`;
  }

  /** The events answered 2xx, in the order they arrived. */
  accepted(orderNumber?: string): StoreEvent[] {
    return this.deliveries
      .filter((d) => d.status < 300)
      .map((d) => d.event)
      .filter((e) => orderNumber === undefined || e.orderNumber === orderNumber);
  }

  async until(what: string, done: () => boolean, timeoutMs = 60_000): Promise<void> {
    await eventually(what, () => Promise.resolve(done()), Boolean, timeoutMs);
  }

  private async receive(req: IncomingMessage): Promise<number> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    const id = header(req, 'webhook-id');
    const timestamp = header(req, 'webhook-timestamp');
    const signature = header(req, 'webhook-signature');
    const signatureValid = verify(this.secret, id, timestamp, body, signature);
    const event = JSON.parse(body) as StoreEvent;
    const seenBefore = this.deliveries.some((d) => d.id === id);
    const status = !signatureValid ? 400 : this.options.refuseFirst && !seenBefore ? 500 : 204;
    this.deliveries.push({ id, timestamp, signature, body, signatureValid, status, event });
    return status;
  }
}

function header(req: IncomingMessage, name: string): string {
  const value = req.headers[name];
  return Array.isArray(value) ? (value[0] ?? '') : (value ?? '');
}

/** The Standard Webhooks check, by hand: base64 HMAC-SHA256 of `id.timestamp.body`. */
export function verify(
  secret: string,
  id: string,
  timestamp: string,
  body: string,
  signatures: string,
): boolean {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest();
  return signatures.split(' ').some((entry) => {
    const [version, value] = entry.split(',');
    if (version !== 'v1' || value === undefined) return false;
    const given = Buffer.from(value, 'base64');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}
