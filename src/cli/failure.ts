/**
 * How a failed command ends: `dropflow: <message>` on stderr, or, when it was given `--json`, one
 * JSON document on stdout, `{"error": {"message": "…", "code": "…"}}`, so a script reads every
 * answer from stdout; the exit code is not 0 either way (1 unless the failure names another).
 */
import { CommanderError } from 'commander';

import {
  OrderActionRejectedError,
  OrderActionUnderWayError,
  OrderConflictError,
  OrderInvalidError,
  OrderUnansweredError,
} from '../client/orderClient.js';
import { OrderNotFoundError } from '../order/contract.js';
import { ConfigError } from '../config/environment.js';
import { SupplierError, SupplierRequestInvalid } from '../supplier/errors.js';
import { TemporalUnreachableError } from './temporal.js';

/** A failure a command explains itself, with a stable code and its exit code. */
export class CommandError extends Error {
  override readonly name = 'CommandError';
  constructor(
    message: string,
    readonly code: string,
    readonly exitCode = 1,
  ) {
    super(message);
  }
}

export interface ErrorDocument {
  error: { message: string; code?: string };
}

/** Whether the command line asks for JSON (`--json` before a `--`). */
export function wantsJson(argv: readonly string[]): boolean {
  const end = argv.indexOf('--');
  return (end === -1 ? argv : argv.slice(0, end)).includes('--json');
}

/** A stable code for the failures a script may want to tell apart. */
export function errorCode(err: unknown): string | undefined {
  if (err instanceof CommandError) return err.code;
  if (err instanceof OrderNotFoundError) return 'ORDER_NOT_FOUND';
  if (err instanceof OrderActionRejectedError) return 'ACTION_REFUSED';
  if (err instanceof OrderConflictError) return 'ORDER_CONFLICT';
  if (err instanceof OrderInvalidError) return 'INVALID_INPUT';
  if (err instanceof OrderUnansweredError) return 'NO_ANSWER';
  if (err instanceof OrderActionUnderWayError) return 'ACTION_UNDER_WAY';
  if (err instanceof TemporalUnreachableError) return err.code;
  if (err instanceof ConfigError) return 'CONFIG_INVALID';
  if (err instanceof SupplierError) return `SUPPLIER_${err.code}`;
  if (err instanceof SupplierRequestInvalid) return 'SUPPLIER_REQUEST_INVALID';
  if (err instanceof CommanderError) return 'USAGE';
  return undefined;
}

export function errorDocument(err: unknown): ErrorDocument {
  const code = errorCode(err);
  return { error: { message: messageOf(err), ...(code !== undefined && { code }) } };
}

/**
 * Ends the command after `err`: prints it (JSON with `--json`) and sets the exit code. Commander's
 * own exits (help, version) keep their code and print nothing more.
 */
export function reportFailure(err: unknown, argv: readonly string[] = process.argv): void {
  const exitCode = err instanceof CommandError || err instanceof CommanderError ? err.exitCode : 1;
  if (err instanceof CommanderError && exitCode === 0) {
    process.exitCode = 0;
    return;
  }
  if (wantsJson(argv)) {
    process.stdout.write(`${JSON.stringify(errorDocument(err))}\n`);
  } else {
    const verbose = ['debug', 'trace'].includes(process.env['LOG_LEVEL'] ?? '');
    const text = verbose && err instanceof Error ? (err.stack ?? err.message) : messageOf(err);
    process.stderr.write(`dropflow: ${text}\n`);
  }
  process.exitCode = exitCode === 0 ? 1 : exitCode;
}

function messageOf(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  // Commander's messages start with "error: ".
  return err instanceof CommanderError ? err.message.replace(/^error: /, '') : err.message;
}
