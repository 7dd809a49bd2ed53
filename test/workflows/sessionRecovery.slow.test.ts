/**
 * The account's session when the supplier will not give a token: a refused API key (1601000) is
 * recorded, shown and named in every process's failure, and mended by `dropflow account reauth`;
 * refreshes refused for minutes (1600200) give way to getAccessToken within its spacing. The
 * session workflow never fails.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { WorkflowUpdateFailedError } from '@temporalio/client';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';

import { toApplicationFailure } from '../../src/supplier/supplierCall.js';
import { FailureType } from '../../src/supplier/failureDetails.js';
import {
  NO_TOKEN_YET,
  sessionQuery,
  supplierSessionId,
  tokenUpdate,
  type ReauthAnswer,
} from '../../src/session/contract.js';
import { SupplierCode } from '../../src/supplier/errors.js';
import { TokenUnavailable } from '../../src/supplier/tokenSource.js';
import { METRICS } from '../../src/telemetry/metrics.js';
import { startVisibilityGauges } from '../../src/visibilityGauges.js';
import { SessionTokenSource } from '../../src/session/sessionTokens.js';
import { queuePrefix } from '../../src/temporal/taskQueues.js';
import { expireTokens } from '../sandbox/controls.js';
import { runDropflow } from '../support/cli.js';
import { eventually } from '../support/eventually.js';
import { nameScenario } from '../support/histories.js';
import { installMetricsRuntime, samplesOf, scrape } from '../support/metrics.js';
import { useOrderHarness } from '../support/orders.js';
import { accountStats, clearFaults, injectFault, rawCall } from '../support/sandbox.js';

const metricsUrl = installMetricsRuntime();

const OBTAIN = 'authentication/getAccessToken';
const REFRESH = 'authentication/refreshAccessToken';
/** Longer than the test: the window ends when the test clears it. */
const WINDOW_MS = 10 * 60_000;
/** The test sandbox answers getAccessToken once a second per account; the session spaces it so. */
const OBTAIN_INTERVAL_MS = 2_000;

const h = useOrderHarness('session-recovery');
let dataDir: string;
let sessionId: string;
beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'dropflow-session-recovery-'));
  sessionId = supplierSessionId(queuePrefix(h.queues));
});
afterAll(async () => {
  await clearFaults(h.account.openId);
  await rm(dataDir, { recursive: true, force: true });
});

const session = () => h.client.workflow.getHandle(sessionId);

/** The account's key-refused gauge as its workers' /metrics serve it. */
async function keyRefusedGauge(): Promise<number | undefined> {
  const samples = samplesOf(await scrape(await metricsUrl), METRICS.supplierKeyRefused.name, {
    task_queue: h.queues.orders,
  });
  return samples[0]?.value;
}
const tokenSource = () =>
  new SessionTokenSource(h.client, h.queues, { obtainIntervalMs: OBTAIN_INTERVAL_MS });

it('a refused API key is shown and named to processes; after it is mended, reauth brings tokens back', async () => {
  nameScenario(`${sessionId}-key-refused`);
  const openId = h.account.openId;
  await injectFault({ path: OBTAIN, kind: 'keyRefused', openId, forMs: WINDOW_MS });
  const refused = await rawCall(OBTAIN, { body: { apiKey: h.account.apiKey } });
  expect(refused.body.code).toBe(SupplierCode.UserNotFound);

  const source = tokenSource();
  const failure = await source.accessToken().catch((e: unknown) => e);
  expect(failure).toBeInstanceOf(TokenUnavailable);
  expect(toApplicationFailure('getBalance', failure)).toMatchObject({
    type: FailureType.Retryable,
    details: [
      {
        endpoint: 'getBalance',
        noToken: true,
        keyRefused: true,
        noTokenSince: expect.any(String) as string,
      },
    ],
  });

  const view = await session().query(sessionQuery);
  expect(view).toMatchObject({
    hasToken: false,
    keyRefusedSince: expect.any(String) as string,
    noTokenSince: expect.any(String) as string,
  });
  const update = await session()
    .executeUpdate(tokenUpdate, { args: [{}] })
    .catch((e: unknown) => e);
  expect(update).toBeInstanceOf(WorkflowUpdateFailedError);
  expect((update as WorkflowUpdateFailedError).cause).toMatchObject({
    type: NO_TOKEN_YET,
    details: [
      { keyRefused: true, reason: 'supplier key refused', noTokenSince: view.noTokenSince },
    ],
  });

  const gauges = startVisibilityGauges(h.client, h.queues.orders, {
    everyMs: 500,
    log: { debug: () => undefined },
  });
  try {
    await eventually('the key-refused gauge at 1', keyRefusedGauge, (v) => v === 1);
  } finally {
    await gauges.stop();
  }

  // The merchant mends the key; the operator asks the session to use it.
  await clearFaults(openId);
  const run = await runDropflow(['account', 'reauth', queuePrefix(h.queues), '--json'], {
    env: {
      DROPFLOW_DATA_DIR: dataDir,
      TEMPORAL_ADDRESS: inject('temporalAddress'),
      TEMPORAL_NAMESPACE: inject('temporalNamespace'),
    },
  });
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  const answer = JSON.parse(run.stdout) as ReauthAnswer;
  expect(answer).toMatchObject({ outcome: 'renewed', session: { hasToken: true } });
  expect(answer.session.keyRefusedSince).toBeUndefined();
  expect(answer.session.noTokenSince).toBeUndefined();

  const healthy = startVisibilityGauges(h.client, h.queues.orders, {
    everyMs: 500,
    log: { debug: () => undefined },
  });
  try {
    await eventually('the key-refused gauge back at 0', keyRefusedGauge, (v) => v === 0);
  } finally {
    await healthy.stop();
  }
  expect(await source.accessToken()).toMatch(/\S/);
  expect(await source.openId()).toBe(openId);
  expect((await session().describe()).status.name).toBe('RUNNING');
});

it('refreshes refused for minutes give way to getAccessToken, and processes get a token', async () => {
  const openId = h.account.openId;
  const source = tokenSource();
  const first = await source.accessToken();
  const before = await accountStats(openId);

  await injectFault({ path: REFRESH, kind: 'rateLimit', openId, forMs: WINDOW_MS });
  await expireTokens(openId);
  source.invalidate(first);

  const renewed = await eventually(
    'a token though every refresh is refused',
    () => source.accessToken().catch((e: unknown) => e),
    (t) => typeof t === 'string',
    // Three refused refreshes, 12 s then 24 s apart at least, then getAccessToken.
    100_000,
    1_000,
  );
  expect(renewed).not.toBe(first);
  const after = await accountStats(openId);
  expect(after.tokensObtained - before.tokensObtained).toBe(1);
  expect(after.tokensRefreshed - before.tokensRefreshed).toBe(0);
  expect((after.calls[REFRESH] ?? 0) - (before.calls[REFRESH] ?? 0)).toBe(3);

  const view = await session().query(sessionQuery);
  expect(view).toMatchObject({ hasToken: true });
  expect(view.noTokenSince).toBeUndefined();
  expect(view.waitingFor).toBeUndefined();
  expect((await session().describe()).status.name).toBe('RUNNING');
}, 150_000);
