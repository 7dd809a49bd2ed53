/**
 * How a `supplierSession` renews the account's tokens: the token call the supplier's spacing
 * allows, and the pause after a refusal. `renewWithBackoff` is the current way
 * (`session-backoff-2026-11`); `renewTheOldWay` is what runs that started before it replay.
 */
import {
  ActivityFailure,
  ApplicationFailure,
  condition,
  log,
  sleep,
  uuid4,
} from '@temporalio/workflow';
import type { SupplierSessionActivities } from './activities.js';
import { TOKEN_CALL_FAILED, type TokenCallFailure } from './contract.js';
import { endpointOf, now, type SessionState, type TokenCall } from './sessionState.js';
import { SupplierCode } from '../supplier/errors.js';
import type { IssuedTokens } from '../supplier/tokenExchange.js';
import { REFRESH_INTERVAL_MS } from '../supplier/tokenTiming.js';

const MAX_PAUSE_MS = 5 * 60_000;
const MAX_TRANSIENT_PAUSE_MS = 30_000;
/** First pause after a refusal: getAccessToken's limit is counted in minutes, refresh's in seconds. */
const FIRST_PAUSE_MS = {
  obtain: 30_000,
  refresh: REFRESH_INTERVAL_MS,
  transient: 1_000,
} as const;
/** The longest pause between refreshes: twice the supplier's window. */
const MAX_REFRESH_PAUSE_MS = 2 * 60_000;
/** Between tries of a refused API key on the session's own (an operator's reauth comes sooner). */
const KEY_REFUSED_PAUSE_MS = 5 * 60_000;
const MAX_KEY_REFUSED_PAUSE_MS = 30 * 60_000;

type TokenCalls = Pick<SupplierSessionActivities, 'obtainSessionToken' | 'refreshSessionToken'>;

/**
 * Renews with the session-backoff waits: refused refreshes back off past the supplier's window
 * and give way to getAccessToken, a refused key is recorded and tried again on its own or at an
 * operator's `reauth`. Returns `continue` when the run should continue as new first.
 */
export async function renewWithBackoff(
  state: SessionState,
  calls: TokenCalls,
): Promise<'renewed' | 'continue'> {
  const pauses = new RenewalPauses();
  for (;;) {
    state.noteNoToken();
    if (state.timeToContinue()) return 'continue';
    // Refreshes that keep failing give way to getAccessToken once its spacing allows it; until
    // then refreshing goes on with its own pauses (waiting minutes for getAccessToken while a
    // refresh could succeed would leave the account without a token longer).
    const call: TokenCall =
      state.reauthAsked || state.obtainInstead(pauses.refreshFailures)
        ? 'obtain'
        : state.nextCall();
    const wait = state.earliest(call) - now();
    if (wait > 0) {
      state.waitsFor(spacingNote(call, wait));
      // An operator's reauth turns a refresh into getAccessToken: decide again.
      const due = () => state.drains && state.timeToContinue();
      if (await condition(() => (state.reauthAsked && call !== 'obtain') || due(), wait)) continue;
    }
    state.callSent(call, true);
    try {
      if (call === 'refresh') {
        state.refreshed(await calls.refreshSessionToken(state.refreshToken));
      } else {
        let issued: IssuedTokens;
        try {
          issued = await calls.obtainSessionToken();
        } finally {
          state.obtainAnswered();
        }
        state.obtained(issued, { outcome: 'renewed', message: 'getAccessToken gave new tokens' });
      }
      log.info('supplier session: token renewed', { call, renewals: state.renewals });
      return 'renewed';
    } catch (err) {
      const f = failureOf(err, call);
      const ms = pauses.after(state, call, f);
      if (ms === undefined) continue;
      failedFor(state, f, ms);
      // An operator's reauth cuts the pause (the supplier's spacing still holds).
      await condition(() => state.reauthAsked || (state.drains && state.timeToContinue()), ms);
    }
  }
}

/** The growing pauses of one renewal, per kind of refusal. */
class RenewalPauses {
  refreshFailures = 0;
  private refreshPauses = 0;
  private obtainPauses = 0;
  private keyPauses = 0;

