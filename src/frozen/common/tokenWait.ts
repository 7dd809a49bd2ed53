/**
 * The frozen runs' copy of durable/tokenWait.ts as it was on 2026-11-28.
 *
 * A supplier call found no access token for the account, so it was never sent. Nothing about the
 * order is wrong: it waits for the token with the `awaitAccessToken` activity (orders queue),
 * which answers as soon as the account has one, and goes on. When the supplier refuses the
 * account's key, or the account has had no token for longer than the workers' bound
 * (NO_TOKEN_ATTENTION_MINUTES), it stops at NEEDS_ATTENTION saying so — and keeps waiting for the
 * token there, going on by itself when one comes (resume goes on too).
 */
import {
  ActivityFailure,
  CancellationScope,
  isCancellation,
  sleep,
  workflowInfo,
} from '@temporalio/workflow';
import type { FailureInfo, SupplierFailureDetails } from '../../supplier/failureDetails.js';
import type { StepHost } from '../../durable/stepHost.js';
import { queuePrefix, queuesOf, workflowAccount } from './account.js';
import { accessTokenWait } from './activityProxies.js';
import { DEFAULT_ACCOUNT } from './contracts.js';

/** Until the workers' answer says otherwise (session/tokenWaitActivities.ts has the same default). */
const DEFAULT_ATTENTION_AFTER_MS = 10 * 60_000;
/** After the wait itself failed (a worker without it, one that died): before asking again. */
const AFTER_FAILED_WAIT_MS = 10_000;

const KEY_REFUSED = 'supplier key refused';

/**
 * Returns once the account has a token again (or an operator resumed the stop); throws the
 * host's cancel while cancellable.
 */
export async function waitForToken(
  o: StepHost,
  step: { name: string; cancellable?: boolean },
  first: SupplierFailureDetails,
): Promise<void> {
  const wait = accessTokenWait();
  let last = first;
  let since = earliest(new Date().toISOString(), first.noTokenSince);
  let attentionAfterMs = DEFAULT_ATTENTION_AFTER_MS;
  for (;;) {
    if (step.cancellable !== false) o.checkCancel();
    if (last.keyRefused === true || elapsedMs(since) >= attentionAfterMs) {
      await stopUntilToken(o, step.name, last, since);
      return;
    }
    const by = new Date(Date.parse(since) + attentionAfterMs).toISOString();
    o.waitFor(
      `no access token for the account since ${since} (${last.message}); going on as soon as there is one (a person is asked at ${by})`,
    );
    const answer = await askOnce(wait, { untilKeyRefused: true });
    if (answer === undefined) continue;
    if (answer.token) {
      o.doneWaiting();
      return;
    }
    last = answer.failure;
    since = earliest(since, last.noTokenSince);
    attentionAfterMs = answer.attentionAfterMs;
  }
}

/** NEEDS_ATTENTION while a watcher waits for the token in the background. */
async function stopUntilToken(
  o: StepHost,
  step: string,
  last: SupplierFailureDetails,
  since: string,
): Promise<void> {
  const wait = accessTokenWait();
  // Set by the watcher while the stop waits (an object: the compiler cannot see that).
  const token = { back: false };
  const scope = new CancellationScope();
  const watching = scope
    .run(async () => {
      for (;;) {
        if ((await askOnce(wait))?.token === true) {
          token.back = true;
          return;
        }
      }
    })
    .catch((err: unknown) => {
      if (!isCancellation(err)) throw err;
    });
  try {
    await o.needsAttention(stopInfo(step, last, since), remedy(), {
      until: () => token.back,
    });
  } finally {
    scope.cancel();
  }
  await watching;
  if (token.back) o.note(`the account has an access token again; going on with ${step}`);
}

/** What the session area's awaitAccessToken answers. */
type TokenWaitAnswer = Awaited<ReturnType<ReturnType<typeof accessTokenWait>>>;

/** One long poll; undefined when the wait itself failed (then after a pause). */
async function askOnce(
  wait: ReturnType<typeof accessTokenWait>,
  request: { untilKeyRefused?: boolean } = {},
): Promise<TokenWaitAnswer | undefined> {
  try {
    return await wait(request);
  } catch (err) {
    if (!(err instanceof ActivityFailure) || isCancellation(err)) throw err;
    await sleep(AFTER_FAILED_WAIT_MS);
    return undefined;
  }
}

function stopInfo(step: string, last: SupplierFailureDetails, since: string): FailureInfo {
  const reason = last.keyRefused === true ? KEY_REFUSED : `no token since ${since}`;
  return {
    step,
    message: `${reason}: ${last.message}`,
    ...(last.code !== undefined && { code: last.code }),
    ...(last.requestId !== undefined && { requestId: last.requestId }),
  };
}

function remedy(): string {
  const own = workflowAccount();
  const account =
    own === DEFAULT_ACCOUNT ? queuePrefix(queuesOf(workflowInfo().taskQueue)) || own : own;
  return `the account's key works again (dropflow account reauth ${account}); the order goes on by itself — or cancel`;
}

function earliest(a: string, b: string | undefined): string {
  return b !== undefined && Date.parse(b) < Date.parse(a) ? b : a;
}

function elapsedMs(since: string): number {
  return new Date().getTime() - Date.parse(since);
}
