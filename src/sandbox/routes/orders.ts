/** (stub: being written) */
import type { SandboxRouter } from '../routing.js';

export function registerOrderRoutes(_r: SandboxRouter): void {}
