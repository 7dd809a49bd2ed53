/**
 * Run by bin/heap.js before it starts the sized `dropflow worker`: bundles the workflow code that
 * worker will ask for, from the same environment, into the file named by argv[2], and the paths it
 * was made of into `<file>.json`. Webpack's peak then passes before the worker's memory grows,
 * never beside it. The worker takes the bundle only when those paths are its own
 * (workflowBundle.ts `workerBundle`).
 */
import { writeFile } from 'node:fs/promises';

import { bundleWorkflowCode } from '@temporalio/worker';

import { cliPayloadCodec } from './temporal.js';
import { loadConfig, workerDeployment } from '../config/environment.js';
import { otlpTracesEndpoint } from '../temporal/tracing.js';
import { workerBundlePaths } from '../temporal/workflowBundle.js';

const out = process.argv[2];
if (out === undefined) throw new Error('usage: prebundle <file>');
const config = loadConfig();
const paths = workerBundlePaths({
  versioned: workerDeployment(config) !== undefined,
  encrypted: (await cliPayloadCodec(config)) !== undefined,
  tracing: otlpTracesEndpoint() !== undefined,
});
const { code } = await bundleWorkflowCode(paths);
await writeFile(out, code);
await writeFile(`${out}.json`, JSON.stringify(paths));
