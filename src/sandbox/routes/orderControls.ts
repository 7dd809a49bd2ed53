/** (stub: being written) /__sandbox/orders/... controls */
import type { FastifyInstance } from 'fastify';
import type { Sandbox } from '../sandbox.js';

export function registerOrderControlRoutes(_app: FastifyInstance, _sb: Sandbox): void {}