  /** The pause after a failed call; undefined when the next call goes at once (another kind). */
  after(state: SessionState, call: TokenCall, f: TokenCallFailure): number | undefined {
    let ms: number;
    if (call === 'refresh') {
      if (!f.retryable) {
        // 1600003, or an answer retrying cannot mend: the API key, at once.
        state.refreshRefused();
        log.warn('supplier session: refresh refused; obtaining new tokens', { code: f.code });
        return undefined;
      }
      this.refreshFailures += 1;
      if (state.obtainInstead(this.refreshFailures)) {
        log.warn('supplier session: refresh keeps failing; obtaining new tokens', {
          code: f.code,
        });
        return undefined;
      }
      ms = jittered(
        Math.min(
          REFRESH_INTERVAL_MS * 2 ** Math.min(this.refreshPauses++, 10),
          MAX_REFRESH_PAUSE_MS,
        ),
      );
    } else if (f.code === SupplierCode.UserNotFound) {
      state.keyRefusedNow({
        outcome: 'refused',
        message: `the supplier refuses the API key: ${f.message}`,
      });
      this.refreshFailures = 0;
      ms = jittered(
        Math.min(
          KEY_REFUSED_PAUSE_MS * 2 ** Math.min(this.keyPauses++, 10),
          MAX_KEY_REFUSED_PAUSE_MS,
        ),
      );
      log.warn('supplier session: the supplier refuses the API key', { code: f.code });
    } else {
      state.obtainFailed({ outcome: 'failed', message: `getAccessToken failed: ${f.message}` });
      // The refresh token may serve again meanwhile; getAccessToken waits its own spacing.
      this.refreshFailures = 0;
      ms = jittered(
        Math.min(FIRST_PAUSE_MS.obtain * 2 ** Math.min(this.obtainPauses++, 10), MAX_PAUSE_MS),
      );
    }
    return Math.max(ms, f.retryAfterMs ?? 0);
  }
}

/** The old waits; returns as soon as the run is on the session-backoff path. */
export async function renewTheOldWay(state: SessionState, calls: TokenCalls): Promise<void> {
  for (let attempt = 0; ; attempt += 1) {
    if (state.onNewPath()) return;
    const call = state.nextCall();
    const wait = state.earliest(call) - now();
    if (wait > 0) {
      state.waitsFor(spacingNote(call, wait));
      await sleep(wait);
    }
    state.callSent(call, false);
    try {
      if (call === 'refresh') {
        state.refreshed(await calls.refreshSessionToken(state.refreshToken));
      } else {
        state.obtained(await calls.obtainSessionToken());
      }
      log.info('supplier session: token renewed', { call, renewals: state.renewals });
      return;
    } catch (err) {
      const f = failureOf(err, call);
      if (call === 'refresh' && !f.retryable) {
        // 1600003, or an answer retrying cannot mend: the API key, at once.
        state.refreshRefused();
        attempt = -1;
        log.warn('supplier session: refresh refused; obtaining new tokens', { code: f.code });
        continue;
      }
      const ms = pause(call, f, attempt);
      failedFor(state, f, ms);
      await sleep(ms);
    }
  }
}

/** A token call failed: the session says so, and waits `ms` before the next. */
function failedFor(state: SessionState, f: TokenCallFailure, ms: number): void {
  state.waitsFor(`${f.endpoint} failed (${f.message}); trying again in ${Math.round(ms / 1000)} s`);
  log.warn('supplier session: token call failed', {
    endpoint: f.endpoint,
    code: f.code,
    retryable: f.retryable,
    pauseMs: ms,
  });
}

function spacingNote(call: TokenCall, wait: number): string {
  return `${endpointOf(call)} is spaced by the supplier; sending it in ${Math.ceil(wait / 1000)} s`;
}

/**
 * A pause stretched by up to half again, so that sessions of accounts refused together do not
 * come back together. uuid4() draws on the workflow's seeded random source: the same on replay.
 */
function jittered(ms: number): number {
  const unit = Number.parseInt(uuid4().slice(0, 8), 16) / 2 ** 32;
  return Math.round(ms * (1 + unit / 2));
}

function failureOf(err: unknown, call: TokenCall): TokenCallFailure {
  const endpoint = endpointOf(call);
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
 * The pause after a failed token call of the old waits, never shorter than the supplier asked. A
 * 1600200 waits one spacing of that call (the session is the account's only caller, so one spacing
 * clears it; a growing pause would keep every process of the account without a token for
 * minutes); other failures wait growing pauses.
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
