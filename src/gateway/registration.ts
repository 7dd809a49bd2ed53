/**
 * Telling the supplier where to push (docs/supplier-api.md §12.1): `webhook/set` with the
 * gateway's callback for every topic, then optional product subscriptions (product, variant and
 * stock changes are pushed only for subscribed products, §12.2) in calls of at most 100 ids.
 *
 * The supplier accepts only public HTTPS callbacks (localhost and 127.0.0.1 are refused with
 * 1607001); `callbackUrlFor` applies the same rule first, so a bad address is refused here with a
 * clear message. `allowLocal` lifts it for the sandbox (`dropflow dev`).
 */
import { callbackRefusal } from '../supplier/callbackAddress.js';
import {
  TopicSettingType,
  WEBHOOK_TOPICS,
  type WebhookTopicSetting,
} from '../supplier/api/webhooks.js';
import type { SupplierClient } from '../supplier/client.js';
import { SupplierCode, SupplierError } from '../supplier/errors.js';
import { accountWebhookPath, WEBHOOK_PATH } from './webhookRoute.js';
import { DEFAULT_ACCOUNT } from '../accounts/contract.js';

export class CallbackUrlRefused extends Error {
  override readonly name = 'CallbackUrlRefused';
}

/**
 * `<base>/webhooks/supplier` for a public HTTPS base URL (a path prefix is kept). Throws
 * CallbackUrlRefused for anything the supplier would refuse, unless `allowLocal`.
 */
export function callbackUrlFor(baseUrl: string, { allowLocal = false } = {}): string {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new CallbackUrlRefused(`--base-url: ${baseUrl} is not a URL`);
  }
  if (url.search !== '' || url.hash !== '' || url.username !== '' || url.password !== '') {
    throw new CallbackUrlRefused(
      `--base-url: ${baseUrl} must not carry a query, a fragment or credentials`,
    );
  }
  if (!allowLocal) {
    const refused = callbackRefusal(url);
    if (refused !== undefined) {
      throw new CallbackUrlRefused(
        `--base-url: ${refused}: the supplier pushes only to public HTTPS addresses (docs/supplier-api.md §12.1)`,
      );
    }
  } else if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new CallbackUrlRefused(`--base-url: ${baseUrl} must be an http(s) URL`);
  }
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}${WEBHOOK_PATH}`;
}

/** The callback of one account: `<base>/webhooks/supplier` for the default, else `/webhooks/<id>`. */
export function accountCallbackUrl(
  baseUrl: string,
  account: string,
  opts: { allowLocal?: boolean } = {},
): string {
  const url = callbackUrlFor(baseUrl, opts);
  if (account === DEFAULT_ACCOUNT) return url;
  return `${url.slice(0, -WEBHOOK_PATH.length)}${accountWebhookPath(account)}`;
}

/** Every topic (docs/supplier-api.md §12.1) to ENABLE at `callbackUrl`. */
export async function enableWebhooks(
  supplier: SupplierClient,
  callbackUrl: string,
): Promise<readonly string[]> {
  const setting: WebhookTopicSetting = {
    type: TopicSettingType.Enable,
    callbackUrls: [callbackUrl],
  };
  await supplier.api.setWebhooks(
    Object.fromEntries(WEBHOOK_TOPICS.map((topic) => [topic, setting])),
  );
  return WEBHOOK_TOPICS;
}

/** Product ids per subscribe call (docs/supplier-api.md §12.2). */
export const SUBSCRIBE_CHUNK = 100;

export interface SubscribeOutcome {
  subscribed: string[];
  /** The supplier refused them (already subscribed, nonexistent, …). */
  failed: string[];
  /** Not sent: the account's subscription cap was reached. */
  notSent: string[];
  /** Why some were not sent. */
  stoppedBecause?: string;
}

export interface SubscribeOptions {
  /** The account tier's cap (lv1 100 … lv5 10000); subscriptions beyond it are not sent. */
  cap?: number;
}

/** Subscribes products in calls of at most 100 ids, stopping at the account's cap. */
export async function subscribeProducts(
  supplier: SupplierClient,
  productIds: readonly string[],
  opts: SubscribeOptions = {},
): Promise<SubscribeOutcome> {
  const ids = [...new Set(productIds.map((id) => id.trim()).filter((id) => id !== ''))];
  const out: SubscribeOutcome = { subscribed: [], failed: [], notSent: [] };
  let room = Infinity;
  if (opts.cap !== undefined) {
    const held = await supplier.api.listProductSubscriptions({ pageNum: 1, pageSize: 1 });
    room = Math.max(0, opts.cap - (held.totalRecords ?? 0));
  }
  for (let i = 0; i < ids.length; i += SUBSCRIBE_CHUNK) {
    const slice = ids.slice(i, i + SUBSCRIBE_CHUNK);
    if (room <= 0) {
      out.notSent.push(...ids.slice(i));
      out.stoppedBecause = `the subscription cap of ${opts.cap} is reached`;
      break;
    }
    const send = slice.slice(0, room);
    try {
      const answer = await supplier.api.subscribeProducts({ productIds: send });
      const ok = answer.successProductIds;
      // Sent but in neither list: not subscribed either.
      const unanswered = send.filter(
        (id) => !ok.includes(id) && !answer.failProductIds.includes(id),
      );
      out.subscribed.push(...ok);
      out.failed.push(...answer.failProductIds, ...unanswered);
      room -= ok.length;
    } catch (err) {
      if (!(err instanceof SupplierError && err.code === SupplierCode.SubscriptionCapExceeded)) {
        throw err;
      }
      out.notSent.push(...ids.slice(i));
      out.stoppedBecause = `the supplier refused: ${err.message}`;
      break;
    }
    if (send.length < slice.length) {
      out.notSent.push(...slice.slice(send.length));
      out.stoppedBecause = `the subscription cap of ${opts.cap} is reached`;
    }
  }
  return out;
}
