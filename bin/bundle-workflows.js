// Bundles dropflow's workflow code for `dropflow worker` in a node of its own
// (src/temporal/workflowBundle.ts: bundleInChild): webpack's peak, a few hundred MiB, never joins
// the worker's memory. The options (paths only) come as JSON in DROPFLOW_BUNDLE; the code is
// written to its `out` file.
import { writeFileSync } from 'node:fs';
import { bundleWorkflowCode } from '@temporalio/worker';

const { out, ...options } = JSON.parse(process.env.DROPFLOW_BUNDLE ?? '{}');
const { code } = await bundleWorkflowCode(options);
writeFileSync(out, code);
