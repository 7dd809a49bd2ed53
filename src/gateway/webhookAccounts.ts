/**
 * The supplier accounts whose webhooks the gateway takes (`/webhooks/<account>`; the default
 * account's also at `/webhooks/supplier`): for each, the key its pushes are signed with and where
 * they go. The signing key is the account's openId from the directory, else the one its session
 * learned with its token (as the default account's is, unless WEBHOOK_OPEN_ID gives it). An
 * account the directory does not list has no route (404): nothing of it is verified or stored.
 */
import type { Client } from '@temporalio/client';

import { DEFAULT_ACCOUNT, type AccountDirectory } from '../accounts/contract.js';
import type { CheckoutSettings } from '../terms/checkoutSettings.js';
import { SessionTokenSource } from '../session/sessionTokens.js';
import type { TaskQueues } from '../temporal/taskQueues.js';
import { Handoff } from './handoff.js';
import { signingKey, type OpenIdSource, type SigningKey } from './signingKey.js';

export interface WebhookAccount {
  id: string;
  signingKey: SigningKey;
  handoff: Handoff;
}

export interface WebhookAccountsOptions {
  client: Client;
  queues: TaskQueues;
  checkout: CheckoutSettings;
  /** The default account's signing key (WEBHOOK_OPEN_ID, or its session's openId). */
  defaultOpenId: OpenIdSource;
  /** The other accounts; absent: the default account only. */
  accounts?: AccountDirectory;
}

/** What a cached entry was made from: a change of either makes a new one. */
interface Entry extends WebhookAccount {
  tier: number | undefined;
  openId: string | undefined;
}

export function webhookAccounts(
  opts: WebhookAccountsOptions,
): (id: string) => WebhookAccount | undefined {
  const { client, queues, checkout, accounts } = opts;
  const defaultKey = signingKey(opts.defaultOpenId);
  const cache = new Map<string, Entry>();
  return (id) => {
    const account = accounts?.get(id);
    if (account === undefined && id !== DEFAULT_ACCOUNT) {
      cache.delete(id);
      return undefined;
    }
    const cached = cache.get(id);
    if (
      cached !== undefined &&
      cached.tier === account?.tier &&
      cached.openId === account?.openId
    ) {
      return cached;
    }
    const ref = account ?? { id };
    const key =
      id === DEFAULT_ACCOUNT
        ? defaultKey
        : signingKey(account?.openId ?? sessionOpenId(client, queues, ref));
    const entry: Entry = {
      id,
      tier: account?.tier,
      openId: account?.openId,
      signingKey: key,
      handoff: new Handoff(client, queues, checkout, ref),
    };
    cache.set(id, entry);
    return entry;
  };
}

function sessionOpenId(
  client: Client,
  queues: TaskQueues,
  account: { id: string; tier?: number },
): () => Promise<string> {
  const tokens = new SessionTokenSource(client, queues, { account });
  return () => tokens.openId();
}
