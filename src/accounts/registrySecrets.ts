/** A secret as the registry file stores it (registryFile.ts SecretBox seals and opens it). */
import { z } from 'zod';

/** A secret as stored: in clear, or encrypted with the payload key `keyId`. */
export const StoredSecret = z.union(
  [
    z.string().min(1, { error: 'must not be empty' }),
    z.strictObject({
      keyId: z.string().min(1),
      ciphertext: z.base64({ error: 'must be base64' }).min(1),
    }),
  ],
  { error: 'must be a string, or {keyId, ciphertext} when encrypted' },
);
export type StoredSecret = z.infer<typeof StoredSecret>;
