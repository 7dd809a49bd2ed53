/**
 * The typed supplier client. `client.call(createOrderV3, order)` validates the request against the
 * endpoint's schema (nothing invalid is sent), paces it, sends it once (once more after a 1600200,
 * which the supplier answers before acting), and returns the parsed `data` or throws a classified
 * error. `client.api.createOrderV3(order)` is the same, by name.
 */
import { createHash } from 'node:crypto';
import { endpoints } from './api/index.js';
import type { Endpoint, RequestOf, ResponseOf } from './endpoint.js';
import { openEnvelope } from './envelope.js';
import { SupplierCode, SupplierRequestInvalid } from './errors.js';
import { DEFAULT_HTTP_OPTIONS, SupplierHttp, type Exchange, type HttpOptions } from './http.js';
import { toFieldIssues } from './issues.js';
import type { FleetView } from './fleet.js';
import { gridPhaseOf, pacingFor, type AccountPacing, type SendSlot } from './pacing.js';
import { MissedSlot } from './sendDeadline.js';
import { TokenExchange } from './tokenExchange.js';
import { tokenManagerFor } from './tokens.js';
import type { TokenSource } from './tokenSource.js';

export interface SupplierConfig {
  baseUrl: string;
  apiKey: string;
  /** Requests per second of the account: one budget for every request (tier: 1, 2, 4 or 6). */
  ratePerSecond?: number;
  /** Requests per second of getOrderDetailBatch and getProofOfDelivery, within that budget. */
  batchRatePerSecond?: number;
  /** The fleet this process is one of (fleet.ts); none: the only one. */
  fleet?: FleetView;
  http?: Partial<HttpOptions>;
  /** Minimum spacing of token calls; see TOKEN_CALL_INTERVAL_MS. */
  tokenCallIntervalMs?: number;
  /** Where access tokens come from; default: this process's cache (tokens.ts). */
  tokens?: TokenSource;
}

export interface CallOptions {
  /** Aborts the request, or the wait for its slot: a cancelled or timed out activity stops. */
  signal?: AbortSignal;
  /** Place in the account's line (1 … 5, lower first; durable/supplierPriority.ts). */
  priority?: number;
  /** Throw `PaceTooLong` rather than wait longer than this for the account's next slot. */
  maxPaceWaitMs?: number;
}

export interface CallResult<T> {
  data: T;
  requestId: string | undefined;
}

/** Times a call refused with 1600200 is sent again before the refusal reaches the caller. */
const RESENDS_AFTER_TOO_MANY_REQUESTS = 1;

type Endpoints = typeof endpoints;
export type SupplierApi = {
  [K in keyof Endpoints]: (input: RequestOf<Endpoints[K]>) => Promise<ResponseOf<Endpoints[K]>>;
};

export class SupplierClient {
  readonly api: SupplierApi;
  readonly tokens: TokenSource;
  /** The account's token endpoints, uncached: what the account's session workflow calls. */
  readonly tokenCalls: TokenExchange;
  private readonly http: SupplierHttp;
  private pacing: AccountPacing;
  private readonly accountKey: string;
  /** The account's API key, hashed: who the account is, for every process of a fleet. */
  private readonly keyDigest: string;

  constructor(private readonly config: SupplierConfig) {
    const http = { ...DEFAULT_HTTP_OPTIONS, ...config.http };
    this.http = new SupplierHttp(config.baseUrl, http);
    this.tokens =
      config.tokens ??
      tokenManagerFor(config.baseUrl, config.apiKey, {
        http,
        tokenCallIntervalMs: config.tokenCallIntervalMs,
      });
    this.tokenCalls = new TokenExchange(this.http, config.apiKey);
    this.keyDigest = createHash('sha256').update(config.apiKey).digest('hex');
    this.accountKey = `${config.baseUrl}|${this.keyDigest}`;
    this.pacing = this.pacingAt(config.ratePerSecond ?? 1);
    this.api = Object.fromEntries(
      Object.entries(endpoints).map(([name, ep]) => [
        name,
        (input: Record<string, unknown>) => this.call<Endpoint>(ep, input),
      ]),
    ) as unknown as SupplierApi;
  }

