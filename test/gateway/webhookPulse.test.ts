/** The topic the gateway counts a pushed message under, by the message's `type`. */
import { describe, expect, it } from 'vitest';
import { topicOfType } from '../../src/gateway/webhookPulse.js';
import { WebhookTopic, WebhookType } from '../../src/supplier/api/webhooks.js';

describe('topicOfType', () => {
  it('puts each message type on the topic the supplier pushes it on', () => {
    expect(Object.values(WebhookType).map(topicOfType)).toEqual([
      WebhookTopic.Order,
      WebhookTopic.Order,
      WebhookTopic.Logistics,
      WebhookTopic.Product,
      WebhookTopic.Product,
      WebhookTopic.Stock,
      WebhookTopic.Makeup,
      WebhookTopic.PrivateOrder,
    ]);
  });

  it('says unknown for a type it cannot read, even a name every object has', () => {
    expect([undefined, 'NEW_THING', 'constructor', 'toString'].map(topicOfType)).toEqual([
      'unknown',
      'unknown',
      'unknown',
      'unknown',
    ]);
  });
});
