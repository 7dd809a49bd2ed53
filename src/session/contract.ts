/**
 * The account's supplier session (`supplierSession`, one per account): the one access token every
 * worker and gateway of the account uses, obtained, refreshed and handed out by one workflow on
 * the account's orders queue. Id `supplier-session`, or `supplier-session:<prefix>` for a prefixed
 * queue set. Defined once for the workflow and the processes that ask it (session/sessionTokens.ts).
 * Sandbox-safe: imports only @temporalio/workflow's definers and the supplier's token types.
 */
import { defineQuery, defineUpdate } from '@temporalio/workflow';

import type { IssuedTokens } from '../supplier/tokenExchange.js';

export const SUPPLIER_SESSION_WORKFLOW = 'supplierSession';

/** `supplier-session`, or `supplier-session:<prefix>` for a prefixed queue set. */
export function supplierSessionId(accountPrefix = ''): string {
  return accountPrefix === '' ? 'supplier-session' : `supplier-session:${accountPrefix}`;
}

export interface TokenRequest {
  /** The access token the supplier just refused (1600001): answer a renewed one. */
  rejected?: string;
}

/**
 * What a process may use, and until when. Times are epoch milliseconds. The access token and openId
 * are sealed (session/tokenSeal.ts) where payloads are encrypted; in clear in sessions of earlier
 * releases and with --insecure.
 */
export interface TokenGrant {
  accessToken: string;
  /** The account's openId (the webhook signing key); absent only if the supplier never sent it. */
  openId: string | undefined;
  expiresAt: number;
  /** When the session renews it: ask again from then on. */
  renewsAt: number;
}

/**
 * The account's current token: answered at once when the session holds a valid one that is not
 * the rejected one, otherwise once it has one. Concurrent reports of one refused token renew it
 * once.
 */
export const tokenUpdate = defineUpdate<TokenGrant, [TokenRequest]>('token');

/** The session as an operator sees it: times and the current wait, never a token. */
export interface SessionView {
  hasToken: boolean;
  /** ISO 8601. */
  accessExpiresAt?: string;
  renewsAt?: string;
  refreshExpiresAt?: string;
  lastObtainedAt?: string;
  lastRefreshSentAt?: string;
  /** Renewals (obtained or refreshed tokens) since the session started, across its runs. */
  renewals: number;
  /** Why the session has no fresh token yet, and when it tries again. */
  waitingFor?: string;
  /** Since when the supplier refuses the account's API key (getAccessToken answered 1601000). */
  keyRefusedSince?: string;
  /** Since when the session has had no usable access token. */
  noTokenSince?: string;
}

export const sessionQuery = defineQuery<SessionView>('session');

/** The failure type of a `token` update that found no usable token in time; details: one NoToken. */
export const NO_TOKEN_YET = 'NoTokenYet';

export interface NoToken {
  /** The supplier refuses the account's API key: no token can be had until it is mended. */
  keyRefused: boolean;
  /** Since when the account has had no usable access token (ISO 8601). */
  noTokenSince?: string;
  /** `supplier key refused`, or `no token since <ISO 8601>`. */
  reason: string;
}

/** What `reauth` did, or when it will. */
export interface ReauthAnswer {
  /**
   * renewed: getAccessToken gave tokens; refused: the supplier refused the key again; failed: it
   * did not answer usefully (busy, rate-limited, lost); scheduled: the supplier's spacing puts the
   * call further away than the answer waits (`triesAt`); not-needed: the session holds a usable
   * token and the key is not refused.
   */
  outcome: 'renewed' | 'refused' | 'failed' | 'scheduled' | 'not-needed';
  /** When getAccessToken was or will be sent (ISO 8601). */
  triesAt?: string;
  message: string;
  session: SessionView;
}

/**
 * An operator mended the API key (`dropflow account reauth`): send getAccessToken at the earliest
 * moment the supplier's spacing allows, and answer what it gave (or when it will be sent).
 */
export const reauthUpdate = defineUpdate<ReauthAnswer>('reauth');

/** The failure type of the session's token-call activities; details: one TokenCallFailure. */
export const TOKEN_CALL_FAILED = 'SupplierTokenCallFailed';

export interface TokenCallFailure {
  endpoint: string;
  /** The supplier's code, when it answered. */
  code?: number;
  message: string;
  /** Busy, rate-limited, a daily quota, no answer: the same call may succeed later. */
  retryable: boolean;
  retryAfterMs?: number;
}

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
  /** When getAccessToken was last sent, answered or not (epoch ms). */
  lastObtainSentAt?: number;
  /** Since when the supplier refuses the API key, and the account has had no usable token. */
  keyRefusedSince?: number;
  noTokenSince?: number;
  /**
   * The supplier's spacing of getAccessToken for this account (default OBTAIN_INTERVAL_MS); a
   * sandbox with another `--token-interval-s` (tests) sets it when it starts the session.
   */
  obtainIntervalMs?: number;
  /** Updates handled per run (default UPDATES_PER_RUN; tests set fewer). */
  updatesPerRun?: number;
}
