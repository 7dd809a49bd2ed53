/**
 * Who gets plaintext from the codec routes: an Origin header is whatever the caller writes, so a
 * gateway on a non-loopback address serves them only with CODEC_TOKEN; on loopback (`dropflow
 * dev`) the Temporal UI's origin still decodes without a token.
 */
import { randomBytes } from 'node:crypto';

import { Client, Connection } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';

import { startGateway, type StartedGateway } from '../../src/gateway/server.js';
import { isLoopbackHost } from '../../src/net/outboundUrl.js';
import { EncryptionCodec } from '../../src/temporal/encryption.js';
import { taskQueues } from '../../src/temporal/taskQueues.js';
import { quietLog } from './support.js';
import { DEFAULT_CHECKOUT_SETTINGS } from '../../src/terms/checkoutSettings.js';

const UI_ORIGIN = 'http://localhost:8233';
const CODEC_TOKEN = 'codec-access-token-0123456789';
const SECRET_NAME = 'Wilhelmina Plaintextova';

describe('isLoopbackHost', () => {
  it('tells loopback listen addresses from the others', () => {
    for (const host of [
      '127.0.0.1',
      '127.5.0.1',
      'localhost',
      '::1',
      '[::1]',
      '::ffff:127.0.0.1',
    ]) {
      expect(isLoopbackHost(host), host).toBe(true);
    }
    for (const host of ['0.0.0.0', '::', '10.0.0.5', '192.168.1.2', 'gateway.example.com']) {
      expect(isLoopbackHost(host), host).toBe(false);
    }
  });
});

describe('the codec routes, by where the gateway listens', () => {
  const codec = new EncryptionCodec({ current: { id: 'access', key: randomBytes(32) } });
  let connection: Connection;
  let encrypted: { metadata: Record<string, string>; data: string };
  const gateways: StartedGateway[] = [];

  const start = async (host: string, token?: string): Promise<StartedGateway> => {
    const gateway = await startGateway({
      checkout: DEFAULT_CHECKOUT_SETTINGS,
      temporalClient: new Client({ connection, namespace: inject('temporalNamespace') }),
      queues: taskQueues('codec-access'),
      openId: 'unused-open-id',
      log: quietLog,
      port: 0,
      host,
      codec: { codec, corsOrigins: [UI_ORIGIN], ...(token !== undefined && { token }) },
    });
    gateways.push(gateway);
    return gateway;
  };

  beforeAll(async () => {
    connection = Connection.lazy({ address: inject('temporalAddress') });
    const [payload] = await codec.encode([
      defaultPayloadConverter.toPayload({ shippingCustomerName: SECRET_NAME }),
    ]);
    encrypted = {
      metadata: Object.fromEntries(
        Object.entries(payload!.metadata ?? {}).map(([k, v]) => [
          k,
          Buffer.from(v).toString('base64'),
        ]),
      ),
      data: Buffer.from(payload!.data ?? []).toString('base64'),
    };
  });
  afterAll(async () => {
    for (const gateway of gateways) await gateway.close();
    await connection.close();
  });

  /** POST /codec/decode on the gateway's port, reached over loopback, with the given headers. */
  async function decode(gateway: StartedGateway, headers: Record<string, string>) {
    const res = await fetch(`${gateway.url}/codec/decode`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-namespace': 'default', ...headers },
      body: JSON.stringify({ payloads: [encrypted] }),
    });
    const body = (await res.json()) as { payloads?: { data?: string }[] };
    const data = (body.payloads ?? []).map((p) => Buffer.from(p.data ?? '', 'base64').toString());
    return { status: res.status, plain: data.some((d) => d.includes(SECRET_NAME)) };
  }

  it('on 0.0.0.0 without a token: not served at all, a forged Origin gets nothing', async () => {
    const gateway = await start('0.0.0.0');
    expect(gateway.codecUrl).toBeUndefined();
    const forged = await decode(gateway, { origin: UI_ORIGIN });
    expect(forged).toEqual({ status: 404, plain: false });
    const preflight = await fetch(`${gateway.url}/codec/decode`, {
      method: 'OPTIONS',
      headers: { origin: UI_ORIGIN, 'access-control-request-method': 'POST' },
    });
    expect(preflight.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('on 0.0.0.0 with a token: the bearer decodes, a forged Origin alone is refused', async () => {
    const gateway = await start('0.0.0.0', CODEC_TOKEN);
    expect(gateway.codecUrl).toBeDefined();
    expect(await decode(gateway, { origin: UI_ORIGIN })).toEqual({ status: 401, plain: false });
    const bearer = await decode(gateway, { authorization: `Bearer ${CODEC_TOKEN}` });
    expect(bearer).toEqual({ status: 200, plain: true });
  });

  it("on 127.0.0.1 without a token (dropflow dev): the UI's origin decodes, others do not", async () => {
    const gateway = await start('127.0.0.1');
    expect(await decode(gateway, { origin: UI_ORIGIN })).toEqual({ status: 200, plain: true });
    const other = await decode(gateway, { origin: 'https://evil.example.com' });
    expect(other).toEqual({ status: 403, plain: false });
  });
});
