/**
 * The tracking sweepers' webhook repair settings from the environment (docs/webhook-health.md):
 * the bounds, and — with WEBHOOK_BASE_URL, or the local gateway of `dropflow dev` — each
 * account's callback to register again.
 */
import type { Config } from '../config/environment.js';
import { accountCallbackUrl } from '../gateway/registration.js';
import type { WebhookRepairOptions } from '../tracking/sweeperStart.js';

export function webhookRepairOptions(
  config: Config,
  local?: { gatewayUrl: string },
): WebhookRepairOptions {
  const base = local?.gatewayUrl ?? config.WEBHOOK_BASE_URL;
  return {
    gapSeconds: config.WEBHOOK_GAP_SECONDS,
    registerEverySeconds: config.WEBHOOK_REGISTER_EVERY_SECONDS,
    repairEverySeconds: config.WEBHOOK_REPAIR_EVERY_SECONDS,
    ...(base !== undefined && {
      callbackUrl: (account: string) =>
        accountCallbackUrl(base, account, { allowLocal: local !== undefined }),
    }),
  };
}
