/**
 * The state of one `supplierSession` run, written by this class alone: the account's tokens, when
 * each token call was last sent (the supplier's spacing), a refused key, the token a process
 * reported refused, and what the session waits for. Its methods say what happened; its readers
 * answer what the session decides from it (workflow code: `patched` and the workflow clock).
 */
import { ApplicationFailure, allHandlersFinished } from '@temporalio/workflow';
import {
  NO_TOKEN_YET,
  type NoToken,
  type SessionTokens,
  type SessionView,
  type SupplierSessionInput,
  type TokenGrant,
} from './contract.js';
import type { IssuedTokens } from '../supplier/tokenExchange.js';
import { OBTAIN_INTERVAL_MS, REFRESH_INTERVAL_MS, renewalDue } from '../supplier/tokenTiming.js';
import { shouldContinueAsNew } from '../durable/longRunning.js';
import { Patch } from '../durable/versions.js';
import { has } from '../durable/patches.js';

/** Updates handled per run: Temporal bounds the updates of one run (2000 by default). */
const UPDATES_PER_RUN = 500;
/** Between any two token calls: the token endpoints take one call per second per account. */
const ANY_CALL_SPACING_MS = 2_000;
/** Treat the refresh token as expired this long before its expiry. */
const REFRESH_TOKEN_MARGIN_MS = 60_000;
/**
 * Refused refreshes in a row after which the session obtains with the API key instead: their
 * growing pauses (12 s, 24 s, …, jittered) have by then spanned more than the one-minute window of
 * refreshAccessToken's 5 per minute.
 */
const REFRESH_TRIES_BEFORE_OBTAIN = 3;

export type TokenCall = 'obtain' | 'refresh';

export const now = () => new Date().getTime();
export const iso = (ms: number | undefined) =>
  ms === undefined ? undefined : new Date(ms).toISOString();
export const endpointOf = (call: TokenCall) =>
  call === 'obtain' ? 'getAccessToken' : 'refreshAccessToken';

/** What the last getAccessToken of this run gave (the `reauth` update's answer). */
export interface ObtainOutcome {
  outcome: 'renewed' | 'refused' | 'failed';
  message: string;
}

export class SessionState {
  private tokens: SessionTokens | undefined;
  private lastObtainedAt: number | undefined;
  private lastRefreshSentAt: number | undefined;
  private lastCallSentAt: number | undefined;
  private lastObtainSentAt: number | undefined;
  private renewalCount: number;
  private keyRefused: number | undefined;
  private noTokenSince: number | undefined;
  /** The current token, reported refused by a process and not renewed yet. */
  private reported: string | undefined;
  /** A token that was reported refused and came back unchanged from its refresh. */
  private refreshedUnchanged: string | undefined;
  private obtainNext = false;
  private waiting: string | undefined;
  private updates = 0;
  /** An operator asked for getAccessToken at the earliest allowed moment (`reauth`). */
  private reauth = false;
  /** getAccessToken calls sent by this run, and what the last one gave. */
  private obtains = 0;
  private lastObtainOutcome: ObtainOutcome | undefined;
  private backoff = false;
  /**
   * The run ends at its budget even while it waits to renew: 200 orders asking for a token every
   * few seconds fill a history in minutes, and a `token` update that waits keeps the run open.
   */
  readonly drains: boolean;
  readonly obtainIntervalMs: number;
  private readonly updatesPerRun: number;

  constructor(private readonly input: SupplierSessionInput) {
    this.drains = has(Patch.SessionDrains);
    this.obtainIntervalMs = input.obtainIntervalMs ?? OBTAIN_INTERVAL_MS;
    this.updatesPerRun = input.updatesPerRun ?? UPDATES_PER_RUN;
    this.tokens = input.tokens;
    this.lastObtainedAt = input.lastObtainedAt;
    this.lastRefreshSentAt = input.lastRefreshSentAt;
    this.lastCallSentAt = input.lastCallSentAt;
    this.lastObtainSentAt = input.lastObtainSentAt;
    this.renewalCount = input.renewals ?? 0;
    this.keyRefused = input.keyRefusedSince;
    this.noTokenSince = input.noTokenSince;
  }

  // ---- what the session decides from its state -------------------------------------------------

  /**
   * On the session-backoff path. Asked before each renewal and each turn of the old renewal loop
   * until it says yes (false only while replaying what came before): a session that was waiting
   * in step with the supplier when the release came takes the new waits at its next turn.
   */
  onNewPath(): boolean {
    return (this.backoff ||= has(Patch.SessionBackoff));
  }

