/** (stub: being written) */
import type { SandboxRouter } from '../routing.js';

export function registerShopRoutes(_r: SandboxRouter): void {}
