/**
 * Door: the gateway's port. `dropflow gateway` takes webhooks and order intake, and on loopback
 * serves the codec routes without a token: it listens on loopback unless the operator opts in
 * with GATEWAY_HOST (or --host), as docker-compose.yml and deploy/k8s/gateway.yaml do.
 */
import type { AddressInfo } from 'node:net';

import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';

import { loadConfig } from '../../src/config/environment.js';
import { startGateway } from '../../src/gateway/server.js';
import { taskQueues } from '../../src/temporal/taskQueues.js';
import { DEFAULT_CHECKOUT_SETTINGS } from '../../src/terms/checkoutSettings.js';
import { quietLog } from '../gateway/support.js';

describe('the gateway', () => {
  let connection: Connection;
  beforeAll(() => {
    // Lazy: it connects at its first call, and these gateways make none.
    connection = Connection.lazy({ address: inject('temporalAddress') });
  });
  afterAll(async () => {
    await connection.close();
  });

  /** The address a gateway is bound to when started, as `dropflow gateway` is, with `env`. */
  async function boundAddress(env: Record<string, string>): Promise<string> {
    const gateway = await startGateway({
      checkout: DEFAULT_CHECKOUT_SETTINGS,
      temporalClient: new Client({ connection, namespace: inject('temporalNamespace') }),
      queues: taskQueues('gateway-bind'),
      openId: 'unused-open-id',
      log: quietLog,
      port: 0,
      host: loadConfig(env).GATEWAY_HOST,
    });
    try {
      return (gateway.app.server.address() as AddressInfo).address;
    } finally {
      await gateway.close();
    }
  }

  it('listens on loopback when nothing is said, not on every interface', async () => {
    expect(await boundAddress({})).toBe('127.0.0.1');
  });

  it('listens on every interface only when the operator opts in with GATEWAY_HOST', async () => {
    expect(await boundAddress({ GATEWAY_HOST: '0.0.0.0' })).toBe('0.0.0.0');
  });
});
