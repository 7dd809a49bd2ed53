/** Command output: stdout only, `--json` as one JSON document (docs/architecture.md §18). */
import { withoutActionPrefix } from '../supplier/failureDetails.js';
import type { FieldIssue } from '../supplier/errors.js';

/** Exit code of a command whose input broke a rule (field issues printed). */
export const EXIT_INVALID = 2;
/** Exit code of `submit` when the orderNumber belongs to a different order. */
export const EXIT_CONFLICT = 3;

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

export function printLines(lines: readonly string[]): void {
  process.stdout.write(lines.map((line) => `${line}\n`).join(''));
}

/** Rows (the first one the header) as lines of columns padded to their widest cell. */
export function tableLines(rows: readonly (readonly string[])[]): string[] {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r) =>
    r
      .map((cell, i) => cell.padEnd(widths[i]!))
      .join('  ')
      .trimEnd(),
  );
}

/**
 * Field issues as `field: rule` lines (stderr, or one JSON document on stdout with `json`, with
 * the `error` every failed command's document has), and the exit code for invalid input.
 */
export function reportIssues(issues: readonly FieldIssue[], json: boolean): void {
  if (json) {
    const message = `invalid input: ${issues.map((i) => `${i.field}: ${i.rule}`).join('; ')}`;
    printJson({ outcome: 'invalid', issues, error: { message, code: 'INVALID_INPUT' } });
  } else process.stderr.write(issues.map((i) => `${i.field}: ${i.rule}\n`).join(''));
  process.exitCode = EXIT_INVALID;
}

/** An operator action's answer; an action heard but not carried out exits with 1. */
export function reportAction(
  action: string,
  orderNumber: string,
  result: { accepted: boolean; stage: string; message: string },
  json: boolean,
): void {
  if (json) printJson(result);
  else {
    const verdict = result.accepted ? 'accepted' : 'not carried out';
    const message = withoutActionPrefix(action, result.message);
    process.stdout.write(
      `${action} ${orderNumber}: ${verdict}; stage ${result.stage}; ${message}\n`,
    );
  }
  if (!result.accepted) process.exitCode = 1;
}
