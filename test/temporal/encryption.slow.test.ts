/**
 * Payload encryption: the codec on its own (round trip, nonces, tampering, unknown keys, clear
 * payloads, rotation), the keys' configuration, and on the real dev server an order whose history
 * holds no trace of its customer nor of its failures' messages, read back through an encrypting
 * client and the gateway's codec routes; without a key, failures stay in clear.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { Client, type WorkflowHandle } from '@temporalio/client';
import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import proto from '@temporalio/proto';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';

import { Stage, statusQuery } from '../../src/order/contract.js';
import { OrderClient } from '../../src/client/orderClient.js';
import { ConfigError, loadConfig } from '../../src/config/environment.js';
import { startGateway, type StartedGateway } from '../../src/gateway/server.js';
import {
  ENCRYPTED_ENCODING,
  EncryptionCodec,
  KEY_ID_METADATA,
  PayloadDecryptionError,
} from '../../src/temporal/encryption.js';
import { DEV_KEY_FILE, devKeyRing, keyRingFromConfig } from '../../src/temporal/encryptionKeys.js';
import {
  orderHarness,
  reachStage,
  startOrder,
  validOrder,
  type OrderHarness,
  useOrderHarness,
} from '../support/orders.js';
import { usOrder } from '../supplier/orderHelpers.js';
import { DEFAULT_CHECKOUT_SETTINGS } from '../../src/terms/checkoutSettings.js';

const key = (id: string) => ({ id, key: randomBytes(32) });
const text = (bytes: Uint8Array | null | undefined) => Buffer.from(bytes ?? []).toString('utf8');
const plainPayload = (value: unknown): Payload => defaultPayloadConverter.toPayload(value);
const quietLog = pino({ level: 'warn' }, pino.destination(2));
const customer = { shippingCustomerName: 'Zelda Cipherton', shippingAddress: '77 Secretive Lane' };
/** Raw bytes of a workflow's history as anyone with access to Temporal, without the key, reads it. */
async function rawHistory(client: Client, workflowId: string) {
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  const raw = Buffer.from(proto.temporal.api.history.v1.History.encode(history).finish());
  return { history, raw };
}
/** The failure of the history's first failed activity task. */
function firstActivityFailure(history: proto.temporal.api.history.v1.IHistory) {
  const failed = history.events?.find((e) => e.activityTaskFailedEventAttributes != null);
  return failed?.activityTaskFailedEventAttributes?.failure ?? undefined;
}
/**
 * A flow-B order the supplier refuses at createOrder (1600100), its message echoing what it was
 * sent (`unknown variant "<vid>"`): `echo` appears in the failure's message only.
 */
async function refusedOrder(h: OrderHarness): Promise<{ handle: WorkflowHandle; echo: string }> {
  const echo = `V-ECHO-${randomBytes(6).toString('hex')}`;
  const input = validOrder({
    ...usOrder({ ...customer, products: [{ vid: echo, quantity: 1 }] }),
    fulfillment: { flow: 'B' },
  });
  const handle = await startOrder(h, input);
  return { handle, echo };
}

