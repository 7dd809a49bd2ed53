/**
 * Webhook health of one account, as pure functions (docs/webhook-health.md). The tracking sweeper
 * keeps the state and feeds it two kinds of evidence:
 *
 * - pulses from the gateways (`webhookPulse`): pushes per topic, accepted or failed, and when the
 *   latest accepted one arrived;
 * - its own sweeps: how many orders a sweep told a change no push had brought them.
 *
 * News that reaches orders only through sweeps for `gapSeconds`, or failing acknowledgements, is a
 * gap: the sweeper repairs — registers the webhooks again (when it knows the callback URL) and
 * sweeps at once — no more often than `registerEverySeconds` (doubling while repairs do not help,
 * up to a day), and sweeps every `repairEverySeconds` meanwhile. After TRIES_BEFORE_POLLING_ONLY
 * repairs without a push the supplier is taken to push nothing (`pollingOnly`): sweeps go back to
 * their interval, repairs to once a day. An accepted push on the order topic ends the gap.
 * Sandbox-safe; the time is passed in.
 */
import {
  DEFAULT_WEBHOOK_REPAIR,
  type SweeperSettings,
  type WebhookHealthView,
  type WebhookPulse,
  type WebhookRepairSettings,
} from './contract.js';

/**
 * The topic whose pushes bring what the sweeps find (an order's status): the gap is measured on
 * it, and an accepted push on it ends one.
 */
export const NEWS_TOPIC = 'order';
/** A share of failed acknowledgements at which the vendor starts closing topics (under 80 %). */
export const FAILING_SHARE = 0.2;
/** A push that told an order news this long before a sweep began may not show in visibility yet. */
export const PUSH_SLACK_MS = 10_000;
/** Repairs without a push after which the supplier is taken to push nothing. */
export const TRIES_BEFORE_POLLING_ONLY = 3;
/** The longest time between two repairs. */
export const MAX_REPAIR_SPACING_MS = 24 * 3_600_000;

export interface WebhookHealth {
  topics: Record<
    string,
    { accepted: number; failed: number; lastAcceptedAt?: number; lastToldAt?: number }
  >;
  /** Since when (epoch ms) changes reach orders only through sweeps. */
  pollOnlySince?: number;
  /** Changes sweeps told orders before any push did. */
  polledChanges: number;
  /** Since when (epoch ms) the gateways' acknowledgements fail. */
  failingSince?: number;
  registrations: number;
  lastRegistration?: { at: number; ok: boolean; error?: string };
  /** Repairs since a push last arrived on the order topic. */
  tries: number;
  /** When (epoch ms) the last repair was made. */
  lastRepairAt?: number;
}

export function freshHealth(): WebhookHealth {
  return { topics: {}, polledChanges: 0, registrations: 0, tries: 0 };
}

export function repairSettings(settings: SweeperSettings): WebhookRepairSettings {
  return settings.webhooks ?? DEFAULT_WEBHOOK_REPAIR;
}

const latestPush = (h: WebhookHealth): number | undefined => h.topics[NEWS_TOPIC]?.lastAcceptedAt;
const latestTold = (h: WebhookHealth): number | undefined => h.topics[NEWS_TOPIC]?.lastToldAt;

const later = (a: number | undefined, b: string | undefined): number | undefined => {
  const t = b === undefined ? undefined : Date.parse(b);
  if (t === undefined) return a;
  return a === undefined ? t : Math.max(a, t);
};

/**
 * A gateway's pulse. `trouble` is true when it shows failures that were not known before: the
 * sweeper then sweeps at once, since failed pushes may have carried news.
 */
export function heardPulse(
  h: WebhookHealth,
  pulse: WebhookPulse,
  now: number,
): { health: WebhookHealth; trouble: boolean } {
  const topics = { ...h.topics };
  let accepted = 0;
  let failed = 0;
  for (const [topic, p] of Object.entries(pulse.topics)) {
    const was = topics[topic] ?? { accepted: 0, failed: 0 };
    const lastAcceptedAt = later(was.lastAcceptedAt, p.lastAcceptedAt);
    const lastToldAt = later(was.lastToldAt, p.lastToldAt);
    topics[topic] = {
      accepted: was.accepted + p.accepted,
      failed: was.failed + p.failed,
      ...(lastAcceptedAt !== undefined && { lastAcceptedAt }),
      ...(lastToldAt !== undefined && { lastToldAt }),
    };
    accepted += p.accepted;
    failed += p.failed;
  }
  const next: WebhookHealth = { ...h, topics };
  const pushed = latestPush(next);
  if (pushed !== undefined && pushed > (latestPush(h) ?? -Infinity)) {
    // Pushes are back: what sweeps found before was late news, not a gap that lasts.
    if (next.pollOnlySince === undefined || pushed >= next.pollOnlySince - PUSH_SLACK_MS) {
      delete next.pollOnlySince;
      next.tries = 0;
    }
  }
  let trouble = false;
  if (failed > 0 && failed >= FAILING_SHARE * (accepted + failed)) {
    trouble = next.failingSince === undefined;
    next.failingSince ??= now;
  } else if (accepted > 0) {
    delete next.failingSince;
  }
  return { health: next, trouble };
}

