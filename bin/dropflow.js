#!/usr/bin/env node
// `npx dropflow …` in a checkout, with no build step: run the TypeScript sources through tsx.
import { runSizedWorker } from './heap.js';

// `dropflow worker` runs in a child node whose heap is sized from the memory given (heap.js).
const exitCode = await runSizedWorker(process.argv.slice(2));
if (exitCode !== undefined) process.exit(exitCode);
if (process.env.DROPFLOW_SIZED === '1' && process.channel !== undefined) {
  // The sized worker ends with its parent, however the parent ended.
  process.on('disconnect', () => process.kill(process.pid, 'SIGKILL'));
  process.channel.unref();
}

const { register } = await import('tsx/esm/api');
register();

const { main, reportFailure } = await import('../src/cli/main.ts');
try {
  await main();
} catch (err) {
  // `dropflow: <message>` on stderr, or with --json one {"error": …} document on stdout.
  reportFailure(err);
}
