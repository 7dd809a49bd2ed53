/** What the product's CLI loads for `dropflow dev` and `dropflow sandbox` (src/cli/devtools.ts). */
export { DEFAULT_SANDBOX_OPTIONS } from './sandbox.js';
export { startSandbox, type StartedSandbox, type StartSandboxOptions } from './server.js';
