/**
 * Starts the fast suite's long files first. Vitest orders files by their last run's durations,
 * which a fresh clone (CI) does not have; it then runs them in the order found, and a long file
 * found last (the replay, 2 to 3 minutes) keeps the run going alone at its end. On a clone that
 * has run before, vitest's own order (failed first, then longest first) stands.
 */
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** The files that take a minute or more on a 2-core machine, longest first. */
const LONG_FIRST = [
  'test/replay/replay.test.ts',
  'test/workflows/trackingSweep.test.ts',
  'test/security/forgedNews.test.ts',
  'test/store/storeIntake.test.ts',
  'test/workflows/checkout-batch.test.ts',
  'test/workflows/fulfillOrder-flows.test.ts',
  'test/security/codecPlaintext.test.ts',
  'test/gateway/webhooks.test.ts',
  'test/workflows/disputeRefund.test.ts',
];

export default class LongFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const ran = sorted.some((f) => this.ctx.cache.getFileTestResults(key(f)) !== undefined);
    if (ran) return sorted;
    const rank = (f: TestSpecification): number => {
      const i = LONG_FIRST.findIndex((name) => f.moduleId.endsWith(name));
      return i < 0 ? LONG_FIRST.length : i;
    };
    return [...sorted].sort((a, b) => rank(a) - rank(b));
  }
}

function key(f: TestSpecification): string {
  return `${f.project.name}:${relative(f.project.config.root, f.moduleId)}`;
}
