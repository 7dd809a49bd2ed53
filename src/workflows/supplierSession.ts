/**
 * `supplierSession` (one per account, id `supplier-session[:<prefix>]`, on the account's orders
 * queue): the account's one access token, shared by every worker and gateway. The supplier allows
 * getAccessToken about once per 5 minutes and refreshAccessToken 5 per minute per account, and a
 * refresh by one process may end the token of the others: so one workflow makes every token call.
 *
 * - Obtains a token when first asked; refreshes it once for all shortly before it expires (a
 *   timer), and when a process reports the current token refused (1600001). Reports of one token
 *   coalesce into one refresh; a report of an older token is answered with the current one.
 * - Obtains again (the API key) only when the refresh fails (1600003 or another answer retrying
 *   cannot mend), the refresh token has expired, or a refreshed token was refused again unchanged.
 * - Spaces its calls as the supplier asks (tokenTiming.ts), waits out 1600200, busy answers and
 *   lost answers with growing pauses, and never fails. Continues as new, carrying its tokens,
 *   before its history gets heavy.
 *
 * Processes read the token with the `token` update (temporal/sessionTokens.ts): an update can wait
 * for a token that is being obtained and can record a refusal, which a query can do neither of.
 * Tokens travel only in payloads, which the data converter encrypts when a key is configured; the
 * `session` query and the log show times and codes, never a token.
 */
import {
  ActivityFailure,
  allHandlersFinished,
  ApplicationFailure,
  condition,
  continueAsNew,
  log,
  proxyActivities,
  setHandler,
  sleep,
  workflowInfo,
} from '@temporalio/workflow';
import type { SupplierSessionActivities } from '../activities/supplierSession.js';
import {
  sessionQuery,
  TOKEN_CALL_FAILED,
  tokenUpdate,
  type SessionView,
  type TokenCallFailure,
  type TokenGrant,
  type TokenRequest,
} from '../client/sessionDefinitions.js';
import { SupplierCode } from '../supplier/errors.js';
import type { IssuedTokens } from '../supplier/tokenExchange.js';
import { OBTAIN_INTERVAL_MS, REFRESH_INTERVAL_MS, renewalDue } from '../supplier/tokenTiming.js';
import { shouldContinueAsNew } from './longRunning.js';

export interface SessionTokens extends IssuedTokens {
  obtainedAt: number;
}

/** What a run hands the next one (continue-as-new). */
export interface SupplierSessionInput {
  tokens?: SessionTokens;
  /** When getAccessToken last gave tokens, and refreshAccessToken was last sent (epoch ms). */
  lastObtainedAt?: number;
  lastRefreshSentAt?: number;
  /** When any token call was last sent. */
  lastCallSentAt?: number;
  renewals?: number;
}

/** How long a `token` update waits for a usable token before it fails, saying why. */
const READ_WAIT_MS = 15_000;
/** Updates handled per run: Temporal bounds the updates of one run (2000 by default). */
const UPDATES_PER_RUN = 500;
/** Between any two token calls: the token endpoints take one call per second per account. */
const ANY_CALL_SPACING_MS = 2_000;
/** Treat the refresh token as expired this long before its expiry. */
const REFRESH_TOKEN_MARGIN_MS = 60_000;
const MAX_PAUSE_MS = 5 * 60_000;
const MAX_TRANSIENT_PAUSE_MS = 30_000;
/** First pause after a refusal: getAccessToken's limit is counted in minutes, refresh's in seconds. */
const FIRST_PAUSE_MS = {
  obtain: 30_000,
  refresh: REFRESH_INTERVAL_MS,
  transient: 1_000,
} as const;

type TokenCall = 'obtain' | 'refresh';

const now = () => new Date().getTime();
// The Temporal UI and CLI may send the update without an argument.
const rejectedOf = (request: TokenRequest | undefined) => request?.rejected;
const iso = (ms: number | undefined) => (ms === undefined ? undefined : new Date(ms).toISOString());

