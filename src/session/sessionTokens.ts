/**
 * The account's access token as every worker and gateway gets it: from the account's session
 * workflow (session/supplierSession.ts), through its `token` update, cached in this process until
 * the session renews it. The first process that needs a token starts the session (idempotently:
 * an existing one is used). A token the supplier refused (1600001) is reported with the next ask,
 * so the session refreshes it once for every process.
 *
 * The client must encode payloads like the workers (the same data converter): the session hands
 * out tokens sealed with a key derived from the payload key (session/tokenSeal.ts), opened here.
 * Tokens and openId are never logged.
 */
import {
  ApplicationFailure,
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
  type Client,
} from '@temporalio/client';

import {
  NO_TOKEN_YET,
  SUPPLIER_SESSION_WORKFLOW,
  supplierSessionId,
  tokenUpdate,
  type NoToken,
  type TokenGrant,
  type TokenRequest,
  type SupplierSessionInput,
} from './contract.js';
import { TokenCallPacer } from '../supplier/tokenCallPacer.js';
import { TOKEN_CALL_INTERVAL_MS } from '../supplier/tokens.js';
import { TokenUnavailable, type TokenSource } from '../supplier/tokenSource.js';
import { isSealed, tokenSealFor, type TokenSeal } from './tokenSeal.js';
import { queuePrefix, type TaskQueues } from '../temporal/taskQueues.js';
import { accountScope, DEFAULT_ACCOUNT } from '../accounts/contract.js';
import {
  accountStartOptions,
  WorkflowPriority,
  type AccountRef,
} from '../accounts/accountStart.js';

export interface SessionTokenOptions {
  /** How long one ask may take before the caller's call fails as not sent (default 20 s). */
  answerWithinMs?: number;
  /**
   * The supplier's spacing of getAccessToken for the account, given to a session this source
   * starts (default: the documented 5 minutes). A sandbox with a shorter `--token-interval-s`.
   */
  obtainIntervalMs?: number;
  /** The supplier account whose session this is (default: the default account). */
  account?: AccountRef;
}

/** The session's workflow id for `account` in the queue set. */
export function accountSessionId(queues: TaskQueues, account: string): string {
  return supplierSessionId(accountScope(queuePrefix(queues), account));
}

/**
 * Starts the account's session unless it runs (idempotent: any number of processes may ask at
 * once); `input` only matters to a session this call starts.
 */
export async function ensureSession(
  client: Client,
  queues: TaskQueues,
  account: AccountRef,
  input: SupplierSessionInput = {},
): Promise<void> {
  await client.workflow.start(SUPPLIER_SESSION_WORKFLOW, {
    ...accountStartOptions(account, WorkflowPriority.Singleton),
    workflowId: accountSessionId(queues, account.id),
    taskQueue: queues.orders,
    args: [input],
    workflowIdConflictPolicy: 'USE_EXISTING',
  });
}

/**
 * The session answers within about 15 s, saying why when it has no token; an activity keeps the
 * rest of its minute for the call itself.
 */
const DEFAULT_ANSWER_WITHIN_MS = 20_000;
/**
 * A token whose renewal the session has not finished is asked for again no sooner than this: it
 * stays valid meanwhile, and every call would otherwise ask.
 */
const ASK_AGAIN_MS = 30_000;

/** A grant as the session answered it (tokens sealed), and its tokens opened. */
interface Held {
  grant: TokenGrant;
  accessToken: string;
  openId: string | undefined;
}

export class SessionTokenSource implements TokenSource {
  private held: Held | undefined;
  /** Until when `grant` is used without asking. */
  private until = 0;
  private refused: string | undefined;
  private pending: Promise<Held> | undefined;
  private started: Promise<void> | undefined;
  private readonly pacer = new TokenCallPacer(TOKEN_CALL_INTERVAL_MS);
  private readonly workflowId: string;
  private readonly answerWithinMs: number;
  private readonly sessionInput: SupplierSessionInput;
  private readonly account: AccountRef;
  private readonly seal: TokenSeal | undefined;

  constructor(
    private readonly client: Client,
    private readonly queues: TaskQueues,
    options: SessionTokenOptions = {},
  ) {
    this.account = options.account ?? { id: DEFAULT_ACCOUNT };
    this.workflowId = accountSessionId(queues, this.account.id);
    this.answerWithinMs = options.answerWithinMs ?? DEFAULT_ANSWER_WITHIN_MS;
    this.sessionInput =
      options.obtainIntervalMs === undefined ? {} : { obtainIntervalMs: options.obtainIntervalMs };
    this.seal = tokenSealFor(client.options.loadedDataConverter.payloadCodecs);
  }

  async accessToken(): Promise<string> {
    return (await this.current()).accessToken;
  }

