/**
 * Supplier codes the sandbox answers that src/supplier/errors.ts does not name (yet); the client
 * recognises these answers by their message.
 */
export const SandboxOnlyCode = {
  /** The account's daily quota is used up (supplement.md "Limits seen in practice"). */
  QuotaUsedUp: 1600201,
} as const;
export type SandboxOnlyCode = (typeof SandboxOnlyCode)[keyof typeof SandboxOnlyCode];
