/**
 * One supplier token per account, shared by every process: four worker sets and two gateways of
 * one account, started at once against a sandbox that answers getAccessToken once per 300 s, all
 * get their token from the account's session workflow — one getAccessToken in all. A token the
 * supplier refuses (1600001) is refreshed once for all of them, never obtained again; a refresh
 * refused (1600200) or lost is waited out while calls report "no token" as not sent. The session's
 * history holds the tokens only encrypted.
 */
import { randomBytes } from 'node:crypto';

import { Client, Connection } from '@temporalio/client';
import proto from '@temporalio/proto';
import { bundleWorkflowCode, type WorkflowBundle } from '@temporalio/worker';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';

import { sessionQuery, supplierSessionId } from '../../src/session/contract.js';
import { startGateway, type StartedGateway } from '../../src/gateway/server.js';
import { SupplierClient } from '../../src/supplier/client.js';
import { toApplicationFailure } from '../../src/supplier/supplierCall.js';
import { FailureType } from '../../src/supplier/failureDetails.js';
import { SupplierCode, SupplierError } from '../../src/supplier/errors.js';
import { TokenUnavailable } from '../../src/supplier/tokenSource.js';
import {
  dataConverterFor,
  EncryptionCodec,
  FAILURE_CONVERTER_PATH,
} from '../../src/temporal/encryption.js';
import { SessionTokenSource } from '../../src/session/sessionTokens.js';
import { queuePrefix, taskQueues } from '../../src/temporal/taskQueues.js';
import { createWorkers, type WorkerSet } from '../../src/worker.js';
import { WORKFLOWS_PATH } from '../../src/temporal/workflowBundle.js';
import { changeSettings, expireTokens } from '../sandbox/controls.js';
import { hmac, messageId, orderMessage, push } from '../gateway/support.js';
import { eventually } from '../support/eventually.js';
import {
  accountStats,
  injectFault,
  newSandboxAccount,
  type TestAccount,
} from '../support/sandbox.js';
import { DEFAULT_CHECKOUT_SETTINGS } from '../../src/terms/checkoutSettings.js';

const WORKER_SETS = 4;
const GATEWAYS = 2;
const OBTAIN = 'authentication/getAccessToken';
const REFRESH = 'authentication/refreshAccessToken';
const quietLog = pino({ level: 'warn' }, pino.destination(2));

interface Process {
  connection: Connection;
  tokens: SessionTokenSource;
}
interface WorkerProcess extends Process {
  client: Client;
  supplier: SupplierClient;
  workers: WorkerSet;
  running: Promise<void>;
}
interface GatewayProcess extends Process {
  gateway: StartedGateway;
}

const queues = taskQueues(`shared-token-${process.pid}-${Date.now().toString(36)}`);
const dataConverter = dataConverterFor(
  new EncryptionCodec({ current: { id: 'shared-token', key: randomBytes(32) } }),
);
let account: TestAccount;
let bundle: WorkflowBundle;
let workerProcesses: WorkerProcess[] = [];
let gatewayProcesses: GatewayProcess[] = [];

/** A process's own client to Temporal, encoding payloads like every process of the account. */
async function processClient(): Promise<Process & { client: Client }> {
  const connection = await Connection.connect({ address: inject('temporalAddress') });
  const client = new Client({ connection, namespace: inject('temporalNamespace'), dataConverter });
  return { connection, client, tokens: new SessionTokenSource(client, queues) };
}

/** What `dropflow worker` builds: workers whose supplier client asks the account's session. */
async function startWorkerProcess(): Promise<WorkerProcess> {
  const { connection, client, tokens } = await processClient();
  const supplier = new SupplierClient({ baseUrl: account.url, apiKey: account.apiKey, tokens });
  const workers = await createWorkers({
    address: inject('temporalAddress'),
    namespace: inject('temporalNamespace'),
    queues,
    supplier,
    workflowBundle: bundle,
    dataConverter,
    log: quietLog,
  });
  return { connection, client, tokens, supplier, workers, running: workers.run() };
}

