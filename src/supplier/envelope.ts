/** The response envelope every supplier endpoint uses (open-api.md §1, Conventions). */
import { z } from 'zod';

export const Envelope = z.looseObject({
  code: z.coerce.number(),
  result: z.boolean().nullish(),
  success: z.boolean().nullish(),
  message: z.string().nullish(),
  data: z.unknown(),
  requestId: z.string().nullish(),
});
export type Envelope = z.infer<typeof Envelope>;

export function isSuccess(e: Envelope): boolean {
  return e.code === 200 && e.result !== false;
}
