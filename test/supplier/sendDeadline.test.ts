/**
 * A fleet's call leaves in its slot or not at all (supplier/sendDeadline.ts): past its deadline
 * undici fails the request before writing it, the server sees nothing, and the connection stays
 * for the next request.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { leaveBy, MissedSlot } from '../../src/supplier/sendDeadline.js';

let server: Server;
let url: string;
let received = 0;
let connections = 0;
const agent = new Agent({ connections: 1, keepAliveTimeout: 30_000 });

beforeAll(async () => {
  server = createServer((_req, res) => {
    received += 1;
    res.end('ok');
  });
  server.on('connection', () => (connections += 1));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});

afterAll(async () => {
  await agent.close();
  await new Promise<void>((resolve) => {
    server.close(() => {
      resolve();
    });
  });
});

const left: number[] = [];

async function get(by: number): Promise<string> {
  const slot = { by, sent: (at: number) => left.push(at) };
  const res = await request(url, { dispatcher: agent.compose(leaveBy(slot)) });
  return res.body.text();
}

describe('leaveBy', () => {
  it('sends a request before its deadline, and says when it left', async () => {
    const before = Date.now();
    expect(await get(before + 60_000)).toBe('ok');
    expect(received).toBe(1);
    expect(left).toHaveLength(1);
    expect(left[0]).toBeGreaterThanOrEqual(before);
  });

  it('fails a request past its deadline unsent, and keeps the connection', async () => {
    const late = get(Date.now() - 30);
    await expect(late).rejects.toBeInstanceOf(MissedSlot);
    await expect(late).rejects.toMatchObject({ lateMs: expect.any(Number) as number });
    expect(received).toBe(1);
    expect(left).toHaveLength(1);

    expect(await get(Date.now() + 60_000)).toBe('ok');
    expect(received).toBe(2);
    expect(connections).toBe(1);
  });
});
