/** Test helpers for the shared sandbox: a fresh account per test file, raw calls, stats, faults. */
import { afterAll, beforeAll, expect, inject } from 'vitest';
import { SupplierClient } from '../../src/supplier/client.js';
import type { FaultRule } from '../../tools/src/sandbox/faults.js';
import type { SandboxStats } from '../../tools/src/sandbox/state.js';

export { takenCalls } from '../../tools/src/sandbox/state.js';

export function sandboxUrl(): string {
  return inject('sandboxUrl');
}

export interface TestAccount {
  url: string;
  apiKey: string;
  openId: string;
  client: SupplierClient;
}

/**
 * A new sandbox account (own rate limit, balance and orders) and a client for it; `ratePerSecond`
 * is the account's tier (the sandbox's limit and the client's pace), 1 unless given; `key` its
 * API key, when a client already holds it (unknown to the sandbox until now).
 */
export async function newSandboxAccount(
  balance?: number,
  ratePerSecond?: number,
  key?: string,
): Promise<TestAccount> {
  const url = sandboxUrl();
  const res = await fetch(`${url}/__sandbox/accounts`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      ...(balance !== undefined && { balance }),
      ...(key !== undefined && { apiKey: key }),
    }),
  });
  if (res.status !== 201) throw new Error(`creating a sandbox account: HTTP ${res.status}`);
  const { apiKey, openId } = (await res.json()) as { apiKey: string; openId: string };
  if (ratePerSecond !== undefined) {
    const set = await fetch(`${url}/__sandbox/settings`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ openId, ratePerSecond }),
    });
    if (set.status !== 200) throw new Error(`setting the account's rate: HTTP ${set.status}`);
  }
  // Token calls at the sandbox's documented 1/s rather than the production spacing.
  const client = new SupplierClient({
    baseUrl: url,
    apiKey,
    tokenCallIntervalMs: 1_000,
    ...(ratePerSecond !== undefined && { ratePerSecond }),
  });
  return { url, apiKey, openId, client };
}

/**
 * `count` fresh accounts for the test file: made before its tests (handed to `use`), their
 * clients closed after them.
 */
export function sandboxAccountsForFile(
  count: number,
  use: (accounts: TestAccount[]) => void,
): void {
  let made: TestAccount[] = [];
  beforeAll(async () => {
    made = await Promise.all(Array.from({ length: count }, () => newSandboxAccount()));
    use(made);
  });
  afterAll(async () => {
    await Promise.all(made.map((a) => a.client.close()));
  });
}

export interface RawAnswer {
  status: number;
  body: { code: number; result: boolean; message: string; data: unknown; requestId: string };
}

/** A call that bypasses the client (and its validation), as another integration might send it. */
export async function rawCall(
  path: string,
  init: {
    method?: string;
    token?: string;
    body?: unknown;
    query?: Record<string, string | string[]>;
  } = {},
): Promise<RawAnswer> {
  const url = new URL(`${sandboxUrl()}/api2.0/v1/${path}`);
  for (const [k, v] of Object.entries(init.query ?? {})) {
    for (const item of Array.isArray(v) ? v : [v]) url.searchParams.append(k, item);
  }
  const headers: Record<string, string> = {};
  if (init.token !== undefined) headers['Service-Access-Token'] = init.token;
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(url, {
    method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
    headers,
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  return { status: res.status, body: (await res.json()) as RawAnswer['body'] };
}

export async function accountStats(openId: string): Promise<SandboxStats> {
  const res = await fetch(`${sandboxUrl()}/__sandbox/stats?openId=${openId}`);
  return (await res.json()) as SandboxStats;
}

export async function injectFault(
  rule: Partial<FaultRule> & Pick<FaultRule, 'path' | 'kind'>,
): Promise<void> {
  const res = await fetch(`${sandboxUrl()}/__sandbox/faults`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(rule),
  });
  if (res.status !== 201)
    throw new Error(`injecting a fault: HTTP ${res.status} ${await res.text()}`);
}

/** Clears the faults still pending for one account: the supplier is well again. */
export async function clearFaults(openId: string): Promise<void> {
  const res = await fetch(`${sandboxUrl()}/__sandbox/faults?openId=${encodeURIComponent(openId)}`, {
    method: 'DELETE',
  });
  if (res.status !== 200 && res.status !== 204) {
    throw new Error(`clearing faults: HTTP ${res.status} ${await res.text()}`);
  }
}

/** Sets the account's balance at the sandbox (a top-up, or none left). */
export async function setBalance(openId: string, amount: number): Promise<void> {
  const res = await fetch(`${sandboxUrl()}/__sandbox/balance`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ openId, amount }),
  });
  expect(res.status).toBe(200);
}
