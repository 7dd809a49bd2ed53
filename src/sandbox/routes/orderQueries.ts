/** (stub: being written) */
import type { SandboxRouter } from '../routing.js';

export function registerOrderQueryRoutes(_r: SandboxRouter): void {}
