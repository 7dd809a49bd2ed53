#!/usr/bin/env node
// `npx dropflow …` in a checkout, with no build step: run the TypeScript sources through tsx.
import { register } from 'tsx/esm/api';

register();

const { main, reportFailure } = await import('../src/cli/main.ts');
try {
  await main();
} catch (err) {
  // `dropflow: <message>` on stderr, or with --json one {"error": …} document on stdout.
  reportFailure(err);
}
