/** (stub: being written) */
import type { SandboxRouter } from '../routing.js';

export function registerInventoryRoutes(_r: SandboxRouter): void {}
