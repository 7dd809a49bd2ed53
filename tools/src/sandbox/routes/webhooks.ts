/**
 * Webhook management (docs/supplier-api.md §12.1, §12.2): per-topic callback addresses and product
 * subscriptions. Delivery itself is in ../webhooks.ts.
 */
import {
  callbackRefusal,
  listProductSubscriptions,
  setWebhooks,
  subscribeProducts,
  SupplierCode,
  TopicSettingType,
  unsubscribeProducts,
  WEBHOOK_TOPICS,
  type WebhookTopicSetting,
} from 'dropflow/supplier';
import { dateTime, imageUrl, page, pageCount } from '../catalogue.js';
import { SandboxError, type SandboxRouter } from '../routing.js';
import type { Sandbox } from '../sandbox.js';
import { findProduct } from '../seed.js';
import type { SandboxAccount } from '../state.js';

/**
 * docs/supplier-api.md §12.2: from July 2026 nobody may use subscribeAll=true. Before that only
 * accounts registered before June 2026 could; the sandbox does not track registration dates.
 */
const SUBSCRIBE_ALL_ENDS = Date.UTC(2026, 6, 1);

export function registerWebhookRoutes(r: SandboxRouter): void {
  r.serve(setWebhooks, (input, account, sb) => {
    const settings = WEBHOOK_TOPICS.flatMap((topic) => {
      const setting = input[topic];
      return setting ? [{ topic, setting }] : [];
    });
    // Every address is checked before any topic changes, so a refused call changes nothing.
    for (const { topic, setting } of settings) {
      if (setting.type !== TopicSettingType.Enable) continue;
      const reason = refusal(callbackUrl(setting), sb.options.allowLocalWebhooks);
      if (reason !== undefined) {
        throw new SandboxError(
          SupplierCode.LocalCallbackRefused,
          `Callback address refused for ${topic}: ${reason}`,
        );
      }
    }
    for (const { topic, setting } of settings) {
      const prev = account.webhooks[topic];
      if (setting.type === TopicSettingType.Cancel) {
        if (prev) {
          prev.enabled = false;
          delete prev.closedReason;
        }
        continue;
      }
      const url = callbackUrl(setting);
      // A reopened topic or a new address starts a fresh record for the auto-close rule.
      const keep = prev?.enabled === true && prev.callbackUrl === url;
      account.webhooks[topic] = {
        callbackUrl: url,
        enabled: true,
        hourly: keep ? prev.hourly : {},
      };
    }
    return true;
  });

  r.serve(subscribeProducts, (input, account, sb) => {
    if (account.webhooks.product?.enabled !== true) {
      throw new SandboxError(
        SupplierCode.ProductWebhookNotEnabled,
        'product webhook not enabled: set the product topic to ENABLE with webhook/set first',
      );
    }
    const ids = [...new Set(input.productIds ?? [])];
    if (ids.length === 0) return subscribeAll(account, sb, input.subscribeAll === true);

    const success = ids.filter((pid) => findProduct(pid) && !account.subscriptions[pid]);
    const fail = ids.filter((pid) => !success.includes(pid));
    const held = Object.keys(account.subscriptions).length;
    if (held + success.length > account.subscriptionCap) {
      throw new SandboxError(
        SupplierCode.SubscriptionCapExceeded,
        `subscription cap exceeded: ${held} of ${account.subscriptionCap} subscribed, ` +
          `${success.length} more requested`,
      );
    }
    // Subscribing specific products cancels subscribe-all.
    account.subscribeAll = false;
    const createAt = dateTime(sb.now());
    for (const pid of success) account.subscriptions[pid] = { createAt, status: true };
    return {
      successProductIds: success,
      failProductIds: fail,
      ...(input.subscribeAll === undefined ? {} : { subscribeAll: false }),
    };
  });

  r.serve(unsubscribeProducts, (input, account) => {
    const gone = new Set(input.productIds);
    account.subscriptions = Object.fromEntries(
      Object.entries(account.subscriptions).filter(([pid]) => !gone.has(pid)),
    );
    return true;
  });

  r.serve(listProductSubscriptions, (input, account) => {
    const pageNum = input.pageNum ?? 1;
    const pageSize = input.pageSize ?? 20;
    const rows = Object.entries(account.subscriptions)
      .map(([pid, s]) => {
        const product = findProduct(pid);
        return {
          productId: pid,
          sku: product?.productSku ?? null,
          productName: product?.productNameEn ?? null,
          productImage: imageUrl(pid),
          status: s.status,
          reason: s.reason ?? null,
          createAt: s.createAt,
        };
      })
      .filter((row) => input.productId === undefined || row.productId === input.productId)
      .filter((row) => input.sku === undefined || row.sku === input.sku);
    return {
      pageSize,
      pageNumber: pageNum,
      totalRecords: rows.length,
      totalPages: pageCount(rows.length, pageSize),
      content: page(rows, pageNum, pageSize),
    };
  });
}

/** subscribeAll sent without productIds: true replaces the specific subscriptions. */
function subscribeAll(account: SandboxAccount, sb: Sandbox, on: boolean) {
  if (on) {
    if (sb.now() >= SUBSCRIBE_ALL_ENDS) {
      throw new SandboxError(
        SupplierCode.SubscriptionFailed,
        'subscription failed: subscribeAll is no longer available, subscribe products by id',
      );
    }
    account.subscriptions = {};
  }
  account.subscribeAll = on;
  return { successProductIds: [], failProductIds: [], subscribeAll: on };
}

function callbackUrl(setting: WebhookTopicSetting): string {
  // The request schema guarantees exactly one address.
  return setting.callbackUrls[0] ?? '';
}

/**
 * Why the supplier would refuse this callback address (see supplier/callbackAddress.ts). With
 * allowLocalWebhooks, http and local addresses are accepted for development.
 */
function refusal(raw: string, allowLocal: boolean): string | undefined {
  const reason = allowLocal ? undefined : callbackRefusal(new URL(raw));
  return reason === undefined ? undefined : `${reason}; callbacks must be public HTTPS addresses`;
}
