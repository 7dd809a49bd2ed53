/** (stub: being written) */
import type { SandboxRouter } from '../routing.js';

export function registerCatalogueRoutes(_r: SandboxRouter): void {}
