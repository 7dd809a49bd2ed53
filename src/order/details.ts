/** The order summary shown in the Temporal UI (setCurrentDetails), in Markdown. */
import { parcelLines, parcelsGlance } from './parcels.js';
import type { OrderStatus } from './contract.js';
import { failureText } from '../supplier/failureDetails.js';
import { glanceOf } from './orderGlance.js';
import type { StoreEventsView } from '../storeEvents/contract.js';

export function renderDetails(s: OrderStatus): string {
  const g = glanceOf(s);
  const lines = [
    `**${g.stage}** — ${g.reason} — ${g.next}`,
    `order ${s.orderNumber}, flow ${s.flow}`,
  ];
  if (s.svcOrderId) lines.push(`supplier order: ${s.svcOrderId}`);
  if (s.logisticName) lines.push(`logistics: ${s.logisticName}`);
  if (s.amounts?.orderAmount !== undefined) lines.push(`amount: ${s.amounts.orderAmount} USD`);
  if (s.trackNumber)
    lines.push(`tracking: ${s.trackNumber}${s.trackingUrl ? ` (${s.trackingUrl})` : ''}`);
  const parcels = parcelLines(s.parcels);
  if (parcels.length > 0)
    lines.push(
      `${parcelsGlance(s.parcels)}:`,
      parcels
        .slice(1)
        .map((l) => `- ${l.trim()}`)
        .join('\n'),
    );
  if (s.interception) {
    lines.push(`intercepted at ${s.interception.step}:`);
    for (const r of s.interception.reasons) lines.push(`- ${r.code ?? ''} ${r.message}`.trim());
  }
  if (s.error) {
    lines.push(
      `error at ${failureText(s.error)}` +
        (s.error.code !== undefined
          ? ` (code ${s.error.code}` +
            (s.error.requestId ? `, requestId ${s.error.requestId})` : ')')
          : ''),
    );
  }
  const behind = storeEventsBehind(s.storeEvents);
  if (behind !== undefined) lines.push(behind);
  return lines.join('\n\n');
}

/** The store's backlog, once an attempt failed: what waits, the last answer, the next try. */
export function storeEventsBehind(v: StoreEventsView | undefined): string | undefined {
  const oldest = v?.waiting[0];
  if (v === undefined || oldest === undefined || v.attempts === 0) return undefined;
  return (
    `store events: ${v.waiting.length} not delivered, oldest ${oldest.type} of ${oldest.occurredAt}; ` +
    `attempt ${v.attempts} failed: ${v.lastFailure?.message ?? 'no answer'}` +
    (v.nextAttemptAt !== undefined ? `; next attempt at ${v.nextAttemptAt}` : '')
  );
}
