/**
 * A real gateway on 127.0.0.1 for the security tests of its doors, on the run's Temporal dev
 * server, without workers: what these tests check is refused before any workflow would run, and
 * whatever slips through is visible as a workflow that exists (and is terminated afterwards).
 */
import { Client, Connection, WorkflowNotFoundError } from '@temporalio/client';
import { afterAll, beforeAll, inject } from 'vitest';

import type { AccountDirectory } from '../../src/accounts/contract.js';
import { DEFAULT_CHECKOUT_SETTINGS } from '../../src/terms/checkoutSettings.js';
import {
  startGateway,
  type StartedGateway,
  type StartGatewayOptions,
} from '../../src/gateway/server.js';
import { taskQueues, type TaskQueues } from '../../src/temporal/taskQueues.js';
import { madeLater } from '../support/madeLater.js';
import { quietLog } from '../gateway/support.js';

export const OPERATOR_TOKEN = 'security-operator-token-0123456789';
export const OPEN_ID = 'security-test-open-id';

export interface IntakeGateway {
  gateway: StartedGateway;
  client: Client;
  queues: TaskQueues;
  /** Whether a workflow of this id exists, running or closed. */
  exists(workflowId: string): Promise<boolean>;
}

export interface IntakeGatewayOptions {
  accounts?: AccountDirectory;
  /** Passed to startGateway as they are (limits, body caps). */
  extra?: Partial<StartGatewayOptions>;
}

/** The gateway of a test file: started in a beforeAll, closed (and what it started ended) after. */
export function useIntakeGateway(tag: string, options: IntakeGatewayOptions = {}): IntakeGateway {
  let made: IntakeGateway | undefined;
  let connection: Connection | undefined;
  const seen: string[] = [];
  beforeAll(async () => {
    // Lazy: it connects at its first call; a door that holds makes none.
    connection = Connection.lazy({ address: inject('temporalAddress') });
    const client = new Client({ connection, namespace: inject('temporalNamespace') });
    const queues = taskQueues(`${tag}-${process.pid}-${Date.now().toString(36)}`);
    const gateway = await startGateway({
      temporalClient: client,
      queues,
      openId: OPEN_ID,
      checkout: DEFAULT_CHECKOUT_SETTINGS,
      intakeToken: OPERATOR_TOKEN,
      ...(options.accounts !== undefined && { accounts: options.accounts }),
      ...options.extra,
      log: quietLog,
      port: 0,
      host: '127.0.0.1',
    });
    made = {
      gateway,
      client,
      queues,
      async exists(workflowId) {
        try {
          await client.workflow.getHandle(workflowId).describe();
          seen.push(workflowId);
          return true;
        } catch (err) {
          if (err instanceof WorkflowNotFoundError) return false;
          throw err;
        }
      },
    };
  });
  afterAll(async () => {
    for (const id of seen) {
      await made?.client.workflow
        .getHandle(id)
        .terminate('security test over')
        .catch(() => undefined);
    }
    await made?.gateway.close();
    await connection?.close();
  });
  return madeLater(() => made, `the ${tag} gateway`);
}
