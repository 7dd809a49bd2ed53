/**
 * The workflows' inbound guard (bundled into every workflow bundle: temporal/workflowBundle.ts):
 * where payloads are encrypted, a signal, an update or a workflow start whose arguments arrived
 * unencrypted comes from someone without the key — whoever reaches Temporal's frontend can send
 * plaintext — and is refused. The worker's codec marks such payloads and the payload converter
 * notes them (temporal/payloadConverter.cjs); without a key nothing is marked and nothing refused.
 *
 * Histories written before the key was set hold unencrypted signals, updates and starts that were
 * accepted. The guard decides with `patched(Patch.RefuseUnencryptedInbound)`, asked only when an
 * unencrypted message arrives: live, it records the patch and refuses; on replay it refuses only
 * where the history has the patch, so old accepted messages are accepted again and refused ones
 * refused again. A refusal issues no command besides that marker:
 *
 * - a signal is dropped, with a warning in the worker's log;
 * - an update is rejected by its validator (nothing recorded), or, without a validator, fails;
 * - a start (not a continue-as-new or a child, which a worker wrote) ends the workflow at once,
 *   having done nothing.
 *
 * Arguments only: a message without any (`sweepNow`, `reauth`) has nothing to encrypt, and closing
 * the frontend (docs/operations.md, "Threat model") is what keeps it from strangers.
 */
import {
  ApplicationFailure,
  log,
  patched,
  workflowInfo,
  type WorkflowExecuteInput,
  type Next,
  type SignalInput,
  type UpdateInput,
  type WorkflowInboundCallsInterceptor,
  type WorkflowInterceptorsFactory,
} from '@temporalio/workflow';

import { unencryptedAmongLast } from '../temporal/payloadConverter.cjs';
import { Patch } from './versions.js';

/** The failure type of an update refused for its unencrypted arguments. */
export const UNENCRYPTED_REFUSED = 'UnencryptedInputRefused';

const MESSAGE =
  'refused: its arguments are not encrypted with the deployment key, so they come from outside dropflow';

/** The SDK converted `args` just before calling the interceptor: its last conversions. */
const unencrypted = (args: readonly unknown[]) => unencryptedAmongLast(args.length);

const refuse = () => patched(Patch.RefuseUnencryptedInbound);

class RefuseUnencryptedInbound implements WorkflowInboundCallsInterceptor {
  execute(input: WorkflowExecuteInput, next: Next<WorkflowInboundCallsInterceptor, 'execute'>) {
    const info = workflowInfo();
    const fromWorker = info.continuedFromExecutionRunId !== undefined || info.parent !== undefined;
    if (!fromWorker && unencrypted(input.args) && refuse()) {
      log.warn(`workflow start ${MESSAGE}`, { workflowType: info.workflowType });
      return Promise.resolve(undefined);
    }
    return next(input);
  }

  handleSignal(input: SignalInput, next: Next<WorkflowInboundCallsInterceptor, 'handleSignal'>) {
    if (unencrypted(input.args) && refuse()) {
      log.warn(`signal ${input.signalName} ${MESSAGE}`);
      return Promise.resolve();
    }
    return next(input);
  }

  validateUpdate(
    input: UpdateInput,
    next: Next<WorkflowInboundCallsInterceptor, 'validateUpdate'>,
  ) {
    // A rejected update leaves no trace in history: nothing to replay, no patch needed.
    if (unencrypted(input.args)) throw new Error(`update ${input.name} ${MESSAGE}`);
    next(input);
  }

  handleUpdate(input: UpdateInput, next: Next<WorkflowInboundCallsInterceptor, 'handleUpdate'>) {
    if (unencrypted(input.args) && refuse()) {
      throw ApplicationFailure.create({
        type: UNENCRYPTED_REFUSED,
        message: `update ${input.name} ${MESSAGE}`,
        nonRetryable: true,
      });
    }
    return next(input);
  }
}

export const interceptors: WorkflowInterceptorsFactory = () => ({
  inbound: [new RefuseUnencryptedInbound()],
});
