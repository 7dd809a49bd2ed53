/** (stub: being written) */
import type { SandboxRouter } from '../routing.js';

export function registerWebhookRoutes(_r: SandboxRouter): void {}
