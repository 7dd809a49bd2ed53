/**
 * GET and POST /__sandbox/settings: how a worse real supplier behaves, per account (with openId)
 * or as the default of every account without settings of its own. See SandboxSettings.
 */
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { Sandbox } from '../sandbox.js';
import type { SandboxSettings } from '../state.js';
import { accountOf, control, refuse } from './control.js';

const DAY_MS = 24 * 60 * 60 * 1_000;
const MAX_PAY_WINDOW_SECONDS = 30 * 24 * 60 * 60;
const MAX_TOKEN_INTERVAL_SECONDS = 24 * 60 * 60;

/** A value sets the setting; null (with openId) makes the account follow the default again. */
const Change = z.strictObject({
  openId: z.string().min(1).optional(),
  batchLagMs: z.number().int().nonnegative().max(DAY_MS).nullable().optional(),
  batchViewAt: z.number().int().positive().nullable().optional(),
  disputeLagMs: z.number().int().nonnegative().max(DAY_MS).nullable().optional(),
  payWindowSeconds: z.number().int().positive().max(MAX_PAY_WINDOW_SECONDS).nullable().optional(),
  oneBudget: z.boolean().nullable().optional(),
  ratePerSecond: z.number().positive().max(50).nullable().optional(),
  tokenIntervalSeconds: z
    .number()
    .int()
    .nonnegative()
    .max(MAX_TOKEN_INTERVAL_SECONDS)
    .nullable()
    .optional(),
});
type Change = z.infer<typeof Change>;

const KEYS = [
  'batchLagMs',
  'batchViewAt',
  'disputeLagMs',
  'payWindowSeconds',
  'oneBudget',
  'tokenIntervalSeconds',
  'ratePerSecond',
] as const satisfies readonly (keyof SandboxSettings)[];

export function registerSettingsControlRoutes(app: FastifyInstance, sb: Sandbox): void {
  control(app, 'GET', '/__sandbox/settings', {}, (_, req) => {
    const { openId } = req.query;
    if (openId === undefined) return sb.defaults;
    accountOf(sb, openId);
    return { openId, ...sb.settingsFor(openId) };
  });

  control(app, 'POST', '/__sandbox/settings', { body: Change }, (p) => {
    const { openId } = p;
    if (openId === undefined) {
      if (KEYS.some((k) => p[k] === null)) {
        throw refuse(400, 'null resets an account setting: name the openId');
      }
      Object.assign(sb.defaults, merged({}, p));
      return sb.defaults;
    }
    const account = accountOf(sb, openId);
    account.settings = merged(account.settings ?? {}, p);
    sb.changed();
    return { openId, ...sb.settingsFor(openId) };
  });
}

/** The settings with the change applied: a value replaces, null removes, absent keeps. */
function merged(settings: Partial<SandboxSettings>, change: Change): Partial<SandboxSettings> {
  const out: Partial<SandboxSettings> = {};
  for (const k of KEYS) {
    const value = change[k] === undefined ? settings[k] : change[k];
    if (value !== undefined && value !== null) Object.assign(out, { [k]: value });
  }
  return out;
}
