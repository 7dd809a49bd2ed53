/**
 * The checkout coordinator tells a release's orders their outcomes (`checkoutOutcome`) through
 * one activity instead of one external signal per order: each such signal cost the coordinator
 * two events and a workflow task of its own, the hottest workflow of the account. On the orders
 * queue: no supplier call here.
 *
 * Exactly once toward each order: every signal carries a request id derived from the call's key
 * (the coordinator's run and release) and the order, so a retried attempt's signal to an order
 * the attempt before reached is dropped by the server, which keeps a run's signal request ids.
 */
import { createHash } from 'node:crypto';
import { isGrpcServiceError, type Client, type WorkflowSignalInput } from '@temporalio/client';
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { composeInterceptors } from '@temporalio/common/lib/interceptors.js';
import { encodeToPayloadsWithContext } from '@temporalio/common/lib/internal-non-workflow/index.js';
import {
  checkoutOutcomeSignal,
  TELL_INCOMPLETE,
  type OutcomeTold,
  type TellAnswer,
} from './contract.js';

/** Signals under way at once within one call. */
const TELL_CONCURRENCY = 20;

/** gRPC's NOT_FOUND: the order's workflow is closed (terminated by hand) or never ran. */
const isNotFound = (code: number): boolean => code === 5;

/** A UUID-shaped id fixed by `name`: the same release and order always give the same one. */
export function tellRequestId(name: string): string {
  const h = createHash('sha256').update(name).digest('hex');
  const variant = ((parseInt(h[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

export function tellActivities(client: Client) {
  /** The client's signal, through its interceptors (tracing headers), with our request id. */
  const { interceptors } = client.workflow.options;
  const signal = (requestId: string) =>
    composeInterceptors(
      Array.isArray(interceptors) ? interceptors : [],
      'signal',
      async (input) => {
        const { workflowId } = input.workflowExecution;
        await client.workflowService.signalWorkflowExecution({
          identity: client.options.identity,
          namespace: client.options.namespace,
          workflowExecution: input.workflowExecution,
          requestId,
          signalName: input.signalName,
          header: { fields: input.headers },
          input: {
            payloads: await encodeToPayloadsWithContext(
              client.options.loadedDataConverter,
              { type: 'workflow', namespace: client.options.namespace, workflowId },
              input.args,
            ),
          },
        });
      },
    );

  const tellOne = async (key: string, { workflowId, outcome }: OutcomeTold): Promise<boolean> => {
    const input: WorkflowSignalInput = {
      signalName: checkoutOutcomeSignal.name,
      args: [outcome],
      workflowExecution: { workflowId },
      headers: {},
    };
    try {
      await signal(tellRequestId(`${key}/${workflowId}`))(input);
      return true;
    } catch (err) {
      if (isGrpcServiceError(err) && isNotFound(err.code)) return false;
      throw err;
    }
  };

  return {
    /**
     * Signals each order its outcome, `TELL_CONCURRENCY` at once; answers the orders not found
     * (nobody left to tell). A failed attempt names the orders it or an attempt before reached
     * (the failure's details; earlier attempts' through their heartbeats), so that the
     * coordinator, if every attempt fails, signals only the others itself.
     */
    async tellOutcomes(key: string, told: OutcomeTold[]): Promise<TellAnswer> {
      const notFound: string[] = [];
      const reached: string[] = [];
      const before = Context.current().info.heartbeatDetails as { reached?: string[] } | undefined;
      const reachedEarlier = before?.reached ?? [];
      const failed: unknown[] = [];
      for (let i = 0; i < told.length; i += TELL_CONCURRENCY) {
        await Promise.all(
          told.slice(i, i + TELL_CONCURRENCY).map(async (t) => {
            try {
              if (await tellOne(key, t)) reached.push(t.workflowId);
              else notFound.push(t.workflowId);
            } catch (err) {
              failed.push(err);
            }
          }),
        );
        Context.current().heartbeat({ reached: [...new Set([...reachedEarlier, ...reached])] });
      }
      if (failed.length > 0) {
        throw ApplicationFailure.retryable(
          `${failed.length} of ${told.length} outcomes not told: ${String(failed[0])}`,
          TELL_INCOMPLETE,
          { reached: [...new Set([...reachedEarlier, ...reached, ...notFound])] },
        );
      }
      return { notFound };
    },
  };
}

export type TellActivities = ReturnType<typeof tellActivities>;

declare module '../durable/supplierActivities.js' {
  interface OrdersQueueActivities extends TellActivities {}
}
