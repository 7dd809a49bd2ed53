/** (stub: being written) */
import type { SandboxRouter } from '../routing.js';

export function registerDisputeRoutes(_r: SandboxRouter): void {}
