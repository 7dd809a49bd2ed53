/** The response envelope every supplier endpoint uses (docs/supplier-api.md §1). */
import { z } from 'zod';
import { SupplierError, SupplierResponseInvalid } from './errors.js';
import { toFieldIssues } from './issues.js';

export const Envelope = z.looseObject({
  code: z.coerce.number(),
  result: z.boolean().nullish(),
  success: z.boolean().nullish(),
  message: z.string().nullish(),
  // Error answers may leave `data` out altogether.
  data: z.unknown().optional(),
  requestId: z.string().nullish(),
});
export type Envelope = z.infer<typeof Envelope>;

export function isSuccess(e: Envelope): boolean {
  return e.code === 200 && e.result !== false;
}

/**
 * The `data` of a supplier answer, read with `schema`; an error envelope becomes a SupplierError
 * and data the schema does not accept a SupplierResponseInvalid, both with the requestId.
 */
export function openEnvelope<S extends z.ZodType>(
  endpoint: string,
  answer: { status: number; envelope: Envelope },
  schema: S,
): { data: z.output<S>; requestId: string | undefined } {
  const { status, envelope } = answer;
  const requestId = envelope.requestId ?? undefined;
  if (!isSuccess(envelope)) {
    throw new SupplierError(endpoint, envelope.code, envelope.message ?? '', requestId, status);
  }
  const parsed = schema.safeParse(envelope.data);
  if (!parsed.success) {
    throw new SupplierResponseInvalid(endpoint, toFieldIssues(parsed.error), requestId);
  }
  return { data: parsed.data, requestId };
}