  /** Validates, paces and sends one request; returns the envelope's parsed `data`. */
  async call<E extends Endpoint>(
    ep: E,
    input: RequestOf<E>,
    options: CallOptions = {},
  ): Promise<ResponseOf<E>> {
    return (await this.exchange(ep, input, options)).data;
  }

  /** Like `call`, also returning the supplier's requestId. */
  async exchange<E extends Endpoint>(
    ep: E,
    input: RequestOf<E>,
    options: CallOptions = {},
  ): Promise<CallResult<ResponseOf<E>>> {
    const checked = ep.request.safeParse(input ?? {});
    if (!checked.success) throw new SupplierRequestInvalid(ep.name, toFieldIssues(checked.error));

    const token = ep.auth ? await this.tokens.accessToken() : undefined;
    const answer = await this.sendPaced(
      ep,
      checked.data as Record<string, unknown>,
      token,
      options,
    );
    if (answer.envelope.code === SupplierCode.AuthenticationFailed && token !== undefined) {
      this.tokens.invalidate(token);
    }
    const { data, requestId } = openEnvelope(ep.name, answer, ep.response);
    return { data: data as ResponseOf<E>, requestId };
  }

  /**
   * Paces the account's next calls at `ratePerSecond` (a new tier): the client, its connections
   * and its token source stay; calls already waiting for a slot keep their place in the old line.
   */
  setRate(ratePerSecond: number): void {
    this.pacing = this.pacingAt(ratePerSecond);
  }

  private pacingAt(perSecond: number): AccountPacing {
    const { config } = this;
    return pacingFor(this.accountKey, {
      perSecond,
      batchPerSecond: config.batchRatePerSecond ?? 2,
      ...(config.fleet !== undefined && {
        fleet: config.fleet,
        gridPhase: gridPhaseOf(this.keyDigest),
      }),
    });
  }

  /** The supplier's API root this client calls. */
  get baseUrl(): string {
    return this.config.baseUrl;
  }

  async close(): Promise<void> {
    await this.http.close();
  }

  /**
   * Paces and sends. A 1600200 is the supplier refusing before it acts: the account slows down
   * (pacing.ts) and the call is sent again once, at its next slot, since calls paced exactly at the
   * rate meet the odd refusal when the network delays one more than the next. In a fleet, a call
   * that would leave after its slot is not sent (`MissedSlot`) and waits for the next one.
   */
  private async sendPaced(
    ep: Endpoint,
    body: Record<string, unknown>,
    token: string | undefined,
    options: CallOptions,
  ): Promise<Exchange> {
    for (let resends = 0; ; resends++) {
      const answer = await this.sendInSlot(ep, body, token, options);
      if (ep.rate === 'token') return answer.exchange;
      this.pacing.answered(answer.exchange.envelope.code, answer.sentAt);
      const refused = answer.exchange.envelope.code === SupplierCode.TooManyRequests;
      if (!refused || resends >= RESENDS_AFTER_TOO_MANY_REQUESTS) return answer.exchange;
    }
  }

  /**
   * One send at the call's slot. In a fleet, a slot missed at the write is let go for the next,
   * within the one pacing bound (`maxPaceWaitMs`) of this send.
   */
  private async sendInSlot(
    ep: Endpoint,
    body: Record<string, unknown>,
    token: string | undefined,
    options: CallOptions,
  ): Promise<{ exchange: Exchange; sentAt: number }> {
    const bound = options.maxPaceWaitMs;
    const paceUntil = bound === undefined ? undefined : Date.now() + bound;
    for (;;) {
      const left =
        paceUntil === undefined ? options : { ...options, maxPaceWaitMs: paceUntil - Date.now() };
      const slot = await this.pace(ep, left);
      const sentAt = Date.now();
      try {
        return { exchange: await this.http.send(ep, body, token, options.signal, slot), sentAt };
      } catch (err) {
        if (!(err instanceof MissedSlot)) throw err;
      }
    }
  }

  /** Waits for the call's slot; in a fleet, the slot it must leave in. */
  private async pace(ep: Endpoint, options: CallOptions): Promise<SendSlot | undefined> {
    if (ep.rate === 'token') {
      await this.tokens.pace();
      return undefined;
    }
    return this.pacing.take(ep.rate, {
      signal: options.signal,
      priority: options.priority,
      maxWaitMs: options.maxPaceWaitMs,
    });
  }
}
