/**
 * The webhook repair's one supplier call (docs/webhook-health.md): `webhook/set` ENABLE for every
 * topic at the account's callback, as `dropflow webhooks register` sends it. Sending it again is
 * harmless (the same address stays registered), so it needs no look-up before a retry.
 */
import { setWebhooks, TopicSettingType, WEBHOOK_TOPICS } from '../supplier/api/webhooks.js';
import type { SupplierClient } from '../supplier/client.js';
import { supplierCall } from '../supplier/supplierCall.js';

export interface RegisterWebhooksInput {
  /** The account's public callback (`<base>/webhooks/supplier`, `<base>/webhooks/<account>`). */
  callbackUrl: string;
}

export function webhookRepairActivities(supplier: SupplierClient) {
  return {
    async registerWebhooks(input: RegisterWebhooksInput): Promise<{ topics: string[] }> {
      const setting = { type: TopicSettingType.Enable, callbackUrls: [input.callbackUrl] };
      await supplierCall(
        supplier,
        setWebhooks,
        Object.fromEntries(WEBHOOK_TOPICS.map((topic) => [topic, setting])),
      );
      return { topics: [...WEBHOOK_TOPICS] };
    },
  };
}

export type WebhookRepairActivities = ReturnType<typeof webhookRepairActivities>;
