/**
 * One supplier operation: how it is sent and what it takes and returns. Definitions live in
 * `api/<area>.ts`, named after the operation (`createOrderV3`, `addCart`, …); the client and the
 * sandbox both work from them, so a newcomer finds an endpoint by its name alone.
 */
import type { z } from 'zod';

export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE';

/**
 * - json: JSON body. - query: query string, list parameters repeated by name.
 * - multipart: multipart/form-data (waybill upload). - none: no parameters.
 */
export type Transport = 'json' | 'query' | 'multipart' | 'none';

/**
 * Which per-account rate the call spends: the general limit (about 1/s), the batch order query
 * and proof of delivery limit (2/s), or the token endpoints' own (paced far below theirs).
 */
export type RateClass = 'standard' | 'batch' | 'token';

export interface Endpoint<Req extends z.ZodType = z.ZodType, Res extends z.ZodType = z.ZodType> {
  name: string;
  method: HttpMethod;
  /** Path after `/api2.0/v1/`. */
  path: string;
  transport: Transport;
  request: Req;
  /** Schema of the envelope's `data`. */
  response: Res;
  /** Whether the `Service-Access-Token` header is sent. */
  auth: boolean;
  rate: RateClass;
  /**
   * The supplier changes state when it serves this call, so a lost response is ambiguous and must
   * be reconciled by a look-up before another attempt.
   */
  mutates: boolean;
}

export type RequestOf<E extends Endpoint> = z.input<E['request']>;
export type ResponseOf<E extends Endpoint> = z.output<E['response']>;

type Defaults = 'auth' | 'rate' | 'mutates' | 'transport';

/** Declares an endpoint; defaults: token required, standard rate, JSON for POST, query otherwise. */
export function endpoint<Req extends z.ZodType, Res extends z.ZodType>(
  def: Omit<Endpoint<Req, Res>, Defaults> & Partial<Pick<Endpoint<Req, Res>, Defaults>>,
): Endpoint<Req, Res> {
  return {
    auth: true,
    rate: 'standard',
    mutates: def.method !== 'GET',
    transport: def.method === 'POST' || def.method === 'PATCH' ? 'json' : 'query',
    ...def,
  };
}

export const API_PREFIX = '/api2.0/v1/';
