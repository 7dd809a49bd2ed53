/**
 * The webhook signing key: the account's openId (docs/supplier-api.md §12.3), given
 * (WEBHOOK_OPEN_ID) or learned with the account's token (`tokens.openId()` of the account's
 * session, or of a SupplierClient). Resolved once and kept; a failed resolution is tried again on
 * the next request. Never logged.
 */
export type OpenIdSource = string | (() => Promise<string>);

export type SigningKey = () => Promise<string>;

export function signingKey(source: OpenIdSource): SigningKey {
  if (typeof source === 'string') {
    if (source === '') throw new Error('the webhook signing key (openId) must not be empty');
    return () => Promise.resolve(source);
  }
  let pending: Promise<string> | undefined;
  return () => {
    pending ??= (async () => {
      const key = await source();
      if (key === '') throw new Error('the supplier returned an empty openId');
      return key;
    })().catch((err: unknown) => {
      pending = undefined;
      throw err;
    });
    return pending;
  };
}
