/**
 * The fleet a `dropflow worker` is one of: the share SUPPLIER_FLEET_SHARE sets by hand, else the
 * deployment's live roster, found through Temporal (temporal/fleetMembership.ts).
 */
import type { Client } from '@temporalio/client';

import type { Config } from '../config/environment.js';
import type { Logger } from '../telemetry/log.js';
import { fixedShare, type FleetView } from '../supplier/fleet.js';
import { FleetMembership } from '../temporal/fleetMembership.js';

export interface WorkerFleet {
  view: FleetView;
  /** Hands this process's slots to the others (a graceful stop). */
  leave(): Promise<void>;
  close(): void;
}

export async function joinWorkerFleet(
  config: Pick<Config, 'SUPPLIER_FLEET_SHARE'>,
  target: { client: Client; namespace: string; supplierQueue: string },
  log: Logger,
): Promise<WorkerFleet> {
  const share = config.SUPPLIER_FLEET_SHARE;
  if (share !== undefined) {
    log.info(share, 'fleet share set by hand (SUPPLIER_FLEET_SHARE)');
    return { view: fixedShare(share), leave: () => Promise.resolve(), close: () => undefined };
  }
  const membership = await FleetMembership.join({ ...target, log });
  log.info({ size: membership.view.size() }, 'fleet found through Temporal');
  return {
    view: membership.view,
    leave: () => membership.leave(),
    close: () => {
      membership.close();
    },
  };
}
