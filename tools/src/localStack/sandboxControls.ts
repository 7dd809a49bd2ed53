/**
 * The sandbox's test controls (/__sandbox/…) for the chaos account: faults, settings, token
 * expiry. Controls another version of the sandbox may not have yet answer `false`, not an error,
 * so the report can say what was left out.
 */
import type { FaultKind } from '../sandbox/faults.js';
import type { SandboxStats } from '../sandbox/state.js';

/** The sandbox's daily-quota fault (1600201); not every sandbox version knows it. */
export const QUOTA_FAULT = 'quota';
export type SandboxFaultKind = FaultKind | typeof QUOTA_FAULT;

export interface FaultRequest {
  /** Endpoint path after /api2.0/v1/, or `*`. */
  path: string;
  kind: SandboxFaultKind;
  times: number;
  /** Instead of `times`: every matching call for this many ms (refused refreshes, a refused key). */
  forMs?: number;
  latencyMs?: number;
}

export interface PendingFault {
  path: string;
  kind: string;
  times: number;
  /** A window: every matching call until it ends. */
  forMs?: number;
  openId?: string;
}

export interface SandboxOrderBrief {
  openId: string;
  orderNumber: string;
  paid: boolean;
}

export interface SandboxSettings {
  batchLagMs?: number;
  payWindowSeconds?: number;
}

export class SandboxControls {
  constructor(
    readonly baseUrl: string,
    readonly openId: string,
  ) {}

  /**
   * A fresh account: its own rate limit, balance and orders; `tier` its general limit
   * (requests/s), `oneBudget` whether the batch queries spend it too.
   */
  static async createAccount(
    baseUrl: string,
    balance: number,
    limits: { tier?: number; oneBudget?: boolean } = {},
  ): Promise<{ apiKey: string; openId: string }> {
    const res = await post(baseUrl, '/__sandbox/accounts', {
      balance,
      ...(limits.tier !== undefined && { ratePerSecond: limits.tier }),
      ...(limits.oneBudget !== undefined && { oneBudget: limits.oneBudget }),
    });
    if (res.status !== 201) throw new Error(`creating a sandbox account: HTTP ${res.status}`);
    return (await res.json()) as { apiKey: string; openId: string };
  }

  /** Every order the sandbox holds: whose, its number, whether it is paid. */
  static async orders(baseUrl: string): Promise<SandboxOrderBrief[]> {
    const res = await fetch(`${baseUrl}/__sandbox/orders`);
    if (res.status !== 200) throw new Error(`listing the sandbox's orders: HTTP ${res.status}`);
    return ((await res.json()) as { orders: SandboxOrderBrief[] }).orders;
  }

  /** The account's counters: requests by endpoint, refusals, the peak requests in any 1 s. */
  async stats(): Promise<SandboxStats> {
    const res = await fetch(`${this.baseUrl}/__sandbox/stats?openId=${this.query}`);
    if (res.status !== 200) throw new Error(`reading the account's stats: HTTP ${res.status}`);
    return (await res.json()) as SandboxStats;
  }

  /** Starts the account's counters again from zero: what follows is a measure of its own. */
  async resetStats(): Promise<void> {
    const res = await fetch(`${this.baseUrl}/__sandbox/stats?openId=${this.query}`, {
      method: 'DELETE',
    });
    if (res.status !== 200) throw new Error(`resetting the account's stats: HTTP ${res.status}`);
  }

  private get query(): string {
    return encodeURIComponent(this.openId);
  }

  /** Arms a fault for this account; false when the sandbox does not know the kind. */
  async addFault(fault: FaultRequest): Promise<boolean> {
    const res = await post(this.baseUrl, '/__sandbox/faults', { ...fault, openId: this.openId });
    if (res.status === 201) return true;
    if (res.status === 400) return false;
    throw new Error(`arming a ${fault.kind} fault: HTTP ${res.status}`);
  }

  /** The account's faults not used up yet. */
  async pendingFaults(): Promise<PendingFault[]> {
    const res = await fetch(`${this.baseUrl}/__sandbox/faults`);
    if (res.status !== 200) throw new Error(`listing faults: HTTP ${res.status}`);
    const all = (await res.json()) as PendingFault[];
    return all.filter((f) => f.openId === this.openId);
  }

  async clearFaults(): Promise<void> {
    await fetch(`${this.baseUrl}/__sandbox/faults?openId=${encodeURIComponent(this.openId)}`, {
      method: 'DELETE',
    });
  }

  /** Account settings such as batch-query lag; false when the sandbox has no settings control. */
  async settings(settings: SandboxSettings): Promise<boolean> {
    const res = await post(this.baseUrl, '/__sandbox/settings', {
      openId: this.openId,
      ...settings,
    });
    return res.ok;
  }

  /** Expires the account's current tokens; false when the sandbox has no such control. */
  async expireTokens(): Promise<boolean> {
    const res = await post(this.baseUrl, '/__sandbox/tokens/expire', { openId: this.openId });
    return res.ok;
  }
}

function post(baseUrl: string, path: string, body: unknown): Promise<Response> {
  return fetch(`${baseUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}
