/**
 * A codec server for the Temporal UI and CLI (Temporal's codec server protocol), served only when
 * payloads are encrypted: `POST /codec/encode` and `POST /codec/decode` take and answer
 * `{"payloads": [{"metadata": {"<key>": "<base64>"}, "data": "<base64>"}]}` (Payload in proto3
 * JSON), run through the payload codec: payloads and the encoded attributes of failures (their
 * message and stack trace) alike; a decrypted payload that Temporal did not write (the account
 * registry's sealed secrets) is answered still encrypted. The UI is configured with the endpoint
 * `<gateway>/codec`.
 *
 * Who may call: with a token (CODEC_TOKEN), whoever sends `Authorization: Bearer <token>`; without
 * one, only browsers on an allowed origin (CODEC_CORS_ORIGIN; the UI's in `dropflow dev`). An
 * Origin header is no authentication (any program can write one), so without a token the routes
 * are registered only on a loopback listener (startGateway decides). The UI calls from the
 * browser: preflights (OPTIONS) from an allowed origin are answered with that origin, the
 * `content-type` and `x-namespace` headers and credentials. Payloads are never logged.
 */
import { METADATA_ENCODING_KEY, type Payload, type PayloadCodec } from '@temporalio/common';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';

import type { Logger } from '../telemetry/log.js';
import { PayloadDecryptionError } from '../temporal/encryption.js';
import type { BearerCheck } from './bearer.js';

export const CODEC_PATH = '/codec';

/**
 * Whether a decrypted payload is one Temporal wrote: its converters always name the encoding. The
 * account registry seals its secrets (API keys, store credentials) with the same key, as payloads
 * without one: those are answered as they came, still encrypted, so that whoever may read
 * histories through the codec cannot read the registry's secrets with it.
 */
const isTemporal = (p: Payload): boolean => p.metadata?.[METADATA_ENCODING_KEY] !== undefined;

export interface CodecRouteOptions {
  codec: PayloadCodec;
  /** Browser origins allowed to call (the Temporal UI's), e.g. `http://localhost:8233`. */
  origins: readonly string[];
  /** Set: every call needs the bearer token. Unset: only allowed origins may call. */
  authorized: BearerCheck | undefined;
  /** Whether a token is one the gateway knows for something else (the intake's): 403, not 401. */
  otherToken?: (authorization: string | undefined) => boolean;
  /** Bytes; larger bodies are refused with 413. */
  bodyLimit: number;
  log: Logger;
}

const base64 = z.string().regex(/^[A-Za-z0-9+/_-]*={0,2}$/, { error: 'must be base64' });
const Body = z.object({
  payloads: z.array(
    z.object({
      metadata: z.record(z.string(), base64).nullish(),
      data: base64.nullish(),
    }),
  ),
});

const fromJson = (p: z.infer<typeof Body>['payloads'][number]): Payload => ({
  metadata: Object.fromEntries(
    Object.entries(p.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64')]),
  ),
  data: Buffer.from(p.data ?? '', 'base64'),
});

const toJson = (p: Payload) => ({
  metadata: Object.fromEntries(
    Object.entries(p.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v).toString('base64')]),
  ),
  data: Buffer.from(p.data ?? new Uint8Array()).toString('base64'),
});

export function registerCodecRoutes(app: FastifyInstance, opts: CodecRouteOptions): void {
  const { codec, authorized, log } = opts;
  const allowHeaders = `content-type, x-namespace${authorized === undefined ? '' : ', authorization'}`;

  /** CORS headers for an allowed origin; whether the request came from one. */
  const cors = (req: FastifyRequest, reply: FastifyReply): boolean => {
    reply.header('vary', 'Origin');
    const origin = req.headers.origin;
    if (origin === undefined || !opts.origins.includes(origin)) return false;
    reply
      .header('access-control-allow-origin', origin)
      .header('access-control-allow-credentials', 'true');
    return true;
  };

  const guard = async (req: FastifyRequest, reply: FastifyReply) => {
    const allowedOrigin = cors(req, reply);
    if (authorized !== undefined) {
      if (authorized(req.headers.authorization)) return;
      if (opts.otherToken?.(req.headers.authorization) === true) {
        return reply.code(403).send({ error: 'this token may not use the codec (CODEC_TOKEN)' });
      }
      return reply
        .code(401)
        .header('www-authenticate', 'Bearer')
        .send({ error: 'a valid bearer token is required' });
    }
    if (!allowedOrigin) {
      return reply
        .code(403)
        .send({ error: 'only the Temporal UI (CODEC_CORS_ORIGIN) may call without CODEC_TOKEN' });
    }
  };

  for (const op of ['encode', 'decode'] as const) {
    const path = `${CODEC_PATH}/${op}`;

    // Preflight: browsers send no credentials with it, so it is answered by origin alone.
    app.options(path, async (req, reply) => {
      if (!cors(req, reply)) return reply.code(403).send({ error: 'origin not allowed' });
      return reply
        .code(204)
        .header('access-control-allow-methods', 'POST, OPTIONS')
        .header('access-control-allow-headers', allowHeaders)
        .header('access-control-max-age', '600')
        .send();
    });

    app.post(path, { bodyLimit: opts.bodyLimit, onRequest: guard }, async (req, reply) => {
      const body = Body.safeParse(req.body);
      if (!body.success) {
        return reply.code(400).send({
          errors: body.error.issues.map((i) => ({ field: i.path.join('.'), rule: i.message })),
        });
      }
      try {
        const given = body.data.payloads.map(fromJson);
        const payloads = await codec[op](given);
        const shown =
          op === 'decode' ? payloads.map((p, i) => (isTemporal(p) ? p : given[i]!)) : payloads;
        return await reply.send({ payloads: shown.map(toJson) });
      } catch (err) {
        if (!(err instanceof PayloadDecryptionError)) throw err;
        log.warn({ reason: err.message }, `codec: ${op} refused`);
        return reply.code(400).send({ error: err.message });
      }
    });
  }
}