  /** Whether the run is on the session-backoff path, without asking. */
  get onBackoffPath(): boolean {
    return this.backoff;
  }

  get renewals(): number {
    return this.renewalCount;
  }

  get keyRefusedSince(): number | undefined {
    return this.keyRefused;
  }

  get reauthAsked(): boolean {
    return this.reauth;
  }

  get obtainTries(): number {
    return this.obtains;
  }

  get lastObtain(): ObtainOutcome | undefined {
    return this.lastObtainOutcome;
  }

  get lastObtainSent(): number | undefined {
    return this.lastObtainSentAt;
  }

  /** The refresh token of the tokens held (a refresh is sent only while there are some). */
  get refreshToken(): string {
    return this.tokens!.refreshToken;
  }

  /** When the tokens held are due for renewal. */
  get renewsAt(): number | undefined {
    return this.tokens === undefined ? undefined : dueAt(this.tokens);
  }

  usable(): boolean {
    const t = this.tokens;
    return t !== undefined && t.accessToken !== this.reported && now() < t.accessExpiresAt;
  }

  /** Usable and not yet due for renewal. */
  fresh(): boolean {
    return this.usable() && now() < dueAt(this.tokens!);
  }

  renewalNeeded(): boolean {
    const t = this.tokens;
    return t === undefined || t.accessToken === this.reported || now() >= dueAt(t);
  }

  private wantsToContinue(): boolean {
    return shouldContinueAsNew() || this.updates >= this.updatesPerRun;
  }

  timeToContinue(): boolean {
    return this.wantsToContinue() && allHandlersFinished();
  }

  /** A run that is due to continue as new answers its updates at once (drains). */
  draining(): boolean {
    return this.drains && this.wantsToContinue();
  }

  /** The next token call: refresh while the refresh token is good, else obtain. */
  nextCall(): TokenCall {
    const t = this.tokens;
    const refreshable = t !== undefined && now() < t.refreshExpiresAt - REFRESH_TOKEN_MARGIN_MS;
    return refreshable && !this.obtainNext ? 'refresh' : 'obtain';
  }

  /** Refresh failed often enough, and getAccessToken's spacing allows a call now. */
  obtainInstead(refreshFailures: number): boolean {
    const lastObtainAt = Math.max(this.lastObtainedAt ?? 0, this.lastObtainSentAt ?? 0);
    return (
      refreshFailures >= REFRESH_TRIES_BEFORE_OBTAIN &&
      lastObtainAt + this.obtainIntervalMs <= now()
    );
  }

  /** When the supplier's spacing allows the call (epoch ms; in the past when it does now). */
  earliest(call: TokenCall): number {
    // The old waits spaced getAccessToken from its last answer only.
    const last =
      call === 'obtain'
        ? Math.max(this.lastObtainedAt ?? 0, this.backoff ? (this.lastObtainSentAt ?? 0) : 0)
        : (this.lastRefreshSentAt ?? 0);
    const interval = call === 'obtain' ? this.obtainIntervalMs : REFRESH_INTERVAL_MS;
    return Math.max(last + interval, (this.lastCallSentAt ?? 0) + ANY_CALL_SPACING_MS);
  }

  /** The current token, as a `token` update answers it. */
  grant(): TokenGrant {
    const t = this.tokens!;
    return {
      accessToken: t.accessToken,
      openId: t.openId,
      expiresAt: t.accessExpiresAt,
      renewsAt: dueAt(t),
    };
  }

  /** Whether `token` is the current one. */
  holds(token: string): boolean {
    return token === this.tokens?.accessToken;
  }

  /** The `session` query's answer: times and codes, never a token. */
  view(): SessionView {
    const t = this.tokens;
    return {
      hasToken: t !== undefined,
      accessExpiresAt: iso(t?.accessExpiresAt),
      renewsAt: iso(t === undefined ? undefined : dueAt(t)),
      refreshExpiresAt: iso(t?.refreshExpiresAt),
      lastObtainedAt: iso(this.lastObtainedAt),
      lastRefreshSentAt: iso(this.lastRefreshSentAt),
      renewals: this.renewalCount,
      ...(this.waiting !== undefined && { waitingFor: this.waiting }),
      ...(this.keyRefused !== undefined && { keyRefusedSince: iso(this.keyRefused) }),
      ...(this.noTokenSince !== undefined && { noTokenSince: iso(this.noTokenSince) }),
    };
  }