describe('EncryptionCodec', () => {
  const codec = new EncryptionCodec({ current: key('k1') });

  it('round-trips payloads, marking them binary/encrypted with the key id', async () => {
    const original = [plainPayload(customer), plainPayload(null), plainPayload('')];
    const encoded = await codec.encode(original);
    expect(encoded).toHaveLength(3);
    for (const p of encoded) {
      expect(text(p.metadata?.['encoding'])).toBe(ENCRYPTED_ENCODING);
      expect(text(p.metadata?.[KEY_ID_METADATA])).toBe('k1');
    }
    expect(text(encoded[0]!.data)).not.toContain('Zelda');
    const decoded = await codec.decode(encoded);
    expect(decoded.map((p) => defaultPayloadConverter.fromPayload(p))).toEqual([
      customer,
      null,
      '',
    ]);
    expect(text(decoded[0]!.metadata?.['encoding'])).toBe('json/plain');
  });

  it('uses a fresh nonce for every payload', async () => {
    const payload = plainPayload(customer);
    const [a, b] = await codec.encode([payload, payload]);
    const [c] = await codec.encode([payload]);
    const nonces = [a, b, c].map((p) => Buffer.from(p!.data!).subarray(0, 12).toString('hex'));
    expect(new Set(nonces).size).toBe(3);
  });

  it('refuses a tampered ciphertext', async () => {
    const [encrypted] = await codec.encode([plainPayload(customer)]);
    const data = Buffer.from(encrypted!.data!);
    data[20] = data[20]! ^ 0x01;
    await expect(codec.decode([{ ...encrypted, data }])).rejects.toThrow(PayloadDecryptionError);
    await expect(codec.decode([{ ...encrypted, data }])).rejects.toThrow(/does not authenticate/);
    const truncated = { ...encrypted, data: data.subarray(0, 10) };
    await expect(codec.decode([truncated])).rejects.toThrow(/truncated/);
  });

  it('says which key id it does not know', async () => {
    const other = new EncryptionCodec({ current: key('k2') });
    const encrypted = await codec.encode([plainPayload(customer)]);
    await expect(other.decode(encrypted)).rejects.toThrow(
      /key id "k1", which is not configured \(DROPFLOW_ENCRYPTION_KEY_ID, or an id=key entry of DROPFLOW_DECRYPTION_KEYS\)/,
    );
  });

  it('passes payloads that are not encrypted through unchanged', async () => {
    const clear = [plainPayload(customer), plainPayload(undefined), { metadata: null, data: null }];
    const decoded = await codec.decode(clear);
    expect(decoded).toHaveLength(3);
    for (const [i, p] of decoded.entries()) expect(p).toBe(clear[i]);
  });

  it('reads payloads of an earlier key after a rotation, writing with the new one', async () => {
    const old = key('2024');
    const before = await new EncryptionCodec({ current: old }).encode([plainPayload(customer)]);
    const rotated = new EncryptionCodec({ current: key('2025'), previous: [old] });
    expect(defaultPayloadConverter.fromPayload((await rotated.decode(before))[0]!)).toEqual(
      customer,
    );
    const [after] = await rotated.encode([plainPayload(customer)]);
    expect(text(after!.metadata?.[KEY_ID_METADATA])).toBe('2025');
  });

  it('refuses keys of the wrong size, and one id for two keys', () => {
    expect(() => new EncryptionCodec({ current: { id: 'x', key: randomBytes(16) } })).toThrow(
      /must be 32 bytes/,
    );
    expect(() => new EncryptionCodec({ current: key('same'), previous: [key('same')] })).toThrow(
      /share the id "same"/,
    );
  });

  it('never shows key material when printed', async () => {
    const secret = randomBytes(32);
    const printed = (await import('node:util')).inspect(
      new EncryptionCodec({ current: { id: 'p', key: secret } }),
      { depth: 10, showHidden: true },
    );
    expect(printed).not.toContain(secret.toString('base64'));
    expect(printed).not.toContain(secret.toString('hex'));
  });
});

