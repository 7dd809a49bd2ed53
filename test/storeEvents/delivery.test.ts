/**
 * The delivery activity: `off` without a store, one attempt per call against a real local store,
 * the wait before the next attempt (doubling and capped, or the store's Retry-After within the
 * same bounds), the deliveries counter, and a warning that never carries the body or secret.
 */
import {
  noopMetricMeter,
  type LogLevel,
  type LogMetadata,
  type Logger,
  type MetricCounter,
  type MetricMeter,
  type MetricTags,
} from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { describe, expect, it } from 'vitest';

import {
  storeEventActivities,
  storeEventRetryMs,
  STORE_EVENT_DELIVERIES_METRIC,
  type DeliverStoreEventInput,
  type DeliveryResult,
} from '../../src/storeEvents/activities.js';
import type { StoreEventsOptions } from '../../src/terms/storeEventsSettings.js';
import { paidEvent, SECRET, useStore } from './storeServer.js';

const store = useStore();

interface Recorded {
  counters: { name: string; value: number; tags: MetricTags }[];
  logs: { level: LogLevel; message: string; meta: LogMetadata | undefined }[];
}

/** An activity environment whose meter and logger record what the activity does. */
function environment(): { env: MockActivityEnvironment; recorded: Recorded } {
  const recorded: Recorded = { counters: [], logs: [] };
  const meter: MetricMeter = {
    createCounter(name, unit, description): MetricCounter {
      const counter: MetricCounter = {
        name,
        unit,
        description,
        kind: 'counter',
        valueType: 'int',
        add(value, tags = {}) {
          recorded.counters.push({ name, value, tags });
        },
        withTags: () => counter,
      };
      return counter;
    },
    createHistogram: (...args) => noopMetricMeter.createHistogram(...args),
    createGauge: (...args) => noopMetricMeter.createGauge(...args),
    withTags: () => meter,
  };
  const log = (level: LogLevel) => (message: string, meta?: LogMetadata) => {
    recorded.logs.push({ level, message, meta });
  };
  const logger: Logger = {
    log: (level, message, meta) => {
      log(level)(message, meta);
    },
    trace: log('TRACE'),
    debug: log('DEBUG'),
    info: log('INFO'),
    warn: log('WARN'),
    error: log('ERROR'),
  };
  return {
    env: new MockActivityEnvironment({}, { metricMeter: meter, logger }),
    recorded,
  };
}

async function deliver(
  opts: StoreEventsOptions,
  attempts: number[],
): Promise<{ results: DeliveryResult[]; recorded: Recorded }> {
  const { env, recorded } = environment();
  const activities = storeEventActivities(opts);
  const deliverStoreEvent = (input: DeliverStoreEventInput) => activities.deliverStoreEvent(input);
  const results: DeliveryResult[] = [];
  for (const attempt of attempts) {
    results.push(await env.run(deliverStoreEvent, { event: paidEvent('evt_activity'), attempt }));
  }
  return { results, recorded };
}

const deliveries = (r: Recorded): string[] =>
  r.counters
    .filter((c) => c.name === STORE_EVENT_DELIVERIES_METRIC && c.value === 1)
    .map((c) => String(c.tags['result']));

