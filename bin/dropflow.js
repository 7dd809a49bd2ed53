#!/usr/bin/env node
// `npx dropflow …` in a checkout, with no build step: run the TypeScript sources through tsx.
import { register } from 'tsx/esm/api';

register();

const { main } = await import('../src/cli/main.ts');
try {
  await main();
} catch (err) {
  const verbose = ['debug', 'trace'].includes(process.env.LOG_LEVEL ?? '');
  const text = err instanceof Error ? ((verbose ? err.stack : undefined) ?? err.message) : err;
  process.stderr.write(`dropflow: ${String(text)}\n`);
  process.exitCode = 1;
}
