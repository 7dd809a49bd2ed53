/** (stub: being written) */
import type { SandboxRouter } from '../routing.js';

export function registerPaymentRoutes(_r: SandboxRouter): void {}