/** What `dropflow gateway` builds: its signing key is the openId the session learned. */
async function startGatewayProcess(): Promise<GatewayProcess> {
  const { connection, client, tokens } = await processClient();
  const gateway = await startGateway({
    checkout: DEFAULT_CHECKOUT_SETTINGS,
    temporalClient: client,
    queues,
    openId: () => tokens.openId(),
    log: quietLog,
    port: 0,
    host: '127.0.0.1',
  });
  return { connection, tokens, gateway };
}

beforeAll(async () => {
  account = await newSandboxAccount();
  // The supplier's own spacing of getAccessToken, for this account only.
  const set = await changeSettings({ openId: account.openId, tokenIntervalSeconds: 300 });
  expect(set.body.tokenIntervalSeconds).toBe(300);
  bundle = await bundleWorkflowCode({
    workflowsPath: WORKFLOWS_PATH,
    failureConverterPath: FAILURE_CONVERTER_PATH,
    logger: { trace() {}, debug() {}, info() {}, warn() {}, error: console.error, log() {} },
  });
});

afterAll(async () => {
  await Promise.all(gatewayProcesses.map((p) => p.gateway.close()));
  await Promise.all(
    workerProcesses.map(async (p) => {
      await p.workers.shutdown();
      await p.running;
      await p.supplier.close();
    }),
  );
  const [first] = [...workerProcesses, ...gatewayProcesses];
  if (first !== undefined) {
    const client = new Client({
      connection: first.connection,
      namespace: inject('temporalNamespace'),
    });
    await client.workflow
      .getHandle(supplierSessionId(queuePrefix(queues)))
      .terminate('test done')
      .catch(() => undefined);
  }
  await Promise.all([...workerProcesses, ...gatewayProcesses].map((p) => p.connection.close()));
  await account.client.close();
});

