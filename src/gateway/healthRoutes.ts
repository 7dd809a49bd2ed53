/**
 * `GET /healthz`: the process is up. `GET /readyz`: Temporal answers a cheap call
 * (getSystemInfo) within a short deadline, so a load balancer sends webhooks only to gateways that
 * can hand them on.
 */
import type { Client } from '@temporalio/client';
import type { FastifyInstance } from 'fastify';

import type { Logger } from '../telemetry/log.js';
import { withinDeadline } from './deadline.js';

export interface HealthRouteOptions {
  client: Client;
  /** How long /readyz waits for Temporal. */
  deadlineMs: number;
  log: Logger;
}

export function registerHealthRoutes(app: FastifyInstance, opts: HealthRouteOptions): void {
  app.get('/healthz', (_req, reply) => reply.send({ status: 'ok' }));

  app.get('/readyz', async (_req, reply) => {
    try {
      await withinDeadline(opts.client, opts.deadlineMs, () =>
        opts.client.connection.workflowService.getSystemInfo({}),
      );
      return { status: 'ready' };
    } catch (err) {
      opts.log.warn({ err }, 'readyz: Temporal not reachable');
      return reply.code(503).send({ status: 'unavailable', reason: 'Temporal not reachable' });
    }
  });
}
