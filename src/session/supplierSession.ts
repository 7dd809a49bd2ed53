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
 * - Since `session-backoff-2026-11`: a refused refresh (1600200, busy, lost) waits growing, jittered
 *   pauses past the supplier's one-minute window, and after REFRESH_TRIES_BEFORE_OBTAIN refusals in
 *   a row the session obtains with the API key (still no more often than getAccessToken's spacing).
 *   A key the supplier refuses (1601000) is recorded (`keyRefusedSince`) and tried again on its
 *   own every KEY_REFUSED_PAUSE_MS or so, or at the earliest allowed moment when an operator asks
 *   (`reauth` update, `dropflow account reauth`). `token` updates that find no token fail saying
 *   why (`NoToken` details), at once while the key is refused.
 *
 * Processes read the token with the `token` update (session/sessionTokens.ts): an update can wait
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
  patched,
  proxyActivities,
  setHandler,
  sleep,
  uuid4,
  workflowInfo,
} from '@temporalio/workflow';
import type { SupplierSessionActivities } from './activities.js';
import {
  NO_TOKEN_YET,
  reauthUpdate,
  sessionQuery,
  TOKEN_CALL_FAILED,
  tokenUpdate,
  type NoToken,
  type ReauthAnswer,
  type SessionTokens,
  type SessionView,
  type SupplierSessionInput,
  type TokenCallFailure,
  type TokenGrant,
  type TokenRequest,
} from './contract.js';
import { SupplierCode } from '../supplier/errors.js';
import type { IssuedTokens } from '../supplier/tokenExchange.js';
import { OBTAIN_INTERVAL_MS, REFRESH_INTERVAL_MS, renewalDue } from '../supplier/tokenTiming.js';
import { shouldContinueAsNew } from '../durable/longRunning.js';
import { Patch } from '../durable/versions.js';
import { accountPriority } from '../durable/account.js';

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
/**
 * Refused refreshes in a row after which the session obtains with the API key instead: their
 * growing pauses (12 s, 24 s, …, jittered) have by then spanned more than the one-minute window of
 * refreshAccessToken's 5 per minute.
 */