  /** Why a `token` update finds no usable token. */
  noTokenFailure(): ApplicationFailure {
    const since = iso(this.noTokenSince ?? now())!;
    const details: NoToken = {
      keyRefused: this.keyRefused !== undefined,
      noTokenSince: since,
      reason: this.keyRefused !== undefined ? 'supplier key refused' : `no token since ${since}`,
    };
    const message = details.keyRefused
      ? `the supplier refuses the account's API key (since ${iso(this.keyRefused)}); mend it, then \`dropflow account reauth\`: ${this.waiting ?? 'obtaining a token'}`
      : `the account has no usable access token yet (${details.reason}): ${this.waiting ?? 'obtaining one'}`;
    return ApplicationFailure.create({
      type: NO_TOKEN_YET,
      message,
      details: [details],
      nonRetryable: true,
    });
  }

  /** What the next run starts from (continue-as-new). */
  carried(): SupplierSessionInput {
    const input = this.input;
    return {
      tokens: this.tokens,
      lastObtainedAt: this.lastObtainedAt,
      lastRefreshSentAt: this.lastRefreshSentAt,
      lastCallSentAt: this.lastCallSentAt,
      renewals: this.renewalCount,
      ...(this.onNewPath() && {
        lastObtainSentAt: this.lastObtainSentAt,
        keyRefusedSince: this.keyRefused,
        noTokenSince: this.noTokenSince,
        ...(input.obtainIntervalMs !== undefined && { obtainIntervalMs: input.obtainIntervalMs }),
        ...(input.updatesPerRun !== undefined && { updatesPerRun: input.updatesPerRun }),
      }),
    };
  }

  // ---- what happened ---------------------------------------------------------------------------

  /** A `token` update arrived. */
  updateTaken(): void {
    this.updates += 1;
  }

  /** A process reports the current token refused (1600001). */
  tokenReportedRefused(token: string): void {
    if (token === this.refreshedUnchanged) this.obtainNext = true;
    this.reported = token;
  }

  /** There is no usable token: from now on, unless there was none already. */
  noteNoToken(): void {
    if (!this.usable()) this.noTokenSince ??= now();
  }

  /** What the session waits for now (the `session` query and failures show it). */
  waitsFor(what: string): void {
    this.waiting = what;
  }

  /** An operator asked for getAccessToken at the earliest allowed moment. */
  reauthRequested(): void {
    this.reauth = true;
  }

  /** A token call is sent now (`obtainSent`: the new path records getAccessToken's send too). */
  callSent(call: TokenCall, obtainSent: boolean): void {
    this.lastCallSentAt = now();
    if (call === 'refresh') this.lastRefreshSentAt = now();
    else if (obtainSent) this.lastObtainSentAt = now();
  }

  /** A getAccessToken of the new path was answered, either way. */
  obtainAnswered(): void {
    this.obtains += 1;
    this.reauth = false;
  }

  /** getAccessToken gave tokens (`outcome`: the new path records it for `reauth`). */
  obtained(issued: IssuedTokens, outcome?: ObtainOutcome): void {
    this.lastObtainedAt = now();
    this.obtainNext = false;
    if (outcome !== undefined) this.lastObtainOutcome = outcome;
    this.keep(issued);
  }

  /** refreshAccessToken gave tokens. */
  refreshed(issued: IssuedTokens): void {
    this.keep(issued);
  }

  /** The refresh was refused for good (1600003, or retrying cannot mend it): the API key next. */
  refreshRefused(): void {
    this.obtainNext = true;
  }

  /** getAccessToken was refused for the API key (1601000). */
  keyRefusedNow(outcome: ObtainOutcome): void {
    this.keyRefused ??= now();
    this.lastObtainOutcome = outcome;
  }

  /** getAccessToken failed otherwise. */
  obtainFailed(outcome: ObtainOutcome): void {
    this.lastObtainOutcome = outcome;
  }

  private keep(issued: IssuedTokens): void {
    const previous = this.tokens;
    const tokens = { ...issued, openId: issued.openId ?? previous?.openId, obtainedAt: now() };
    this.tokens = tokens;
    this.refreshedUnchanged =
      this.reported !== undefined && tokens.accessToken === this.reported
        ? this.reported
        : undefined;
    this.reported = undefined;
    this.waiting = undefined;
    this.keyRefused = undefined;
    this.noTokenSince = undefined;
    this.renewalCount += 1;
  }
}

function dueAt(t: SessionTokens): number {
  return renewalDue(t.obtainedAt, t.accessExpiresAt);
}
