/**
 * Encryption at rest of Temporal payloads (docs/architecture.md §17): workflow and activity inputs
 * and results, signals, queries, updates and memo. AES-256-GCM with a random 12-byte nonce per
 * payload; the whole original Payload (metadata and data) is protobuf-encoded and encrypted, so its
 * encoding is restored on decode. Search attributes and workflow ids are not payloads of a codec:
 * they never carry personal data.
 *
 * Wire format of the data: nonce (12) ‖ ciphertext ‖ GCM tag (16), with metadata
 * `encoding: binary/encrypted` and `encryption-key-id: <id>`, as Temporal's encryption samples do.
 * Payloads that are not encrypted decode unchanged, so histories written before encryption still
 * read. Keys live in KeyObjects: printing the codec never shows them.
 *
 * Failures are encrypted too: with a codec, the failure converter (failureConverter.cjs) moves
 * every failure's message and stack trace into its encoded attributes, a payload like any other,
 * so supplier messages that echo what was sent never sit in history in clear.
 */
import {
  createCipheriv,
  createDecipheriv,
  createSecretKey,
  hkdfSync,
  randomBytes,
  type KeyObject,
} from 'node:crypto';
import { fileURLToPath } from 'node:url';

import {
  METADATA_ENCODING_KEY,
  type DataConverter,
  type Payload,
  type PayloadCodec,
} from '@temporalio/common';
import proto from '@temporalio/proto';

import { UNENCRYPTED_METADATA } from './payloadConverter.cjs';

export const ENCRYPTED_ENCODING = 'binary/encrypted';
export const KEY_ID_METADATA = 'encryption-key-id';

const ProtoPayload = proto.temporal.api.common.v1.Payload;
const ALGORITHM = 'aes-256-gcm';
const NONCE_BYTES = 12;
const TAG_BYTES = 16;
export const KEY_BYTES = 32;

export interface EncryptionKey {
  /** Stored in clear in each payload's metadata: a name, never key material. */
  id: string;
  /** 32 bytes. */
  key: Uint8Array;
}

export interface KeyRing {
  /** Encrypts every new payload; decrypts too. */
  current: EncryptionKey;
  /** Earlier keys, for reading histories written before a rotation. */
  previous?: readonly EncryptionKey[];
}

/** A payload that cannot be decrypted: unknown key id, or authentication failed. */
export class PayloadDecryptionError extends Error {
  override readonly name = 'PayloadDecryptionError';
}

export class EncryptionCodec implements PayloadCodec {
  /** Id of the key new payloads are encrypted with. */
  readonly keyId: string;
  readonly #keys = new Map<string, KeyObject>();

  constructor(ring: KeyRing) {
    this.keyId = ring.current.id;
    for (const { id, key } of [ring.current, ...(ring.previous ?? [])]) {
      if (id === '') throw new Error('an encryption key id must not be empty');
      if (key.length !== KEY_BYTES) {
        throw new Error(`encryption key "${id}" must be ${KEY_BYTES} bytes, not ${key.length}`);
      }
      const secret = createSecretKey(Buffer.from(key));
      const known = this.#keys.get(id);
      if (known !== undefined && !known.equals(secret)) {
        throw new Error(`two different encryption keys share the id "${id}"`);
      }
      this.#keys.set(id, secret);
    }
  }

  /**
   * Keys for a purpose other than payloads, derived from each configured key (HKDF-SHA256 with the
   * purpose as its info), by key id: the payload codec never uses them, so whoever may use the
   * codec (the Temporal UI through the codec server) cannot open what they protect.
   */
  derivedKeys(purpose: string, bytes: number): Map<string, KeyObject> {
    const derived = new Map<string, KeyObject>();
    for (const [id, key] of this.#keys) {
      const material = hkdfSync('sha256', key, new Uint8Array(0), `dropflow ${purpose}`, bytes);
      derived.set(id, createSecretKey(Buffer.from(material)));
    }
    return derived;
  }

  encode(payloads: Payload[]): Promise<Payload[]> {
    const key = this.#keys.get(this.keyId)!;
    return Promise.resolve().then(() =>
      payloads.map((payload) => {
        const nonce = randomBytes(NONCE_BYTES);
        const cipher = createCipheriv(ALGORITHM, key, nonce, { authTagLength: TAG_BYTES });
        const plain = ProtoPayload.encode(payload).finish();
        const data = Buffer.concat([
          nonce,
          cipher.update(plain),
          cipher.final(),
          cipher.getAuthTag(),
        ]);
        return {
          metadata: {
            [METADATA_ENCODING_KEY]: Buffer.from(ENCRYPTED_ENCODING),
            [KEY_ID_METADATA]: Buffer.from(this.keyId),
          },
          data,
        };
      }),
    );
  }

