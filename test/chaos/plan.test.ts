import { describe, expect, it } from 'vitest';

import { dynamicConfigArgs, LOWERED_LIMITS } from '../../tools/src/chaos/limits.js';
import { parseChaosArgs } from '../../tools/src/chaos/options.js';
import {
  Disruption,
  faultPlan,
  KEY_REFUSED_SHARE,
  REFRESH_REFUSED_SHARE,
  windowFor,
  type PlanOptions,
  type PlannedStep,
} from '../../tools/src/chaos/plan.js';
import { Random } from '../../tools/src/chaos/random.js';
import { deadlineFor, TOKEN_FAULTS_EXTRA_MS } from '../../tools/src/chaos/run.js';
import { startDevArgs } from '../../tools/src/localStack/temporalServer.js';
import { getAccessToken, refreshAccessToken } from '../../src/supplier/api/auth.js';

const base: PlanOptions = {
  orders: 40,
  windowMs: windowFor(40),
  kills: 3,
  latencyCalls: 2,
  latencyMs: 65_000,
  quota: false,
  operatorFaults: true,
  tokenFaults: false,
};

function plan(o: Partial<PlanOptions>, seed = 42): PlannedStep[] {
  return faultPlan(new Random(seed), { ...base, ...o });
}

const windows = (steps: PlannedStep[]) =>
  steps.flatMap((s) => (s.type === 'fault' && s.fault.forMs !== undefined ? [s] : []));

describe('faultPlan with --token-faults', () => {
  it('keeps the steps a seed drew without it, and adds only the token steps', () => {
    for (const seed of [1, 7, 42, 9_999]) {
      const without = plan({}, seed);
      const withToken = plan({ tokenFaults: true }, seed);
      const tokenSteps = [...windows(withToken), ...withToken.filter((s) => s.type === 'reauth')];
      const rest = withToken.filter((s) => !tokenSteps.includes(s));
      expect(rest.length).toBe(without.length + 2); // the two token expiries that open windows
      for (const step of without) expect(withToken).toContainEqual(step);
    }
  });

  it('refuses refreshes, then the key, each for a share of the window, and reauths after', () => {
    const steps = plan({ tokenFaults: true });
    const w = base.windowMs;
    const [refresh, key, refreshInKey] = [
      windows(steps).find((s) => s.fault.path === refreshAccessToken.path),
      windows(steps).find((s) => s.fault.kind === 'keyRefused'),
      windows(steps).filter((s) => s.fault.path === refreshAccessToken.path)[1],
    ];
    expect(refresh?.fault).toMatchObject({ kind: 'rateLimit', forMs: REFRESH_REFUSED_SHARE * w });
    expect(key?.fault).toMatchObject({
      path: getAccessToken.path,
      forMs: KEY_REFUSED_SHARE * w,
    });
    expect(refreshInKey?.at).toBe(key?.at);
    // The tokens expire as each window opens, so the session meets it.
    for (const opened of [refresh!, key!]) {
      expect(steps).toContainEqual({ at: opened.at, type: Disruption.tokenExpire });
    }
    const reauth = steps.filter((s) => s.type === Disruption.reauth);
    expect(reauth).toHaveLength(1);
    expect(reauth[0]!.at).toBeGreaterThan(key!.at + key!.fault.forMs!);
    expect(reauth[0]!.at).toBeLessThan(w);
    // A window is armed before the expiry at the same moment: the session meets it at once.
    const order =
      steps.indexOf(key!) -
      steps.findIndex((s) => s.at === key!.at && s.type === Disruption.tokenExpire);
    expect(order).toBeLessThan(0);
  });

  it("waits 5 minutes longer for the orders: the session's next getAccessToken may be that far", () => {
    expect(deadlineFor(5, true)).toBe(deadlineFor(5) + TOKEN_FAULTS_EXTRA_MS);
  });

  it('scales the windows with the run: minutes for a long run', () => {
    const long = plan({ orders: 300, windowMs: windowFor(300), tokenFaults: true });
    for (const s of windows(long)) expect(s.fault.forMs).toBeGreaterThanOrEqual(120_000);
  });
});

describe('chaos options', () => {
  const parse = (...argv: string[]) => parseChaosArgs(argv, () => 5);

  it('leaves the new fault kinds off by default', () => {
    const { options } = parse('--orders', '5');
    expect(options).toMatchObject({ tokenFaults: false, loweredLimits: false, seed: 5 });
  });

  it('turns them on by their flags', () => {
    const { options, json } = parse(
      '--orders',
      '5',
      '--token-faults',
      '--lowered-limits',
      '--operator-faults',
      '--kills',
      '0',
      '--json',
    );
    expect(json).toBe(true);
    expect(options).toMatchObject({
      orders: 5,
      tokenFaults: true,
      loweredLimits: true,
      operatorFaults: true,
      kills: 0,
    });
  });
});

describe('lowered limits', () => {
  it('start the dev server with each limit as a --dynamic-config-value', () => {
    const args = startDevArgs({
      port: 7233,
      dbFilename: 't.db',
      namespace: 'default',
      extraArgs: dynamicConfigArgs(LOWERED_LIMITS),
    });
    expect(args.join(' ')).toContain('--dynamic-config-value limit.historyCount.error=2000');
    expect(args.join(' ')).toContain(
      '--dynamic-config-value history.maximumSignalsPerExecution=400',
    );
    expect(dynamicConfigArgs({ a: 1 })).toEqual(['--dynamic-config-value', 'a=1']);
  });

  it('leave room for one order but not for the singletons of a busy day', () => {
    const largestOrderEvents = 300;
    expect(LOWERED_LIMITS['limit.historyCount.suggestContinueAsNew']).toBeGreaterThan(
      2 * largestOrderEvents,
    );
    expect(LOWERED_LIMITS['limit.historyCount.error']).toBeLessThan(51_200 / 10);
    expect(LOWERED_LIMITS['history.maximumSignalsPerExecution']).toBeLessThan(10_000 / 10);
  });
});
