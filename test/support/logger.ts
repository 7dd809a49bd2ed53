/** A logger for the SDK's bundler, runtime and replays in tests that say nothing. */
const silent = (): undefined => undefined;

export const silentLogger = {
  trace: silent,
  debug: silent,
  info: silent,
  warn: silent,
  error: silent,
  log: silent,
};
