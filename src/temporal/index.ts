/**
 * `dropflow/temporal`: what a deployment and its tools share with Temporal. The task queues and
 * search attributes dropflow uses, the dev server, and the payload encryption codec.
 */
export * from './taskQueues.js';
export * from './searchAttributes.js';
export {
  devServerArgs,
  startDevServer,
  type DevServer,
  type DevServerOptions,
} from './devServer.js';
export { findTemporalCli } from './cli.js';
export { dataConverterFor, EncryptionCodec } from './encryption.js';
