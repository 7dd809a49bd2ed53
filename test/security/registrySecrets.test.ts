/**
 * Door: the account registry's secrets through the codec. The registry seals each account's API
 * key and each store's admin credentials with the payload key, as a payload of its own. Whoever
 * may read histories through the codec (CODEC_TOKEN, the Temporal UI) could post such a sealed
 * secret to `/codec/decode` and read it in clear. The codec answers only the payloads Temporal
 * wrote in clear; a sealed registry secret comes back as it was sent, still encrypted.
 */
import { randomBytes } from 'node:crypto';

import { Client, Connection } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';

import { SecretBox } from '../../src/accounts/registryFile.js';
import { startGateway, type StartedGateway } from '../../src/gateway/server.js';
import {
  ENCRYPTED_ENCODING,
  EncryptionCodec,
  KEY_ID_METADATA,
} from '../../src/temporal/encryption.js';
import { taskQueues } from '../../src/temporal/taskQueues.js';
import { DEFAULT_CHECKOUT_SETTINGS } from '../../src/terms/checkoutSettings.js';
import { quietLog } from '../gateway/support.js';

const CODEC_TOKEN = 'registry-secrets-codec-token-0123456789';
const API_KEY = 'sk_live_registry_secret_of_tenant_b';
const CUSTOMER = 'Ottilie Readable';

const b64 = (bytes: Uint8Array | string) => Buffer.from(bytes).toString('base64');
type JsonPayload = { metadata: Record<string, string>; data: string };

describe('a sealed registry secret posted to the codec', () => {
  const codec = new EncryptionCodec({ current: { id: 'registry', key: randomBytes(32) } });
  let connection: Connection;
  let gateway: StartedGateway;

  beforeAll(async () => {
    connection = Connection.lazy({ address: inject('temporalAddress') });
    gateway = await startGateway({
      checkout: DEFAULT_CHECKOUT_SETTINGS,
      temporalClient: new Client({ connection, namespace: inject('temporalNamespace') }),
      queues: taskQueues('registry-secrets'),
      openId: 'unused-open-id',
      log: quietLog,
      port: 0,
      host: '127.0.0.1',
      codec: { codec, corsOrigins: [], token: CODEC_TOKEN },
    });
  });
  afterAll(async () => {
    await gateway.close();
    await connection.close();
  });

  async function decode(payload: JsonPayload): Promise<JsonPayload> {
    const res = await fetch(`${gateway.url}/codec/decode`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${CODEC_TOKEN}` },
      body: JSON.stringify({ payloads: [payload] }),
    });
    expect(res.status).toBe(200);
    return ((await res.json()) as { payloads: JsonPayload[] }).payloads[0]!;
  }

  it('comes back still encrypted; a history payload is decoded as before', async () => {
    const sealed = await new SecretBox(codec).seal(API_KEY);
    if (typeof sealed === 'string') throw new Error('the box holds a key: it seals');
    const asPayload = {
      metadata: { encoding: b64(ENCRYPTED_ENCODING), [KEY_ID_METADATA]: b64(sealed.keyId) },
      data: sealed.ciphertext,
    };
    const answered = await decode(asPayload);
    expect(answered).toEqual(asPayload);
    expect(Buffer.from(answered.data, 'base64').toString()).not.toContain(API_KEY);

    const [order] = await codec.encode([
      defaultPayloadConverter.toPayload({ shippingCustomerName: CUSTOMER }),
    ]);
    const history = {
      metadata: Object.fromEntries(
        Object.entries(order!.metadata ?? {}).map(([k, v]) => [k, b64(v)]),
      ),
      data: b64(order!.data ?? new Uint8Array()),
    };
    expect(Buffer.from((await decode(history)).data, 'base64').toString()).toContain(CUSTOMER);
  });
});
