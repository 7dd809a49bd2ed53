import { defineConfig } from 'vitest/config';
import LongFirstSequencer from './test/setup/sequencer.js';

export default defineConfig({
  test: {
    // Every test file. `npm test` leaves out the slow suite (*.slow.test.ts), `npm run test:slow`
    // runs only it (docs/testing.md); `npx vitest run <file>` runs any one file.
    include: ['test/**/*.test.ts'],
    // Temporal's native bridge and workers need processes, not threads (docs/architecture.md §19).
    pool: 'forks',
    // Most tests wait on the supplier's one-request-per-second pace, not on the CPU: run more
    // files at once than there are cores.
    maxWorkers: 6,
    // One Temporal dev server (and, later, one sandbox) for the whole run.
    globalSetup: ['test/setup/global.ts', 'test/setup/sandbox.ts'],
    // The long files first on a fresh clone, so that none of them ends the run alone.
    sequence: { sequencer: LongFirstSequencer },
    // Integration tests run real workflows against a real server: be generous.
    testTimeout: 120_000,
    // Workers and servers log at info in production; tests show warnings and errors only.
    env: { LOG_LEVEL: 'warn' },
    hookTimeout: 120_000,
  },
});
