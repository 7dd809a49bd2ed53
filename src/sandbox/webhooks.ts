/**
 * Webhook delivery (open-api.md §5.8, §6): POST the message to the topic's callback with the
 * `sign` header, up to 3 retries with the same messageId, and the auto-close rule.
 */
import { randomUUID } from 'node:crypto';
import type { Sandbox } from './sandbox.js';
import type { WebhookTopic } from './state.js';

/** The message envelope of open-api.md §6, without the messageId the dispatcher assigns. */
export interface WebhookMessage {
  type: string;
  messageType: string;
  params: Record<string, unknown>;
}

export class WebhookDispatcher {
  constructor(private readonly sandbox: Sandbox) {}

  enqueue(openId: string, topic: WebhookTopic, message: WebhookMessage): void {
    const account = this.sandbox.state.accounts[openId];
    const sub = account?.webhooks[topic];
    if (!sub?.enabled) return;
    const messageId = randomUUID();
    this.sandbox.state.outbox.push({
      messageId,
      openId,
      topic,
      body: JSON.stringify({ messageId, ...message }),
      attempts: 0,
      nextAttemptAt: this.sandbox.now(),
    });
    this.sandbox.changed();
  }

  start(): void {
    // delivery loop: to be implemented
  }

  stop(): void {
    // delivery loop: to be implemented
  }
}