/** A sweep that began at `startedAt` told `changes` orders news their stage did not show. */
export function heardSweep(h: WebhookHealth, changes: number, startedAt: number): WebhookHealth {
  if (changes <= 0) return h;
  const next = { ...h, polledChanges: h.polledChanges + changes };
  const told = latestTold(h);
  // A push told an order news just before the sweep: visibility may not show it yet.
  if (told !== undefined && told >= startedAt - PUSH_SLACK_MS) return next;
  next.pollOnlySince ??= startedAt;
  return next;
}

export function gapMs(h: WebhookHealth, now: number): number {
  return h.pollOnlySince === undefined ? 0 : Math.max(0, now - h.pollOnlySince);
}

export function inGap(h: WebhookHealth, s: WebhookRepairSettings, now: number): boolean {
  return h.failingSince !== undefined || gapMs(h, now) >= s.gapSeconds * 1_000;
}

export function modeOf(
  h: WebhookHealth,
  s: WebhookRepairSettings,
  now: number,
): WebhookHealthView['mode'] {
  if (!inGap(h, s, now)) return 'healthy';
  return h.tries >= TRIES_BEFORE_POLLING_ONLY ? 'pollingOnly' : 'gap';
}

/** The least time after the last repair before the next one. */
export function repairSpacingMs(h: WebhookHealth, s: WebhookRepairSettings): number {
  if (h.tries >= TRIES_BEFORE_POLLING_ONLY) return MAX_REPAIR_SPACING_MS;
  const base = s.registerEverySeconds * 1_000;
  return Math.min(MAX_REPAIR_SPACING_MS, base * 2 ** Math.max(0, h.tries - 1));
}

export function nextRepairAt(h: WebhookHealth, s: WebhookRepairSettings): number {
  return h.lastRepairAt === undefined ? -Infinity : h.lastRepairAt + repairSpacingMs(h, s);
}

/**
 * Whether a repair is due now: during a gap, paced. A repair registers the webhooks again (with a
 * callback URL) and sweeps at once.
 */
export function repairDue(h: WebhookHealth, s: WebhookRepairSettings, now: number): boolean {
  return inGap(h, s, now) && now >= nextRepairAt(h, s);
}

/** A repair was made at `now`; `registration`: the outcome of its webhook/set, if it sent one. */
export function repaired(
  h: WebhookHealth,
  now: number,
  registration?: { ok: boolean; error?: string },
): WebhookHealth {
  return {
    ...h,
    tries: h.tries + 1,
    lastRepairAt: now,
    ...(registration !== undefined && {
      registrations: h.registrations + 1,
      lastRegistration: { at: now, ...registration },
    }),
  };
}

/** Seconds between sweeps now: faster during a gap, the interval otherwise. */
export function sweepEverySeconds(
  h: WebhookHealth,
  s: WebhookRepairSettings,
  everySeconds: number,
  now: number,
): number {
  return modeOf(h, s, now) === 'gap' ? Math.min(everySeconds, s.repairEverySeconds) : everySeconds;
}

/**
 * How long the sweeper waits before its next sweep: the interval in force, but no later than the
 * moment news found only by sweeps becomes a gap or a repair falls due (then it repairs and
 * sweeps at once).
 */
export function waitMs(
  h: WebhookHealth,
  s: WebhookRepairSettings,
  everySeconds: number,
  now: number,
): number {
  let wait = sweepEverySeconds(h, s, everySeconds, now) * 1_000;
  if (h.pollOnlySince !== undefined && !inGap(h, s, now)) {
    wait = Math.min(wait, h.pollOnlySince + s.gapSeconds * 1_000 - now);
  }
  if (inGap(h, s, now)) wait = Math.min(wait, nextRepairAt(h, s) - now);
  return Math.max(0, wait);
}

const iso = (ms: number): string => new Date(ms).toISOString();

export function healthView(
  h: WebhookHealth,
  s: WebhookRepairSettings,
  everySeconds: number,
  lastSweepMs: number,
  now: number,
): WebhookHealthView {
  const topics: WebhookHealthView['topics'] = {};
  for (const [topic, t] of Object.entries(h.topics)) {
    topics[topic] = {
      accepted: t.accepted,
      failed: t.failed,
      ...(t.lastAcceptedAt !== undefined && { lastAcceptedAt: iso(t.lastAcceptedAt) }),
      ...(t.lastToldAt !== undefined && { lastToldAt: iso(t.lastToldAt) }),
    };
  }
  const gap = inGap(h, s, now);
  const next = nextRepairAt(h, s);
  return {
    mode: modeOf(h, s, now),
    gapSeconds: Math.round(gapMs(h, now) / 1_000),
    gapBoundSeconds: s.gapSeconds,
    ...(h.pollOnlySince !== undefined && { pollOnlySince: iso(h.pollOnlySince) }),
    polledChanges: h.polledChanges,
    topics,
    ...(h.failingSince !== undefined && { failingSince: iso(h.failingSince) }),
    registrations: h.registrations,
    ...(h.lastRegistration !== undefined && {
      lastRegistration: { ...h.lastRegistration, at: iso(h.lastRegistration.at) },
    }),
    ...(gap && { nextRepairAt: iso(Number.isFinite(next) ? next : now) }),
    worstCaseSeconds:
      sweepEverySeconds(h, s, everySeconds, now) + Math.ceil(Math.max(0, lastSweepMs) / 1_000),
  };
}
