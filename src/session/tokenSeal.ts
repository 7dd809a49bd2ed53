/**
 * The supplier's tokens as the session workflow holds them: sealed, so that no history shows them,
 * even to whoever may use the payload codec (the Temporal UI through the gateway's codec server).
 * The session's activities seal what the supplier issues (access token, refresh token, openId);
 * the processes that ask the session for a token open it (session/sessionTokens.ts); the workflow
 * only keeps, compares and hands on the sealed strings.
 *
 * The key is derived from the payload key (HKDF, purpose `session tokens`), one per configured key
 * id, so rotation works as for payloads and no new secret must be handed out; the codec never uses
 * it. Sealing is AES-256-GCM with a nonce derived from the token (HMAC-SHA256): the same token gives
 * the same sealed string under the same key, which the session relies on to recognise a token a
 * process reports refused and a refresh that gave the same token back. Format:
 * `sealed:v1:<key id>:<base64url(nonce ‖ ciphertext ‖ tag)>`.
 *
 * A value without the prefix is a token in clear, as sessions of earlier releases (and processes run
 * with --insecure) hold them: opened as it is.
 */
import {
  createCipheriv,
  createDecipheriv,
  createHmac,
  createSecretKey,
  type KeyObject,
} from 'node:crypto';

import type { PayloadCodec } from '@temporalio/common';

import { EncryptionCodec, MarkingCodec } from '../temporal/encryption.js';

const PREFIX = 'sealed:v1:';
const PURPOSE = 'session tokens';
const NONCE_BYTES = 12;
const TAG_BYTES = 16;

/** A sealed token this process cannot open: unknown key id, or altered. */
export class TokenSealError extends Error {
  override readonly name = 'TokenSealError';
}

interface SealKeys {
  cipher: KeyObject;
  nonce: KeyObject;
}

export class TokenSeal {
  readonly #current: string;
  readonly #keys = new Map<string, SealKeys>();

  constructor(codec: EncryptionCodec) {
    this.#current = codec.keyId;
    for (const [id, key] of codec.derivedKeys(PURPOSE, 64)) {
      const bytes = key.export();
      this.#keys.set(id, {
        cipher: createSecretKey(bytes.subarray(0, 32)),
        nonce: createSecretKey(bytes.subarray(32)),
      });
    }
  }

  seal(token: string): string {
    const { cipher, nonce: nonceKey } = this.#keys.get(this.#current)!;
    const nonce = createHmac('sha256', nonceKey).update(token).digest().subarray(0, NONCE_BYTES);
    const c = createCipheriv('aes-256-gcm', cipher, nonce, { authTagLength: TAG_BYTES });
    const sealed = Buffer.concat([nonce, c.update(token, 'utf8'), c.final(), c.getAuthTag()]);
    return `${PREFIX}${this.#current}:${sealed.toString('base64url')}`;
  }

  /** The token of a sealed value; a value in clear as it is. */
  open(value: string): string {
    if (!isSealed(value)) return value;
    const rest = value.slice(PREFIX.length);
    const colon = rest.lastIndexOf(':');
    const id = rest.slice(0, colon);
    const keys = this.#keys.get(id);
    if (keys === undefined) {
      throw new TokenSealError(
        `a supplier token is sealed with key id "${id}", which this process does not have ` +
          '(DROPFLOW_ENCRYPTION_KEY_ID, or an id=key entry of DROPFLOW_DECRYPTION_KEYS)',
      );
    }
    const data = Buffer.from(rest.slice(colon + 1), 'base64url');
    try {
      const d = createDecipheriv('aes-256-gcm', keys.cipher, data.subarray(0, NONCE_BYTES), {
        authTagLength: TAG_BYTES,
      });
      d.setAuthTag(data.subarray(data.length - TAG_BYTES));
      const plain = d.update(data.subarray(NONCE_BYTES, data.length - TAG_BYTES));
      return Buffer.concat([plain, d.final()]).toString('utf8');
    } catch {
      throw new TokenSealError(`a sealed supplier token does not open with key "${id}"`);
    }
  }
}

export function isSealed(value: string): boolean {
  return value.startsWith(PREFIX);
}

/**
 * The seal of a process whose payloads are encrypted (the codec among `codecs`); none without a
 * key: tokens then travel in clear, as every payload does (--insecure).
 */
export function tokenSealFor(codecs: readonly PayloadCodec[] | undefined): TokenSeal | undefined {
  for (const c of codecs ?? []) {
    if (c instanceof EncryptionCodec) return new TokenSeal(c);
    if (c instanceof MarkingCodec) return new TokenSeal(c.encryption);
  }
  return undefined;
}