  async openId(): Promise<string> {
    const { openId } = await this.current();
    if (openId === undefined) throw new TokenUnavailable('the supplier gave no openId');
    return openId;
  }

  /** Reported to the session as it handed the token out (sealed). */
  invalidate(accessToken: string): void {
    if (this.held?.accessToken === accessToken) this.refused = this.held.grant.accessToken;
  }

  /** Direct token calls through a client of this source (rare: the session makes the usual ones). */
  pace(): Promise<void> {
    return this.pacer.take();
  }

  private current(): Promise<Held> {
    const h = this.held;
    if (h !== undefined && h.grant.accessToken !== this.refused && Date.now() < this.until) {
      return Promise.resolve(h);
    }
    this.pending ??= this.ask().finally(() => {
      this.pending = undefined;
    });
    return this.pending;
  }

  private async ask(): Promise<Held> {
    const rejected = this.refused;
    try {
      const g = await this.update(rejected === undefined ? {} : { rejected });
      this.held = this.opened(g);
      // The session's answer to a report is final, even the same token.
      if (this.refused === rejected) this.refused = undefined;
      const now = Date.now();
      this.until = Math.min(g.expiresAt, Math.max(g.renewsAt, now + ASK_AGAIN_MS));
      return this.held;
    } catch (err) {
      // A token handed out earlier stays good until it expires, unless the supplier refused it.
      const old = this.held;
      const { accessToken, expiresAt } = old?.grant ?? {};
      if (old !== undefined && accessToken !== this.refused && Date.now() < expiresAt!) {
        this.until = Date.now() + ASK_AGAIN_MS;
        return old;
      }
      throw err;
    }
  }

  /** Sealed by the session's activities, or in clear from a session of an earlier release. */
  private opened(grant: TokenGrant): Held {
    const open = (value: string) => {
      if (this.seal !== undefined) {
        try {
          return this.seal.open(value);
        } catch (err) {
          throw new TokenUnavailable((err as Error).message, { cause: err });
        }
      }
      if (isSealed(value)) {
        throw new TokenUnavailable(
          "the account's session holds sealed tokens, but this process has no encryption key: give it the workers' DROPFLOW_ENCRYPTION_KEY",
        );
      }
      return value;
    };
    return {
      grant,
      accessToken: open(grant.accessToken),
      openId: grant.openId === undefined ? undefined : open(grant.openId),
    };
  }

  private async update(request: TokenRequest): Promise<TokenGrant> {
    try {
      return await this.once(request);
    } catch (err) {
      // Terminated by a person, say: start it again and ask once more.
      if (!(err instanceof WorkflowNotFoundError)) throw err;
      this.started = undefined;
      return await this.once(request);
    }
  }

  private async once(request: TokenRequest): Promise<TokenGrant> {
    const ms = this.answerWithinMs;
    const deadline = Date.now() + ms;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        reject(
          new TokenUnavailable(
            `the account's supplier session (${this.workflowId}) did not answer within ${ms} ms; is a worker of the account running?`,
          ),
        );
      }, ms);
    });
    const ask = this.client.withDeadline(deadline, async () => {
      await this.ensureStarted();
      return this.client.workflow
        .getHandle(this.workflowId)
        .executeUpdate(tokenUpdate, { args: [request] });
    });
    try {
      return await Promise.race([ask, late]);
    } catch (err) {
      if (err instanceof TokenUnavailable || err instanceof WorkflowNotFoundError) throw err;
      if (err instanceof WorkflowUpdateFailedError) {
        throw new TokenUnavailable(err.cause?.message ?? err.message, {
          cause: err,
          ...noTokenOf(err.cause),
        });
      }
      this.started = undefined;
      const message = err instanceof Error ? err.message : String(err);
      throw new TokenUnavailable(`asking the account's supplier session failed: ${message}`, {
        cause: err,
      });
    } finally {
      clearTimeout(timer);
      // A late answer or failure of the abandoned ask is of no use any more.
      ask.catch(() => undefined);
    }
  }

  private ensureStarted(): Promise<void> {
    this.started ??= ensureSession(this.client, this.queues, this.account, this.sessionInput).then(
      () => undefined,
      (err: unknown) => {
        this.started = undefined;
        throw err;
      },
    );
    return this.started;
  }
}

/** Why the session has no token, from its `token` update's failure (sessions since 2026-11). */
function noTokenOf(cause: unknown): { keyRefused?: boolean; noTokenSince?: string } {
  if (!(cause instanceof ApplicationFailure) || cause.type !== NO_TOKEN_YET) return {};
  const d = cause.details?.[0] as Partial<NoToken> | undefined;
  return {
    ...(d?.keyRefused === true && { keyRefused: true }),
    ...(typeof d?.noTokenSince === 'string' && { noTokenSince: d.noTokenSince }),
  };
}