  decode(payloads: Payload[]): Promise<Payload[]> {
    // Errors reject the promise rather than throw from the call.
    return Promise.resolve().then(() => payloads.map((payload) => this.#decodeOne(payload)));
  }

  #decodeOne(payload: Payload): Payload {
    if (metadataText(payload, METADATA_ENCODING_KEY) !== ENCRYPTED_ENCODING) return payload;
    const keyId = metadataText(payload, KEY_ID_METADATA);
    if (keyId === undefined) {
      throw new PayloadDecryptionError(`an encrypted payload has no ${KEY_ID_METADATA} metadata`);
    }
    const key = this.#keys.get(keyId);
    if (key === undefined) {
      throw new PayloadDecryptionError(
        `a payload is encrypted with key id "${keyId}", which is not configured ` +
          '(DROPFLOW_ENCRYPTION_KEY_ID, or an id=key entry of DROPFLOW_DECRYPTION_KEYS)',
      );
    }
    const data = Buffer.from(payload.data ?? new Uint8Array());
    if (data.length < NONCE_BYTES + TAG_BYTES) {
      throw new PayloadDecryptionError(`an encrypted payload (key id "${keyId}") is truncated`);
    }
    const decipher = createDecipheriv(ALGORITHM, key, data.subarray(0, NONCE_BYTES), {
      authTagLength: TAG_BYTES,
    });
    decipher.setAuthTag(data.subarray(data.length - TAG_BYTES));
    let plain: Buffer;
    try {
      plain = Buffer.concat([
        decipher.update(data.subarray(NONCE_BYTES, data.length - TAG_BYTES)),
        decipher.final(),
      ]);
    } catch {
      throw new PayloadDecryptionError(
        `an encrypted payload does not authenticate with key "${keyId}" ` +
          '(altered, or encrypted with another key under that id)',
      );
    }
    return ProtoPayload.decode(plain);
  }
}

function metadataText(payload: Payload, key: string): string | undefined {
  const value = payload.metadata?.[key];
  return value === undefined ? undefined : Buffer.from(value).toString('utf8');
}

/**
 * The codec of dropflow's clients and workers: the encryption codec, and on decode a mark
 * (UNENCRYPTED_METADATA) on each payload that arrived unencrypted, which the payload converter
 * notes for the workflows' inbound guard (inboundGuard.ts). The converters ignore the mark
 * otherwise. The codec server uses the encryption codec alone.
 */
export class MarkingCodec implements PayloadCodec {
  constructor(readonly encryption: EncryptionCodec) {}

  encode(payloads: Payload[]): Promise<Payload[]> {
    return this.encryption.encode(payloads);
  }

  async decode(payloads: Payload[]): Promise<Payload[]> {
    const encrypted = payloads.map(
      (p) => metadataText(p, METADATA_ENCODING_KEY) === ENCRYPTED_ENCODING,
    );
    const decoded = await this.encryption.decode(payloads);
    return decoded.map((p, i) => {
      const { [UNENCRYPTED_METADATA]: _claimed, ...metadata } = p.metadata ?? {};
      return {
        ...p,
        metadata: encrypted[i] ? metadata : { ...metadata, [UNENCRYPTED_METADATA]: MARK },
      };
    });
  }
}

const MARK = Buffer.from('1');

/**
 * The module whose `failureConverter` encodes failure messages and stack traces. Clients and
 * Workers load it from `DataConverter.failureConverterPath` (a Worker given `workflowsPath` also
 * bundles it into the workflow code); code that bundles workflows itself must pass the same path
 * to `bundleWorkflowCode({ failureConverterPath })`, since workflow code converts its failures
 * inside the bundle.
 */
export const FAILURE_CONVERTER_PATH = fileURLToPath(
  new URL('./failureConverter.cjs', import.meta.url),
);

/**
 * The module whose `payloadConverter` notes which payloads arrived unencrypted (see MarkingCodec).
 * Bundled into the workflow code like the failure converter (`bundleWorkflowCode({
 * payloadConverterPath })` where the code is bundled by hand).
 */
export const PAYLOAD_CONVERTER_PATH = fileURLToPath(
  new URL('./payloadConverter.cjs', import.meta.url),
);

/**
 * The data converter of every Client and Worker of dropflow: with a codec, encrypted payloads,
 * encoded failures and unencrypted inbound payloads marked for the workflows' guard; without one,
 * the SDK's default (payloads and failures in clear, nothing refused).
 */
export function dataConverterFor(codec: EncryptionCodec | undefined): DataConverter | undefined {
  return codec === undefined
    ? undefined
    : {
        payloadCodecs: [new MarkingCodec(codec)],
        failureConverterPath: FAILURE_CONVERTER_PATH,
        payloadConverterPath: PAYLOAD_CONVERTER_PATH,
      };
}
