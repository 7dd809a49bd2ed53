/**
 * Door 1 of issue 28, second half: the payload codec accepted unencrypted payloads, so whoever
 * reached Temporal's frontend could send forged plaintext signals, updates and starts that the
 * workflows acted on. Now, with a key, the workflows' inbound guard refuses them: a signal is
 * dropped (the history records the refusal), an update is rejected, a started workflow ends having
 * done nothing. Histories written before the key, whose plaintext messages were accepted, replay
 * through the guard as they ran.
 */
import { randomBytes } from 'node:crypto';

import { Client, Connection, WorkflowUpdateFailedError } from '@temporalio/client';
import { Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';

import { ORDER_WORKFLOW, orderWorkflowId } from '../../src/order/contract.js';
import { tokenUpdate } from '../../src/session/contract.js';
import { accountSessionId, SessionTokenSource } from '../../src/session/sessionTokens.js';
import { Patch } from '../../src/durable/versions.js';
import {
  dataConverterFor,
  EncryptionCodec,
  FAILURE_CONVERTER_PATH,
} from '../../src/temporal/encryption.js';
import { workflowBundleOptions, WORKFLOWS_PATH } from '../../src/temporal/workflowBundle.js';
import { DEFAULT_ACCOUNT } from '../../src/accounts/contract.js';
import { sweeperSettingsSignal, sweeperStatusQuery } from '../../src/tracking/contract.js';
import { ensureTrackingSweeper } from '../../src/tracking/sweeperStart.js';
import { sharedWorkflowBundle } from '../support/bundles.js';
import { eventually } from '../support/eventually.js';
import { loadHistories } from '../support/histories.js';
import { useOrderHarness, validOrder } from '../support/orders.js';
import { usOrder } from '../supplier/orderHelpers.js';

const key = { id: 'plaintext-test', key: randomBytes(32) };
const h = useOrderHarness('codec-plaintext', undefined, { encryptionKey: key });

/**
 * A client of someone who reaches the frontend without the key: what it sends is in clear. It
 * reads answers with the key only so that the test sees why it was refused.
 */
let stranger: Client;
let connection: Connection;
beforeAll(async () => {
  connection = await Connection.connect({ address: inject('temporalAddress') });
  const codec = new EncryptionCodec({ current: key });
  stranger = new Client({
    connection,
    namespace: inject('temporalNamespace'),
    dataConverter: {
      payloadCodecs: [{ encode: (p) => Promise.resolve(p), decode: (p) => codec.decode(p) }],
      failureConverterPath: FAILURE_CONVERTER_PATH,
    },
  });
});
afterAll(async () => {
  await connection.close();
});

/** Whether the workflow's history records the guard's refusal. */
async function refusalRecorded(workflowId: string): Promise<boolean> {
  const history = await h.client.workflow.getHandle(workflowId).fetchHistory();
  return (history.events ?? []).some((e) =>
    JSON.stringify(e.markerRecordedEventAttributes?.details ?? {}).includes(
      Buffer.from(JSON.stringify(Patch.RefuseUnencryptedInbound)).toString('base64'),
    ),
  );
}

describe('with a key, from someone without it', () => {
  it('refuses a forged plaintext signal: dropped, and the refusal recorded', async () => {
    const { workflowId } = await ensureTrackingSweeper(h.client, {
      queues: h.queues,
      everySeconds: 3600,
    });
    const sweeper = h.client.workflow.getHandle(workflowId);
    await eventually('the sweeper answers', () => sweeper.query(sweeperStatusQuery), Boolean);

    await stranger.workflow
      .getHandle(workflowId)
      .signal(sweeperSettingsSignal, { everySeconds: 7 });
    await eventually('the refusal in history', () => refusalRecorded(workflowId), Boolean);
    expect((await sweeper.query(sweeperStatusQuery)).settings.everySeconds).toBe(3600);

    // The same signal with the key is taken.
    await sweeper.signal(sweeperSettingsSignal, { everySeconds: 5 });
    await eventually(
      'the keyed signal taken',
      async () => (await sweeper.query(sweeperStatusQuery)).settings.everySeconds,
      (every) => every === 5,
    );
  });

  it('refuses a forged plaintext update: rejected, and a keyed one answered', async () => {
    const tokens = new SessionTokenSource(h.client, h.queues);
    await tokens.accessToken();
    const sessionId = accountSessionId(h.queues, DEFAULT_ACCOUNT);
    const forged = stranger.workflow
      .getHandle(sessionId)
      .executeUpdate(tokenUpdate, { args: [{}] });
    await expect(forged).rejects.toBeInstanceOf(WorkflowUpdateFailedError);
    await expect(forged).rejects.toMatchObject({
      cause: { message: expect.stringMatching(/update token refused: .* not encrypted/) as string },
    });
    await expect(
      h.client.workflow.getHandle(sessionId).executeUpdate(tokenUpdate, { args: [{}] }),
    ).resolves.toMatchObject({ accessToken: expect.stringMatching(/^sealed:v1:/) as string });
  });

  it('refuses a forged plaintext order: the workflow ends having done nothing', async () => {
    const input = validOrder({ ...usOrder(), fulfillment: { flow: 'B' } });
    const workflowId = orderWorkflowId(input.order.orderNumber);
    const handle = await stranger.workflow.start(ORDER_WORKFLOW, {
      workflowId,
      taskQueue: h.queues.orders,
      args: [input],
    });
    await handle.result();
    const history = await h.client.workflow.getHandle(workflowId).fetchHistory();
    const events = history.events ?? [];
    expect(events.some((e) => e.activityTaskScheduledEventAttributes)).toBe(false);
    expect(await refusalRecorded(workflowId)).toBe(true);
  });
});

describe('histories written before the key', () => {
  it('replay through the guard with the key set, their plaintext messages accepted as they were', async () => {
    const recorded = (await loadHistories()).filter(({ history }) =>
      (history.events ?? []).some(
        (e) =>
          e.workflowExecutionSignaledEventAttributes ??
          e.workflowExecutionUpdateAcceptedEventAttributes,
      ),
    );
    expect(recorded.length).toBeGreaterThan(0);
    // The bundle of this file's encrypting workers (test/support/bundles.ts).
    const workflowBundle = await sharedWorkflowBundle({
      workflowsPath: WORKFLOWS_PATH,
      ...workflowBundleOptions(),
      failureConverterPath: FAILURE_CONVERTER_PATH,
    });
    const dataConverter = dataConverterFor(new EncryptionCodec({ current: key }))!;
    const errors: unknown[] = [];
    const results = Worker.runReplayHistories(
      { workflowBundle, dataConverter, replayName: 'plaintext-before-key' },
      recorded.slice(0, 24).map((r) => ({ workflowId: r.recorded.workflowId, history: r.history })),
    );
    for await (const result of results) if (result.error !== undefined) errors.push(result.error);
    expect(errors).toEqual([]);
  });
});
