/**
 * Which supplier `dropflow dev` runs against: its own sandbox, or — with SUPPLIER_BASE_URL, as
 * `dropflow worker` — that supplier, with SUPPLIER_API_KEY and no sandbox.
 */
import { supplierTarget, type Config } from '../config/environment.js';

export type DevSupplier =
  | { kind: 'sandbox'; port: number; apiKey: string }
  | { kind: 'remote'; baseUrl: string; apiKey: string };

export function devSupplier(config: Config, sandboxPort?: number): DevSupplier {
  if (config.SUPPLIER_BASE_URL === undefined) {
    return {
      kind: 'sandbox',
      port: sandboxPort ?? config.SANDBOX_PORT,
      apiKey: config.SANDBOX_API_KEY,
    };
  }
  // Refuses SUPPLIER_BASE_URL without SUPPLIER_API_KEY, as the worker does.
  return { kind: 'remote', ...supplierTarget(config) };
}

/** The supplier's address as it may be shown: no credentials, query or fragment. */
export function shownSupplierUrl(baseUrl: string): string {
  const url = new URL(baseUrl);
  return `${url.protocol}//${url.host}${url.pathname === '/' ? '' : url.pathname}`;
}