const REFRESH_TRIES_BEFORE_OBTAIN = 3;
/** The longest pause between refreshes: twice the supplier's window. */
const MAX_REFRESH_PAUSE_MS = 2 * 60_000;
/** Between tries of a refused API key on the session's own (an operator's reauth comes sooner). */
const KEY_REFUSED_PAUSE_MS = 5 * 60_000;
const MAX_KEY_REFUSED_PAUSE_MS = 30 * 60_000;
/** How long a `reauth` update waits for the getAccessToken it asked for before answering when. */
const REAUTH_ANSWER_WITHIN_MS = 30_000;

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
    // The worker calls with this account's API key.
    priority: accountPriority(),
  });
  /**
   * On the session-backoff path. Asked before each renewal and each turn of the old renewal loop
   * until it says yes (false only while replaying what came before): a session that was waiting
   * in step with the supplier when the release came takes the new waits at its next turn.
   */
  let backoff = false;
  const onNewPath = () => (backoff ||= patched(Patch.SessionBackoff));
  /**
   * The run ends at its budget even while it waits to renew: 200 orders asking for a token every
   * few seconds fill a history in minutes, and a `token` update that waits keeps the run open.
   */
  const drains = patched(Patch.SessionDrains);
  const obtainIntervalMs = input.obtainIntervalMs ?? OBTAIN_INTERVAL_MS;

  let tokens = input.tokens;
  let lastObtainedAt = input.lastObtainedAt;
  let lastRefreshSentAt = input.lastRefreshSentAt;
  let lastCallSentAt = input.lastCallSentAt;
  let lastObtainSentAt = input.lastObtainSentAt;
  let renewals = input.renewals ?? 0;
  let keyRefusedSince = input.keyRefusedSince;
  let noTokenSince = input.noTokenSince;
  /** The current token, reported refused by a process and not renewed yet. */
  let reported: string | undefined;
  /** A token that was reported refused and came back unchanged from its refresh. */
  let refreshedUnchanged: string | undefined;
  let obtainNext = false;
  let waitingFor: string | undefined;
  let updates = 0;
  /** An operator asked for getAccessToken at the earliest allowed moment (`reauth`). */
  let reauthAsked = false;
  /** getAccessToken calls sent by this run, and what the last one gave. */
  let obtainTries = 0;
  let lastObtain: { outcome: 'renewed' | 'refused' | 'failed'; message: string } | undefined;

  const dueAt = (t: SessionTokens) => renewalDue(t.obtainedAt, t.accessExpiresAt);
  const usable = () =>
    tokens !== undefined && tokens.accessToken !== reported && now() < tokens.accessExpiresAt;
  const renewalNeeded = () =>
    tokens === undefined || tokens.accessToken === reported || now() >= dueAt(tokens);
  const updatesPerRun = input.updatesPerRun ?? UPDATES_PER_RUN;
  const wantsToContinue = () => shouldContinueAsNew() || updates >= updatesPerRun;
  const timeToContinue = () => wantsToContinue() && allHandlersFinished();
  /** A run that is due to continue as new answers its updates at once (drains). */
  const draining = () => drains && wantsToContinue();
  const noteNoToken = () => {
    if (!usable()) noTokenSince ??= now();
  };

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
        await condition(() => renewals > seen || draining(), READ_WAIT_MS);
      }
      noteNoToken();
      // A refused key will not mend within the wait: say so at once.
      const answerable = () => usable() || keyRefusedSince !== undefined || draining();
      if (!(await condition(answerable, Math.max(1, deadline - now()))) || !usable()) {
        throw noTokenFailure();
      }
      // Due for renewal: give the renewal until the deadline, else answer the still valid token.
      const fresh = () => tokens !== undefined && usable() && now() < dueAt(tokens);
      if (!fresh()) await condition(() => fresh() || draining(), Math.max(1, deadline - now()));
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

  setHandler(sessionQuery, view);

  setHandler(
    reauthUpdate,
    async (): Promise<ReauthAnswer> => {
      if (usable() && keyRefusedSince === undefined) {
        return {
          outcome: 'not-needed',
          message: 'the session holds a usable token and the key is not refused',
          session: view(),
        };
      }
      reauthAsked = true;
      const at = Math.max(now(), earliest('obtain'));
      const seen = obtainTries;
      const answered =
        at - now() <= REAUTH_ANSWER_WITHIN_MS &&
        (await condition(() => obtainTries > seen, at - now() + REAUTH_ANSWER_WITHIN_MS));
      if (!answered || lastObtain === undefined) {
        return {
          outcome: 'scheduled',
          triesAt: iso(at),
          message: `getAccessToken is spaced by the supplier; the session sends it at ${iso(at)}`,
          session: view(),
        };
      }
      return { ...lastObtain, triesAt: iso(lastObtainSentAt), session: view() };
    },
    {
      validator: () => {
        // A run that started before the release takes it once it renews on the new path.
        if (!backoff && !usable()) {
          throw new Error('this session run still waits the old way; ask again in a minute');
        }
      },
    },
  );

  function view(): SessionView {
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
      ...(keyRefusedSince !== undefined && { keyRefusedSince: iso(keyRefusedSince) }),
      ...(noTokenSince !== undefined && { noTokenSince: iso(noTokenSince) }),
    };
  }

  function noTokenFailure(): ApplicationFailure {
    const since = iso(noTokenSince ?? now())!;
    const details: NoToken = {
      keyRefused: keyRefusedSince !== undefined,
      noTokenSince: since,
      reason: keyRefusedSince !== undefined ? 'supplier key refused' : `no token since ${since}`,
    };
    const message = details.keyRefused
      ? `the supplier refuses the account's API key (since ${iso(keyRefusedSince)}); mend it, then \`dropflow account reauth\`: ${waitingFor ?? 'obtaining a token'}`
      : `the account has no usable access token yet (${details.reason}): ${waitingFor ?? 'obtaining one'}`;
    return ApplicationFailure.create({
      type: NO_TOKEN_YET,
      message,
      details: [details],
      nonRetryable: true,
    });
  }

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

  /** Refresh failed often enough, and getAccessToken's spacing allows a call now. */
  function obtainInstead(refreshFailures: number): boolean {
    const lastObtainAt = Math.max(lastObtainedAt ?? 0, lastObtainSentAt ?? 0);
    return (
      refreshFailures >= REFRESH_TRIES_BEFORE_OBTAIN && lastObtainAt + obtainIntervalMs <= now()
    );
  }

  /** When the supplier's spacing allows the call (epoch ms; in the past when it does now). */
  function earliest(call: TokenCall): number {
    // The old waits spaced getAccessToken from its last answer only.
    const last =
      call === 'obtain'
        ? Math.max(lastObtainedAt ?? 0, backoff ? (lastObtainSentAt ?? 0) : 0)
        : (lastRefreshSentAt ?? 0);
    const interval = call === 'obtain' ? obtainIntervalMs : REFRESH_INTERVAL_MS;
    return Math.max(last + interval, (lastCallSentAt ?? 0) + ANY_CALL_SPACING_MS);
  }

  function spacingNote(call: TokenCall, wait: number): string {
    return `${endpointOf(call)} is spaced by the supplier; sending it in ${Math.ceil(wait / 1000)} s`;
  }

  /** Waits until the supplier's spacing allows the call. */
  async function spaced(call: TokenCall): Promise<void> {
    const wait = earliest(call) - now();
    if (wait <= 0) return;
    waitingFor = spacingNote(call, wait);
    await sleep(wait);
  }

  /** The old waits; returns as soon as the run is on the session-backoff path. */
  async function renew(): Promise<void> {
    for (let attempt = 0; ; attempt += 1) {
      if (onNewPath()) return;
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

  /**
   * Renews with the session-backoff waits: refused refreshes back off past the supplier's window
   * and give way to getAccessToken, a refused key is recorded and tried again on its own or at an
   * operator's `reauth`. Returns `continue` when the run should continue as new first.
   */
  async function renewWithBackoff(): Promise<'renewed' | 'continue'> {
    let refreshFailures = 0;
    let refreshPauses = 0;
    let obtainPauses = 0;
    let keyPauses = 0;
    for (;;) {
      noteNoToken();
      if (timeToContinue()) return 'continue';
      // Refreshes that keep failing give way to getAccessToken once its spacing allows it; until
      // then refreshing goes on with its own pauses (waiting minutes for getAccessToken while a
      // refresh could succeed would leave the account without a token longer).
      const call: TokenCall = reauthAsked || obtainInstead(refreshFailures) ? 'obtain' : nextCall();
      const wait = earliest(call) - now();
      if (wait > 0) {
        waitingFor = spacingNote(call, wait);
        // An operator's reauth turns a refresh into getAccessToken: decide again.
        const due = () => drains && timeToContinue();
        if (await condition(() => (reauthAsked && call !== 'obtain') || due(), wait)) continue;
      }
      lastCallSentAt = now();
      try {
        let issued: IssuedTokens;
        if (call === 'refresh') {
          lastRefreshSentAt = now();
          issued = await refreshSessionToken(tokens!.refreshToken);
        } else {
          lastObtainSentAt = now();
          try {
            issued = await obtainSessionToken();
          } finally {
            obtainTries += 1;
            reauthAsked = false;
          }
          lastObtainedAt = now();
          obtainNext = false;
          lastObtain = { outcome: 'renewed', message: 'getAccessToken gave new tokens' };
        }
        keep(issued);
        log.info('supplier session: token renewed', { call, renewals });
        return 'renewed';
      } catch (err) {
        const f = failureOf(err, call);
        let ms: number;
        if (call === 'refresh') {
          if (!f.retryable) {
            // 1600003, or an answer retrying cannot mend: the API key, at once.
            obtainNext = true;
            log.warn('supplier session: refresh refused; obtaining new tokens', { code: f.code });
            continue;
          }
          refreshFailures += 1;
          if (obtainInstead(refreshFailures)) {
            log.warn('supplier session: refresh keeps failing; obtaining new tokens', {
              code: f.code,
            });
            continue;
          }
          ms = jittered(
            Math.min(
              REFRESH_INTERVAL_MS * 2 ** Math.min(refreshPauses++, 10),
              MAX_REFRESH_PAUSE_MS,
            ),
          );
        } else if (f.code === SupplierCode.UserNotFound) {
          keyRefusedSince ??= now();
          lastObtain = {
            outcome: 'refused',
            message: `the supplier refuses the API key: ${f.message}`,
          };
          refreshFailures = 0;
          ms = jittered(
            Math.min(
              KEY_REFUSED_PAUSE_MS * 2 ** Math.min(keyPauses++, 10),
              MAX_KEY_REFUSED_PAUSE_MS,
            ),
          );
          log.warn('supplier session: the supplier refuses the API key', { code: f.code });
        } else {
          lastObtain = { outcome: 'failed', message: `getAccessToken failed: ${f.message}` };
          // The refresh token may serve again meanwhile; getAccessToken waits its own spacing.
          refreshFailures = 0;
          ms = jittered(
            Math.min(FIRST_PAUSE_MS.obtain * 2 ** Math.min(obtainPauses++, 10), MAX_PAUSE_MS),
          );
        }
        ms = Math.max(ms, f.retryAfterMs ?? 0);
        waitingFor = `${f.endpoint} failed (${f.message}); trying again in ${Math.round(ms / 1000)} s`;
        log.warn('supplier session: token call failed', {
          endpoint: f.endpoint,
          code: f.code,
          retryable: f.retryable,
          pauseMs: ms,
        });
        // An operator's reauth cuts the pause (the supplier's spacing still holds).
        await condition(() => reauthAsked || (drains && timeToContinue()), ms);
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
    keyRefusedSince = undefined;
    noTokenSince = undefined;
    renewals += 1;
  }

  const carried = (): SupplierSessionInput => ({
    tokens,
    lastObtainedAt,
    lastRefreshSentAt,
    lastCallSentAt,
    renewals,
    ...(onNewPath() && {
      lastObtainSentAt,
      keyRefusedSince,
      noTokenSince,
      ...(input.obtainIntervalMs !== undefined && { obtainIntervalMs: input.obtainIntervalMs }),
      ...(input.updatesPerRun !== undefined && { updatesPerRun: input.updatesPerRun }),
    }),
  });

  for (;;) {
    if (renewalNeeded()) {
      if (!onNewPath()) {
        await renew();
        continue;
      }
      if ((await renewWithBackoff()) === 'renewed') continue;
      return continueAsNew<typeof supplierSession>(carried());
    }
    if (timeToContinue()) {
      return continueAsNew<typeof supplierSession>(carried());
    }
    const t = tokens!;
    await condition(() => renewalNeeded() || timeToContinue(), Math.max(1, dueAt(t) - now()));
  }
}

const endpointOf = (call: TokenCall) =>
  call === 'obtain' ? 'getAccessToken' : 'refreshAccessToken';

/**
 * A pause stretched by up to half again, so that sessions of accounts refused together do not
 * come back together. uuid4() draws on the workflow's seeded random source: the same on replay.
 */
function jittered(ms: number): number {
  const unit = Number.parseInt(uuid4().slice(0, 8), 16) / 2 ** 32;
  return Math.round(ms * (1 + unit / 2));
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
