/**
 * One HTTP exchange with the supplier: encode the request the way the endpoint says, decode the
 * envelope, and turn every transport failure into a SupplierTransportError that says whether the
 * supplier may have acted. No retries here: retrying is the caller's (Temporal's) decision.
 */
import { Agent, FormData, request } from 'undici';
import { API_PREFIX, type Endpoint } from './endpoint.js';
import { Envelope } from './envelope.js';
import { SupplierTransportError } from './errors.js';
import { recordSupplierRequest } from './metrics.js';
import type { SendSlot } from './pacing.js';
import { leaveBy, MissedSlot } from './sendDeadline.js';
import { supplierRequestSpan } from './spans.js';

export interface HttpOptions {
  /** Time to establish a connection. */
  connectTimeoutMs: number;
  /** Time from sending the request to the end of the response. */
  requestTimeoutMs: number;
  /** The largest response body read (default MAX_RESPONSE_BYTES); a larger one is an error. */
  maxResponseBytes?: number;
}

/**
 * 8 MiB: the supplier's largest answers (a page of orders or products) are well under 1 MiB. A
 * larger body is not read on (undici stops at the cap): a broken or hostile endpoint cannot make
 * a worker's memory grow with it.
 */
export const MAX_RESPONSE_BYTES = 8 * 1024 * 1024;

export const DEFAULT_HTTP_OPTIONS: HttpOptions = {
  connectTimeoutMs: 5_000,
  requestTimeoutMs: 30_000,
};

/** A file part of a multipart request. */
export interface FilePart {
  filename: string;
  contentType?: string;
  data: Uint8Array;
}

export function isFilePart(v: unknown): v is FilePart {
  return typeof v === 'object' && v !== null && 'data' in v && v.data instanceof Uint8Array;
}

export interface Exchange {
  status: number;
  envelope: Envelope;
}

/** Codes of failures that happen before a byte of the request can have been sent. */
const NOT_SENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'UND_ERR_CONNECT_TIMEOUT']);

export class SupplierHttp {
  private readonly agent: Agent;
  private readonly origin: string;
  private readonly maxResponseBytes: number;

  constructor(
    baseUrl: string,
    private readonly options: HttpOptions = DEFAULT_HTTP_OPTIONS,
  ) {
    this.origin = baseUrl.replace(/\/+$/, '');
    this.maxResponseBytes = options.maxResponseBytes ?? MAX_RESPONSE_BYTES;
    this.agent = new Agent({
      keepAliveTimeout: 30_000,
      connections: 8,
      connectTimeout: options.connectTimeoutMs,
      headersTimeout: options.requestTimeoutMs,
      bodyTimeout: options.requestTimeoutMs,
      maxResponseSize: this.maxResponseBytes,
    });
  }

  /**
   * `signal` aborts the request (an activity cancelled or timed out while waiting for it). With a
   * fleet's `slot`, a request that would leave after it fails unsent with `MissedSlot`. Each
   * exchange is one trace span (supplier/spans.ts).
   */
  send(
    ep: Endpoint,
    input: Record<string, unknown>,
    token?: string,
    signal?: AbortSignal,
    slot?: SendSlot,
  ): Promise<Exchange> {
    const request = { operation: ep.name, method: ep.method, path: API_PREFIX + ep.path };
    return supplierRequestSpan(request, async (record) => {
      try {
        const answer = await this.exchange(ep, input, token, signal, slot);
        const { code, requestId } = answer.envelope;
        record({ status: answer.status, code, ...(requestId != null && { requestId }) });
        return answer;
      } catch (err) {
        if (err instanceof SupplierTransportError) {
          record({
            ...(err.httpStatus !== undefined && { status: err.httpStatus }),
            errorType:
              err.httpStatus !== undefined ? 'no_envelope' : (errorCode(err.cause) ?? 'network'),
          });
        }
        throw err;
      }
    });
  }

  private async exchange(
    ep: Endpoint,
    input: Record<string, unknown>,
    token: string | undefined,
    signal: AbortSignal | undefined,
    slot: SendSlot | undefined,
  ): Promise<Exchange> {
    const url = new URL(this.origin + API_PREFIX + ep.path);
    const headers: Record<string, string> = { accept: 'application/json' };
    if (token !== undefined) headers['Service-Access-Token'] = token;
    let body: string | FormData | undefined;

    if (ep.transport === 'json') {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(input);
    } else if (ep.transport === 'query') {
      appendQuery(url.searchParams, input);
    } else if (ep.transport === 'multipart') {
      body = toFormData(input);
    }

    let status: number;
    let text: string;
    const started = performance.now();
    try {
      const res = await request(url, {
        method: ep.method,
        headers,
        body,
        dispatcher: slot === undefined ? this.agent : this.agent.compose(leaveBy(slot)),
        signal: signal
          ? AbortSignal.any([signal, AbortSignal.timeout(this.options.requestTimeoutMs)])
          : AbortSignal.timeout(this.options.requestTimeoutMs),
      });
      status = res.statusCode;
      text = await res.body.text();
    } catch (err) {
      if (err instanceof MissedSlot) throw err;
      recordSupplierRequest(ep.name, { network: true }, performance.now() - started);
      const code = errorCode(err);
      const sent = code === undefined || !NOT_SENT.has(code);
      const tooLarge = code === 'UND_ERR_RES_EXCEEDED_MAX_SIZE';
      throw new SupplierTransportError(
        ep.name,
        tooLarge
          ? `response body over the cap of ${this.maxResponseBytes} bytes; not read further`
          : `request failed: ${code ?? (err as Error).name}: ${(err as Error).message}`,
        sent && ep.mutates,
        undefined,
        { cause: err },
      );
    }

    const parsed = Envelope.safeParse(safeJson(text));
    const outcome = parsed.success ? { envelopeCode: parsed.data.code, status } : { status };
    recordSupplierRequest(ep.name, outcome, performance.now() - started);
    if (!parsed.success) {
      throw new SupplierTransportError(
        ep.name,
        `HTTP ${status} without the supplier envelope`,
        status >= 500 && ep.mutates,
        status,
      );
    }
    return { status, envelope: parsed.data };
  }

  async close(): Promise<void> {
    await this.agent.close();
  }
}

function appendQuery(params: URLSearchParams, input: Record<string, unknown>): void {
  for (const [key, value] of Object.entries(input)) {
    if (value === undefined || value === null) continue;
    // The supplier reads a list parameter from the name repeated, not from a joined value.
    for (const v of Array.isArray(value) ? value : [value]) params.append(key, String(v));
  }
}

function toFormData(input: Record<string, unknown>): FormData {
  const form = new FormData();
  for (const [key, value] of Object.entries(input)) {
    if (value === undefined || value === null) continue;
    if (isFilePart(value)) {
      const blob = new Blob([value.data], {
        type: value.contentType ?? 'application/octet-stream',
      });
      form.append(key, blob, value.filename);
    } else {
      form.append(key, typeof value === 'string' ? value : JSON.stringify(value));
    }
  }
  return form;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function errorCode(err: unknown): string | undefined {
  if (typeof err !== 'object' || err === null) return undefined;
  const e = err as { code?: unknown; cause?: { code?: unknown } };
  if (typeof e.code === 'string') return e.code;
  if (typeof e.cause?.code === 'string') return e.cause.code;
  return undefined;
}
