import type { z } from 'zod';
import type { FieldIssue } from './errors.js';

/** `['products', 0, 'vid']` → `products[0].vid` */
function fieldPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out === '' ? String(part) : `.${String(part)}`;
  }
  return out === '' ? '(body)' : out;
}

export function toFieldIssues(error: z.ZodError): FieldIssue[] {
  return error.issues.map((i) => ({ field: fieldPath(i.path), rule: i.message }));
}
