/** (stub: being written) */
import type { SandboxRouter } from '../routing.js';

export function registerLogisticsRoutes(_r: SandboxRouter): void {}