describe('deliverStoreEvent', () => {
  it('answers off without a store URL, sending nothing', async () => {
    for (const opts of [{}, { url: '' }, { secret: SECRET }]) {
      const { results, recorded } = await deliver(opts, [1]);
      expect(results).toEqual([{ outcome: 'off' }]);
      expect(recorded.counters).toEqual([]);
    }
    expect(store.received).toEqual([]);
  });

  it('delivers on a 2xx and counts it', async () => {
    store.answer = (res) => res.writeHead(202).end();
    const { results, recorded } = await deliver({ url: `${store.origin}/e`, secret: SECRET }, [1]);
    expect(results).toEqual([{ outcome: 'delivered', status: 202 }]);
    expect(store.received).toHaveLength(1);
    expect(deliveries(recorded)).toEqual(['delivered']);
    expect(recorded.logs.filter((l) => l.level === 'WARN')).toEqual([]);
  });

  it('fails with the status and a doubling wait, capped at the maximum', async () => {
    store.answer = (res) => res.writeHead(500).end('broken');
    const { results, recorded } = await deliver(
      { url: `${store.origin}/e?k=v`, secret: SECRET, retryFirstMs: 1_000, retryMaxMs: 10_000 },
      [1, 2, 3, 4, 5, 40],
    );
    expect(results.map((r) => (r.outcome === 'failed' ? r.retryInMs : r.outcome))).toEqual([
      1_000, 2_000, 4_000, 8_000, 10_000, 10_000,
    ]);
    expect(results[0]).toEqual({
      outcome: 'failed',
      status: 500,
      message: `store events: ${store.host} answered HTTP 500`,
      retryInMs: 1_000,
    });
    expect(deliveries(recorded)).toEqual(Array<string>(6).fill('failed'));
  });

  it('waits as long as the store’s Retry-After says, within the same bounds', async () => {
    const opts = {
      url: `${store.origin}/e`,
      secret: SECRET,
      retryFirstMs: 5_000,
      retryMaxMs: 60_000,
    };
    const waits: number[] = [];
    for (const retryAfter of ['30', '1', '7200']) {
      store.answer = (res) => res.writeHead(503, { 'retry-after': retryAfter }).end();
      const { results } = await deliver(opts, [1]);
      const [result] = results;
      expect(result).toMatchObject({ outcome: 'failed', status: 503 });
      waits.push(result?.outcome === 'failed' ? result.retryInMs : -1);
    }
    expect(waits).toEqual([30_000, 5_000, 60_000]);
  });

  it('fails without a status when the store cannot be reached', async () => {
    const { results } = await deliver(
      { url: 'http://127.0.0.1:1/e', secret: SECRET, retryFirstMs: 2_000 },
      [2],
    );
    expect(results).toEqual([
      {
        outcome: 'failed',
        message: expect.stringMatching(/^store events: 127\.0\.0\.1:1 not reached: /) as string,
        retryInMs: 4_000,
      },
    ]);
  });

  it('warns with the event, attempt and status, never the body or secret', async () => {
    store.answer = (res) => res.writeHead(500).end();
    const { recorded } = await deliver(
      { url: `${store.origin}/e?token=query-text-42`, secret: SECRET },
      [3],
    );
    const warnings = recorded.logs.filter((l) => l.level === 'WARN');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.meta).toMatchObject({
      eventId: 'evt_activity',
      eventType: 'order.paid',
      attempt: 3,
      status: 500,
    });
    const text = JSON.stringify(warnings);
    for (const hidden of [SECRET.slice('whsec_'.length), 'PAY-1', 'query-text-42', '/e']) {
      expect(text).not.toContain(hidden);
    }
  });

  it('refuses to be built with a URL and no valid secret', () => {
    expect(() => storeEventActivities({ url: store.origin })).toThrow(/needs a secret/);
    expect(() => storeEventActivities({ url: store.origin, secret: 'whsec_x' })).toThrow(/whsec_/);
  });
});

describe('storeEventRetryMs', () => {
  it('doubles from 5 s and stops at 1 h by default', () => {
    expect([1, 2, 3, 10, 11, 12, 1_000].map((a) => storeEventRetryMs(a, undefined))).toEqual([
      5_000, 10_000, 20_000, 2_560_000, 3_600_000, 3_600_000, 3_600_000,
    ]);
  });
  it('keeps a Retry-After within [first, max]', () => {
    expect(storeEventRetryMs(9, 0)).toBe(5_000);
    expect(storeEventRetryMs(1, 90_000)).toBe(90_000);
    expect(storeEventRetryMs(1, 86_400_000)).toBe(3_600_000);
  });
});
