/** Building visibility (list filter) queries safely. Sandbox-safe: no imports. */

/** A visibility query literal: single-quoted, quotes and backslashes escaped. */
export function literal(value: string): string {
  return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}