describe('encryption keys from the environment', () => {
  const k1 = randomBytes(32).toString('base64');
  const k0 = randomBytes(32).toString('base64');

  it('builds the key ring: current key and id, earlier keys for reading', () => {
    const config = loadConfig({
      DROPFLOW_ENCRYPTION_KEY: k1,
      DROPFLOW_ENCRYPTION_KEY_ID: '2025-06',
      DROPFLOW_DECRYPTION_KEYS: `2024-01=${k0}, default=${k0}`,
    });
    const ring = keyRingFromConfig(config)!;
    expect(ring.current.id).toBe('2025-06');
    expect(Buffer.from(ring.current.key).toString('base64')).toBe(k1);
    expect(ring.previous?.map((k) => k.id)).toEqual(['2024-01', 'default']);
    expect(keyRingFromConfig(loadConfig({ DROPFLOW_ENCRYPTION_KEY: k1 }))?.current.id).toBe(
      'default',
    );
    expect(keyRingFromConfig(loadConfig({}))).toBeUndefined();
  });

  it('refuses a key that is not 32 bytes of base64, without echoing it', () => {
    const short = randomBytes(16).toString('base64');
    for (const bad of [short, 'not base64 at all!', `${k1}x`]) {
      let error: unknown;
      try {
        loadConfig({ DROPFLOW_ENCRYPTION_KEY: bad });
      } catch (err) {
        error = err;
      }
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as Error).message).toMatch(
        /DROPFLOW_ENCRYPTION_KEY: must be the base64 of 32 random bytes/,
      );
      expect((error as Error).message).not.toContain(bad);
    }
    expect(() => loadConfig({ DROPFLOW_DECRYPTION_KEYS: `old=${short}` })).toThrow(
      /DROPFLOW_DECRYPTION_KEYS: entry 1 must be id=key/,
    );
    expect(() => loadConfig({ DROPFLOW_DECRYPTION_KEYS: k0 })).toThrow(/entry 1 must be id=key/);
    expect(() => loadConfig({ DROPFLOW_ENCRYPTION_KEY_ID: 'a b' })).toThrow(
      /DROPFLOW_ENCRYPTION_KEY_ID/,
    );
    expect(() => keyRingFromConfig(loadConfig({ DROPFLOW_DECRYPTION_KEYS: `old=${k0}` }))).toThrow(
      /needs DROPFLOW_ENCRYPTION_KEY/,
    );
  });

  it('reads the codec origins and token', () => {
    const config = loadConfig({
      CODEC_CORS_ORIGIN: 'https://ui.example.com, http://localhost:8233',
      CODEC_TOKEN: 'a-codec-token-0123456789',
    });
    expect(config.CODEC_CORS_ORIGIN).toEqual(['https://ui.example.com', 'http://localhost:8233']);
    expect(() => loadConfig({ CODEC_CORS_ORIGIN: 'https://ui.example.com/path' })).toThrow(
      /CODEC_CORS_ORIGIN/,
    );
    expect(() => loadConfig({ CODEC_TOKEN: 'short' })).toThrow(/CODEC_TOKEN/);
  });

  it('makes the dev key once, private to its owner, and reads it back', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'dropflow-key-'));
    try {
      expect(await devKeyRing(dir)).toBeUndefined();
      const made = await devKeyRing(dir, { create: true });
      const again = await devKeyRing(dir, { create: true });
      expect(made?.current.id).toBe('dev');
      expect(Buffer.from(again!.current.key).equals(Buffer.from(made!.current.key))).toBe(true);
      const file = join(dir, DEV_KEY_FILE);
      expect((await stat(file)).mode & 0o777).toBe(0o600);
      expect(Buffer.from((await readFile(file, 'utf8')).trim(), 'base64')).toHaveLength(32);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('an order with encryption on, on the real dev server', () => {
  const CODEC_TOKEN = 'codec-test-token-0123456789';
  const UI_ORIGIN = 'http://localhost:8233';
  let h: OrderHarness;
  let withToken: StartedGateway;
  let byOrigin: StartedGateway;
  let plain: Client;

  beforeAll(async () => {
    h = await orderHarness('encryption', undefined, { encryptionKey: key('it-key') });
    // What anyone with access to Temporal but without the key sees.
    plain = new Client({ connection: h.client.connection, namespace: inject('temporalNamespace') });
    const gateway = (codec: { token?: string; corsOrigins?: string[] }) =>
      startGateway({
        checkout: DEFAULT_CHECKOUT_SETTINGS,
        temporalClient: h.client,
        queues: h.queues,
        openId: h.account.openId,
        log: quietLog,
        port: 0,
        host: '127.0.0.1',
        codec: { codec: h.codec!, ...codec },
      });
    withToken = await gateway({ token: CODEC_TOKEN, corsOrigins: [UI_ORIGIN] });
    byOrigin = await gateway({ corsOrigins: [UI_ORIGIN] });
  });
  afterAll(async () => {
    await withToken.close();
    await byOrigin.close();
    await h.close();
  });

  interface JsonPayload {
    metadata: Record<string, string>;
    data: string;
  }
  const toJson = (p: Payload): JsonPayload => ({
    metadata: Object.fromEntries(
      Object.entries(p.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v).toString('base64')]),
    ),
    data: Buffer.from(p.data ?? []).toString('base64'),
  });

  async function codecCall(
    gateway: StartedGateway,
    op: 'encode' | 'decode',
    payloads: JsonPayload[],
    headers: Record<string, string> = {},
  ) {
    const res = await fetch(`${gateway.codecUrl!}/${op}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-namespace': 'default', ...headers },
      body: JSON.stringify({ payloads }),
    });
    return { res, body: (await res.json()) as { payloads?: JsonPayload[]; error?: string } };
  }
  const bearer = { authorization: `Bearer ${CODEC_TOKEN}` };

  let startedInput: Payload | undefined;

  it('runs to AWAITING_SHIPMENT; its history holds ciphertext only, its status reads fine', async () => {
    const input = validOrder({ ...usOrder(customer), fulfillment: { flow: 'B' } });
    const handle = await startOrder(h, input);
    const status = await reachStage(handle, Stage.AWAITING_SHIPMENT);
    expect(status.svcOrderId).toMatch(/\w+/);

    const history = await plain.workflow.getHandle(handle.workflowId).fetchHistory();
    const started = history.events?.[0]?.workflowExecutionStartedEventAttributes;
    startedInput = started?.input?.payloads?.[0] ?? undefined;
    expect(startedInput).toBeDefined();
    expect(text(startedInput!.metadata?.['encoding'])).toBe(ENCRYPTED_ENCODING);
    expect(text(startedInput!.metadata?.[KEY_ID_METADATA])).toBe('it-key');
    const raw = Buffer.from(proto.temporal.api.history.v1.History.encode(history).finish());
    expect(raw.length).toBeGreaterThan(1000);
    for (const secret of [
      customer.shippingCustomerName,
      customer.shippingAddress,
      'Beverly Hills',
    ]) {
      expect(raw.includes(secret), secret).toBe(false);
    }
    // The order number is a workflow id and search attribute: in clear, and no personal data.
    expect(raw.includes(input.order.orderNumber)).toBe(true);

    // Without the key the status cannot be read; with it, it can.
    await expect(plain.workflow.getHandle(handle.workflowId).query(statusQuery)).rejects.toThrow();
    expect((await handle.query(statusQuery)).stage).toBe(Stage.AWAITING_SHIPMENT);

    // A refused action's reason is a failure the workflow encodes: the client with the key reads
    // it, one without reads nothing of it.
    const orderNumber = input.order.orderNumber;
    await expect(new OrderClient(h.client, h.queues).approvePayment(orderNumber)).rejects.toThrow(
      /approvePayment refused: no payment waits for approval/,
    );
    const blind = await new OrderClient(plain, h.queues)
      .approvePayment(orderNumber)
      .catch((err: unknown) => err);
    expect(blind).toBeInstanceOf(Error);
    expect((blind as Error).message).not.toMatch(/no payment waits for approval/);
  });

  it("keeps failures' messages out of history: only the key reads them", async () => {
    const { handle, echo } = await refusedOrder(h);
    // The workflow (and `dropflow status`, through the encrypting client) reads the supplier's
    // own words.
    const status = await reachStage(handle, Stage.NEEDS_ATTENTION);
    expect(status.error).toMatchObject({ code: 1600100 });
    expect(status.error?.message).toContain(echo);

    const { history, raw } = await rawHistory(plain, handle.workflowId);
    const failure = firstActivityFailure(history);
    expect(failure?.message).toBe('Encoded failure');
    expect(text(failure?.encodedAttributes?.metadata?.['encoding'])).toBe(ENCRYPTED_ENCODING);
    expect(raw.includes(echo), echo).toBe(false);
    expect(raw.includes('Param error'), 'the supplier message').toBe(false);

    // The Temporal UI decodes the failure through the codec routes, as it does payloads.
    const { res, body } = await codecCall(
      withToken,
      'decode',
      [toJson(failure!.encodedAttributes!)],
      bearer,
    );
    expect(res.status).toBe(200);
    const attributes = JSON.parse(Buffer.from(body.payloads![0]!.data, 'base64').toString()) as {
      message: string;
    };
    expect(attributes.message).toContain(`unknown variant "${echo}"`);
  });

  it("decodes the history's payloads over HTTP, as the Temporal UI does", async () => {
    expect(startedInput).toBeDefined();
    const { res, body } = await codecCall(withToken, 'decode', [toJson(startedInput!)], bearer);
    expect(res.status).toBe(200);
    const decoded = body.payloads![0]!;
    expect(Buffer.from(decoded.metadata['encoding']!, 'base64').toString()).toBe('json/plain');
    const order = JSON.parse(Buffer.from(decoded.data, 'base64').toString()) as {
      order: Record<string, unknown>;
    };
    expect(order.order['shippingCustomerName']).toBe(customer.shippingCustomerName);
  });

  it('decode(encode(x)) = x over HTTP; clear payloads pass through', async () => {
    const x = [toJson(plainPayload(customer)), toJson(plainPayload(42))];
    const encoded = await codecCall(withToken, 'encode', x, bearer);
    expect(encoded.res.status).toBe(200);
    for (const p of encoded.body.payloads!) {
      expect(Buffer.from(p.metadata['encoding']!, 'base64').toString()).toBe(ENCRYPTED_ENCODING);
    }
    const decoded = await codecCall(withToken, 'decode', encoded.body.payloads!, bearer);
    expect(decoded.res.status).toBe(200);
    expect(decoded.body.payloads).toEqual(x);
    expect((await codecCall(withToken, 'decode', x, bearer)).body.payloads).toEqual(x);
  });

  it('answers 401 without the token (or with another), 400 for a key it does not know', async () => {
    const x = [toJson(plainPayload(customer))];
    expect((await codecCall(withToken, 'encode', x)).res.status).toBe(401);
    const fromUi = await codecCall(withToken, 'decode', x, { origin: UI_ORIGIN });
    expect(fromUi.res.status).toBe(401);
    const wrong = await codecCall(withToken, 'decode', x, { authorization: 'Bearer nope' });
    expect(wrong.res.status).toBe(401);
    const foreign = await new EncryptionCodec({ current: key('elsewhere') }).encode([
      plainPayload(customer),
    ]);
    const unknown = await codecCall(withToken, 'decode', foreign.map(toJson), bearer);
    expect(unknown.res.status).toBe(400);
    expect(unknown.body.error).toMatch(/key id "elsewhere", which is not configured/);
    const notBase64 = await codecCall(withToken, 'decode', [{ metadata: {}, data: '%%' }], bearer);
    expect(notBase64.res.status).toBe(400);
  });

  it("answers the UI's CORS preflight for the configured origin only", async () => {
    const preflight = (gateway: StartedGateway, origin: string) =>
      fetch(`${gateway.codecUrl!}/decode`, {
        method: 'OPTIONS',
        headers: {
          origin,
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'content-type,x-namespace',
        },
      });
    for (const gateway of [withToken, byOrigin]) {
      const ok = await preflight(gateway, UI_ORIGIN);
      expect(ok.status).toBe(204);
      expect(ok.headers.get('access-control-allow-origin')).toBe(UI_ORIGIN);
      expect(ok.headers.get('access-control-allow-credentials')).toBe('true');
      const allowed = ok.headers.get('access-control-allow-headers')?.split(/,\s*/) ?? [];
      expect(allowed).toEqual(expect.arrayContaining(['content-type', 'x-namespace']));
      expect(ok.headers.get('access-control-allow-methods')).toMatch(/POST/);

      const other = await preflight(gateway, 'https://evil.example.com');
      expect(other.status).toBe(403);
      expect(other.headers.get('access-control-allow-origin')).toBeNull();
    }
  });

  it('without a token, serves the configured origin only', async () => {
    const x = [toJson(plainPayload(customer))];
    const fromUi = await codecCall(byOrigin, 'encode', x, { origin: UI_ORIGIN });
    expect(fromUi.res.status).toBe(200);
    expect(fromUi.res.headers.get('access-control-allow-origin')).toBe(UI_ORIGIN);
    expect(fromUi.res.headers.get('access-control-allow-credentials')).toBe('true');
    expect((await codecCall(byOrigin, 'encode', x)).res.status).toBe(403);
    const other = await codecCall(byOrigin, 'encode', x, { origin: 'https://evil.example.com' });
    expect(other.res.status).toBe(403);
    expect(other.res.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('an order without a key, on the real dev server', () => {
  const h = useOrderHarness('no-encryption');

  it("keeps failures' messages in clear in history, as Temporal writes them", async () => {
    const { handle, echo } = await refusedOrder(h);
    const status = await reachStage(handle, Stage.NEEDS_ATTENTION);
    expect(status.error?.message).toContain(echo);

    const { history, raw } = await rawHistory(h.client, handle.workflowId);
    const failure = firstActivityFailure(history);
    expect(failure?.message).toContain(`unknown variant "${echo}"`);
    expect(failure?.encodedAttributes).toBeFalsy();
    expect(raw.includes(customer.shippingCustomerName)).toBe(true);
  });
});
