/** (stub: being written) Activities that talk to Temporal itself (the tracking sweeper's). */
import type { Client } from '@temporalio/client';

export function orchestrationActivities(client: Client) {
  void client;
  return {};
}

export type OrchestrationActivities = ReturnType<typeof orchestrationActivities>;
