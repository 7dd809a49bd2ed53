/**
 * Logging: pino, JSON lines on stderr (stdout is reserved for command output such as `--json`).
 * The level comes from LOG_LEVEL (default `info`).
 */
import { pino, type Logger } from 'pino';

export type { Logger };

let root: Logger | undefined;

function rootLogger(): Logger {
  root ??= pino(
    { level: process.env['LOG_LEVEL'] ?? 'info' },
    pino.destination({ dest: 2, sync: true }),
  );
  return root;
}

/** A logger whose lines carry `name`; all loggers share one stderr destination. */
export function createLogger(name: string): Logger {
  return rootLogger().child({ name });
}