export async function supplierSession(input: SupplierSessionInput = {}): Promise<void> {
  const { obtainSessionToken, refreshSessionToken } = proxyActivities<SupplierSessionActivities>({
    taskQueue: workflowInfo().taskQueue,
    startToCloseTimeout: '1 minute',
    // The workflow decides what follows a failure: spacing, pauses, refresh or obtain.
    retry: { maximumAttempts: 1 },
  });

  let tokens = input.tokens;
  let lastObtainedAt = input.lastObtainedAt;
  let lastRefreshSentAt = input.lastRefreshSentAt;
  let lastCallSentAt = input.lastCallSentAt;
  let renewals = input.renewals ?? 0;
  /** The current token, reported refused by a process and not renewed yet. */
  let reported: string | undefined;
  /** A token that was reported refused and came back unchanged from its refresh. */
  let refreshedUnchanged: string | undefined;
  let obtainNext = false;
  let waitingFor: string | undefined;
  let updates = 0;

  const dueAt = (t: SessionTokens) => renewalDue(t.obtainedAt, t.accessExpiresAt);
  const usable = () =>
    tokens !== undefined && tokens.accessToken !== reported && now() < tokens.accessExpiresAt;
  const renewalNeeded = () =>
    tokens === undefined || tokens.accessToken === reported || now() >= dueAt(tokens);
  const timeToContinue = () =>
    (shouldContinueAsNew() || updates >= UPDATES_PER_RUN) && allHandlersFinished();

  setHandler(
    tokenUpdate,
    async (request) => {
      updates += 1;
      const deadline = now() + READ_WAIT_MS;
      const rejected = rejectedOf(request);
      if (rejected !== undefined && rejected === tokens?.accessToken) {
        if (rejected === refreshedUnchanged) obtainNext = true;
        reported = rejected;
        const seen = renewals;
        await condition(() => renewals > seen, READ_WAIT_MS);
      }
      if (!(await condition(usable, Math.max(1, deadline - now())))) {
        throw ApplicationFailure.create({
          type: 'NoTokenYet',
          message: `the account has no usable access token yet: ${waitingFor ?? 'obtaining one'}`,
          nonRetryable: true,
        });
      }
      // Due for renewal: give the renewal until the deadline, else answer the still valid token.
      const fresh = () => tokens !== undefined && usable() && now() < dueAt(tokens);
      if (!fresh()) await condition(fresh, Math.max(1, deadline - now()));
      return grantOf(tokens!);
    },
    {
      validator: (request: TokenRequest | undefined) => {
        const rejected: unknown = rejectedOf(request);
        if (rejected !== undefined && typeof rejected !== 'string') {
          throw new Error('rejected: must be the refused access token');
        }
      },
    },
  );

  setHandler(sessionQuery, (): SessionView => {
    const t = tokens;
    return {
      hasToken: t !== undefined,
      accessExpiresAt: iso(t?.accessExpiresAt),
      renewsAt: iso(t === undefined ? undefined : dueAt(t)),
      refreshExpiresAt: iso(t?.refreshExpiresAt),
      lastObtainedAt: iso(lastObtainedAt),
      lastRefreshSentAt: iso(lastRefreshSentAt),
      renewals,
      ...(waitingFor !== undefined && { waitingFor }),
    };
  });

  function grantOf(t: SessionTokens): TokenGrant {
    return {
      accessToken: t.accessToken,
      openId: t.openId,
      expiresAt: t.accessExpiresAt,
      renewsAt: dueAt(t),
    };
  }

  /** The next token call: refresh while the refresh token is good, else obtain. */
  function nextCall(): TokenCall {
    const refreshable =
      tokens !== undefined && now() < tokens.refreshExpiresAt - REFRESH_TOKEN_MARGIN_MS;
    return refreshable && !obtainNext ? 'refresh' : 'obtain';
  }

  /** Waits until the supplier's spacing allows the call. */
  async function spaced(call: TokenCall): Promise<void> {
    const last = call === 'obtain' ? lastObtainedAt : lastRefreshSentAt;
    const interval = call === 'obtain' ? OBTAIN_INTERVAL_MS : REFRESH_INTERVAL_MS;
    const wait = Math.max(
      last === undefined ? 0 : last + interval - now(),
      lastCallSentAt === undefined ? 0 : lastCallSentAt + ANY_CALL_SPACING_MS - now(),
    );
    if (wait <= 0) return;
    waitingFor = `${call === 'obtain' ? 'getAccessToken' : 'refreshAccessToken'} is spaced by the supplier; sending it in ${Math.ceil(wait / 1000)} s`;
    await sleep(wait);
  }

  async function renew(): Promise<void> {
    for (let attempt = 0; ; attempt += 1) {
      const call = nextCall();
      await spaced(call);
      lastCallSentAt = now();
      try {
        let issued: IssuedTokens;
        if (call === 'refresh') {
          lastRefreshSentAt = now();
          issued = await refreshSessionToken(tokens!.refreshToken);
        } else {
          issued = await obtainSessionToken();
          lastObtainedAt = now();
          obtainNext = false;
        }
        keep(issued);
        log.info('supplier session: token renewed', { call, renewals });
        return;
      } catch (err) {
        const f = failureOf(err, call);
        if (call === 'refresh' && !f.retryable) {
          // 1600003, or an answer retrying cannot mend: the API key, at once.
          obtainNext = true;
          attempt = -1;
          log.warn('supplier session: refresh refused; obtaining new tokens', { code: f.code });
          continue;
        }
        const ms = pause(call, f, attempt);
        waitingFor = `${f.endpoint} failed (${f.message}); trying again in ${Math.round(ms / 1000)} s`;
        log.warn('supplier session: token call failed', {
          endpoint: f.endpoint,
          code: f.code,
          retryable: f.retryable,
          pauseMs: ms,
        });
        await sleep(ms);
      }
    }
  }

  function keep(issued: IssuedTokens): void {
    const previous = tokens;
    tokens = { ...issued, openId: issued.openId ?? previous?.openId, obtainedAt: now() };
    refreshedUnchanged =
      reported !== undefined && tokens.accessToken === reported ? reported : undefined;
    reported = undefined;
    waitingFor = undefined;
    renewals += 1;
  }

  for (;;) {
    if (renewalNeeded()) {
      await renew();
      continue;
    }
    if (timeToContinue()) {
      return continueAsNew<typeof supplierSession>({
        tokens,
        lastObtainedAt,
        lastRefreshSentAt,
        lastCallSentAt,
        renewals,
      });
    }
    const t = tokens!;
    await condition(() => renewalNeeded() || timeToContinue(), Math.max(1, dueAt(t) - now()));
  }
}

