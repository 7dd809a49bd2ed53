/** (stub: being written) */
import type { SandboxRouter } from '../routing.js';

export function registerWaybillRoutes(_r: SandboxRouter): void {}
