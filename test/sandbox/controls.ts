/** Calls of the /__sandbox/ controls added for a worse supplier: settings, token and pay expiry. */
import type { SandboxSettings } from '../../tools/src/sandbox/state.js';
import { sandboxUrl } from '../support/sandbox.js';

export interface ControlAnswer<T> {
  status: number;
  body: T;
}

/** A control call against `baseUrl` (default: the shared test sandbox). */
export async function control<T = Record<string, unknown>>(
  method: 'GET' | 'POST' | 'DELETE',
  path: string,
  body?: unknown,
  baseUrl = sandboxUrl(),
): Promise<ControlAnswer<T>> {
  const res = await fetch(`${baseUrl}/__sandbox/${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as T };
}

export type SettingsAnswer = SandboxSettings & { openId?: string };

/** POST /__sandbox/settings; a null value makes the account follow the default again. */
export function changeSettings(
  change: { openId?: string } & { [K in keyof SandboxSettings]?: SandboxSettings[K] | null },
  baseUrl?: string,
): Promise<ControlAnswer<SettingsAnswer>> {
  return control<SettingsAnswer>('POST', 'settings', change, baseUrl);
}

/** GET /__sandbox/settings[?openId=] */
export function readSettings(
  openId?: string,
  baseUrl?: string,
): Promise<ControlAnswer<SettingsAnswer>> {
  const query = openId === undefined ? '' : `?openId=${encodeURIComponent(openId)}`;
  return control<SettingsAnswer>('GET', `settings${query}`, undefined, baseUrl);
}

export interface ExpiredPayment {
  shipmentOrderId: string;
  payId: string;
  payExpireTime: string;
}

/** POST /__sandbox/orders/<svcOrderId>/expire-payment */
export function expirePayment(
  svcOrderId: string,
  baseUrl?: string,
): Promise<ControlAnswer<ExpiredPayment>> {
  return control<ExpiredPayment>(
    'POST',
    `orders/${encodeURIComponent(svcOrderId)}/expire-payment`,
    {},
    baseUrl,
  );
}

/** POST /__sandbox/tokens/expire */
export function expireTokens(openId: string): Promise<ControlAnswer<{ expired: number }>> {
  return control<{ expired: number }>('POST', 'tokens/expire', { openId });
}