describe('one supplier token per account', () => {
  it('four worker sets and two gateways started at once obtain one token in all', async () => {
    [workerProcesses, gatewayProcesses] = await Promise.all([
      Promise.all(Array.from({ length: WORKER_SETS }, startWorkerProcess)),
      Promise.all(Array.from({ length: GATEWAYS }, startGatewayProcess)),
    ]);

    // Every worker set calls the supplier with a token; every gateway checks a signed push.
    const balances = await Promise.all(workerProcesses.map((p) => p.supplier.api.getBalance({})));
    for (const b of balances) expect(b.amount).toBeGreaterThanOrEqual(0);
    const pushes = await Promise.all(
      gatewayProcesses.map(async (p) => {
        // The push is verified once the gateway has its signing key from the session.
        expect(await p.tokens.openId()).toBe(account.openId);
        const body = JSON.stringify(
          orderMessage(messageId('shared-token'), {
            orderNumber: `NONE-${randomBytes(4).toString('hex')}`,
          }),
        );
        return push(p.gateway, body, hmac(account.openId, body));
      }),
    );
    for (const answer of pushes) expect(answer.status).toBe(200);

    const tokens = await Promise.all(workerProcesses.map((p) => p.tokens.accessToken()));
    expect(new Set(tokens).size).toBe(1);
    const stats = await accountStats(account.openId);
    expect(stats.calls[OBTAIN]).toBe(1);
    expect(stats.calls[REFRESH]).toBeUndefined();
    expect(stats.tokensObtained).toBe(1);
    expect(stats.rateLimited).toBe(0);
  });

  it('a refused token (1600001) is refreshed once for every process, not obtained again', async () => {
    const before = await accountStats(account.openId);
    const old = await workerProcesses[0]!.tokens.accessToken();
    expect((await expireTokens(account.openId)).body).toMatchObject({ expired: 1 });

    // Each process meets the refusal once with the token it holds, and reports it.
    const refused = await Promise.all(
      workerProcesses.map((p) => p.supplier.api.getBalance({}).catch((e: unknown) => e)),
    );
    for (const err of refused) {
      expect(err).toBeInstanceOf(SupplierError);
      expect(err).toMatchObject({ code: SupplierCode.AuthenticationFailed });
    }
    const balances = await Promise.all(workerProcesses.map((p) => p.supplier.api.getBalance({})));
    for (const b of balances) expect(b.amount).toBeGreaterThanOrEqual(0);

    const tokens = await Promise.all(workerProcesses.map((p) => p.tokens.accessToken()));
    expect(new Set(tokens).size).toBe(1);
    expect(tokens[0]).not.toBe(old);
    const after = await accountStats(account.openId);
    expect(after.calls[OBTAIN]).toBe(1);
    expect((after.calls[REFRESH] ?? 0) - (before.calls[REFRESH] ?? 0)).toBe(1);
    expect(after.tokensRefreshed - before.tokensRefreshed).toBe(1);
    expect(after.rateLimited).toBe(0);

    // The gateways keep their signing key: a refresh does not change the openId.
    const id = await Promise.all(gatewayProcesses.map((p) => p.tokens.openId()));
    expect(id).toEqual(gatewayProcesses.map(() => account.openId));
  });

  it('waits out a refused and a failed refresh, never obtains again, and never fails', async () => {
    const p = workerProcesses[0]!;
    const sessionId = supplierSessionId(queuePrefix(queues));
    const session = p.client.workflow.getHandle(sessionId);
    const before = await accountStats(account.openId);
    await injectFault({ path: REFRESH, kind: 'rateLimit', openId: account.openId });
    await injectFault({ path: REFRESH, kind: 'http5xx', openId: account.openId });
    await expireTokens(account.openId);

    expect(await p.supplier.api.getBalance({}).catch((e: unknown) => e)).toMatchObject({
      code: SupplierCode.AuthenticationFailed,
    });
    // The report starts a refresh the supplier refuses, then fails: no token for a while, and the
    // call is not sent (an activity would report it as such and be retried).
    const waiting = await p.supplier.api.getBalance({}).catch((e: unknown) => e);
    expect(waiting).toBeInstanceOf(TokenUnavailable);
    expect(toApplicationFailure('getBalance', waiting)).toMatchObject({
      type: FailureType.Retryable,
      details: [{ endpoint: 'getBalance', noToken: true }],
    });
    await eventually(
      'the session saying why it has no token',
      () => session.query(sessionQuery),
      (v) => /refreshAccessToken failed/.test(v.waitingFor ?? ''),
    );

    const balance = await eventually(
      'a call with the refreshed token',
      () => p.supplier.api.getBalance({}).catch((e: unknown) => e),
      (b) => !(b instanceof TokenUnavailable),
      // Two refused refreshes wait 12 s, then 24 s, each stretched by up to half again.
      90_000,
    );
    expect(balance).toMatchObject({ amount: expect.any(Number) as number });
    const after = await accountStats(account.openId);
    expect(after.calls[OBTAIN]).toBe(1);
    expect(after.tokensRefreshed - before.tokensRefreshed).toBe(1);
    expect((after.calls[REFRESH] ?? 0) - (before.calls[REFRESH] ?? 0)).toBe(3);
    expect((await session.describe()).status.name).toBe('RUNNING');
    expect((await session.query(sessionQuery)).waitingFor).toBeUndefined();
  }, 180_000);

  it('keeps the tokens out of the clear: the session history is encrypted, its query shows times only', async () => {
    const first = workerProcesses[0]!;
    const token = await first.tokens.accessToken();
    const sessionId = supplierSessionId(queuePrefix(queues));
    const encrypting = new Client({
      connection: first.connection,
      namespace: inject('temporalNamespace'),
      dataConverter,
    });
    const view = await encrypting.workflow.getHandle(sessionId).query(sessionQuery);
    expect(view).toMatchObject({ hasToken: true, renewals: 3 });
    expect(JSON.stringify(view)).not.toContain(token);

    // As anyone with access to Temporal but without the key reads it.
    const plain = new Client({
      connection: first.connection,
      namespace: inject('temporalNamespace'),
    });
    const history = await plain.workflow.getHandle(sessionId).fetchHistory();
    const raw = Buffer.from(proto.temporal.api.history.v1.History.encode(history).finish());
    expect(raw.includes(token)).toBe(false);
    expect(raw.includes(account.apiKey)).toBe(false);
  });
});
