/** Authentication (docs/supplier-api.md §3). */
import { z } from 'zod';
import { endpoint } from '../endpoint.js';
import { id, optStr, record, text } from '../fields.js';

/** Token record (docs/supplier-api.md §3.1). openId only comes from getAccessToken. */
export const TokenRecord = record({
  openId: id.optional(),
  accessToken: z.string(),
  accessTokenExpiryDate: z.string(),
  refreshToken: z.string(),
  refreshTokenExpiryDate: z.string(),
  createDate: optStr,
});
export type TokenRecord = z.infer<typeof TokenRecord>;

export const getAccessToken = endpoint({
  name: 'getAccessToken',
  method: 'POST',
  path: 'authentication/getAccessToken',
  request: z.object({ apiKey: text(200) }),
  response: TokenRecord,
  auth: false,
  rate: 'token',
  mutates: false,
});

export const refreshAccessToken = endpoint({
  name: 'refreshAccessToken',
  method: 'POST',
  path: 'authentication/refreshAccessToken',
  request: z.object({ refreshToken: text(80) }),
  response: TokenRecord,
  auth: false,
  rate: 'token',
  mutates: false,
});

export const logout = endpoint({
  name: 'logout',
  method: 'POST',
  path: 'authentication/logout',
  transport: 'none',
  request: z.object({}),
  response: z.unknown(),
  rate: 'token',
});

export const authEndpoints = { getAccessToken, refreshAccessToken, logout } as const;