function failureOf(err: unknown, call: TokenCall): TokenCallFailure {
  const endpoint = call === 'obtain' ? 'getAccessToken' : 'refreshAccessToken';
  if (
    err instanceof ActivityFailure &&
    err.cause instanceof ApplicationFailure &&
    err.cause.type === TOKEN_CALL_FAILED
  ) {
    const details = err.cause.details?.[0] as TokenCallFailure | undefined;
    if (details !== undefined) return details;
  }
  // The activity timed out or its worker went away: nothing was learned, try again.
  const message =
    err instanceof ActivityFailure ? (err.cause?.message ?? err.message) : String(err);
  return { endpoint, message, retryable: true };
}

/**
 * The pause after a failed token call, never shorter than the supplier asked. A 1600200 waits one
 * spacing of that call (the session is the account's only caller, so one spacing clears it; a
 * growing pause would keep every process of the account without a token for minutes); other
 * failures wait growing pauses.
 */
function pause(call: TokenCall, f: TokenCallFailure, attempt: number): number {
  if (f.code === SupplierCode.TooManyRequests) {
    return Math.max(FIRST_PAUSE_MS[call], f.retryAfterMs ?? 0);
  }
  // A transient failure grows to half a minute at most: attempts refused with 1600200 before
  // it count too, and a lost answer says nothing about the supplier's limits.
  const growing = f.retryable
    ? Math.min(FIRST_PAUSE_MS.transient * 2 ** Math.min(attempt, 5), MAX_TRANSIENT_PAUSE_MS)
    : Math.min(FIRST_PAUSE_MS[call] * 2 ** Math.min(attempt, 20), MAX_PAUSE_MS);
  return Math.max(growing, f.retryAfterMs ?? 0);
}
