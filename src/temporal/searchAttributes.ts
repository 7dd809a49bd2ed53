/**
 * Search-attribute keys of the order workflow (docs/architecture.md §7), defined once.
 *
 * Imported by workflow code (`upsertSearchAttributes`), by clients (visibility queries) and by the
 * dev server (registration), so this module must stay sandbox-safe: it may import nothing but
 * `@temporalio/common`.
 *
 * Never put personal data in a search attribute: they are not encrypted by the payload codec.
 */
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

/** Current stage of the order (`RECEIVED`, `CREATED`, …, `NEEDS_ATTENTION`, `CANCELLED`). */
export const FulfillmentStage = defineSearchAttributeKey(
  'FulfillmentStage',
  SearchAttributeType.KEYWORD,
);

/** The caller's unique order name (also part of the workflow id `order:<orderNumber>`). */
export const OrderNumber = defineSearchAttributeKey('OrderNumber', SearchAttributeType.KEYWORD);

/** The supplier's order id, once the order was created there. */
export const SvcOrderId = defineSearchAttributeKey('SvcOrderId', SearchAttributeType.KEYWORD);

/** Fulfilment flow: `A`, `B`, `C`, or a combination such as `C+A`. */
export const FulfillmentFlow = defineSearchAttributeKey(
  'FulfillmentFlow',
  SearchAttributeType.KEYWORD,
);

/** True while the order waits for a person (operator action or outside event). */
export const NeedsAttention = defineSearchAttributeKey('NeedsAttention', SearchAttributeType.BOOL);

/**
 * True while an order's (or dispute's) store events wait after a failed delivery attempt, until
 * every one of them is delivered (src/storeEvents/outbox.ts). Unset otherwise.
 */
export const StoreEventsBehind = defineSearchAttributeKey(
  'StoreEventsBehind',
  SearchAttributeType.BOOL,
);

/**
 * The supplier account a workflow works for (src/accounts/contract.ts): set by whoever starts it,
 * carried over continue-as-new. Absent on runs started before accounts were data: `default`.
 */
export const SupplierAccount = defineSearchAttributeKey(
  'SupplierAccount',
  SearchAttributeType.KEYWORD,
);

/**
 * The deadlines an order missed (`paid`, `shipped`, `firstScan`, `delivered`;
 * docs/delivery-promises.md): unset while it missed none. Being late is a flag, not a stage:
 * `SlaBreached IS NOT NULL` finds every late order.
 */
export const SlaBreached = defineSearchAttributeKey(
  'SlaBreached',
  SearchAttributeType.KEYWORD_LIST,
);

/**
 * The supplier codes of a split order's parcels still on their way (neither delivered with its
 * proof nor cancelled): how webhooks and the tracking sweeper find the order by a parcel's code.
 * Unset on an order never split.
 */
export const ParcelCodes = defineSearchAttributeKey(
  'ParcelCodes',
  SearchAttributeType.KEYWORD_LIST,
);

/** Every search-attribute key of dropflow, e.g. for `TestWorkflowEnvironment.createLocal`. */
export const searchAttributeKeys = [
  FulfillmentStage,
  OrderNumber,
  SvcOrderId,
  FulfillmentFlow,
  NeedsAttention,
  StoreEventsBehind,
  SupplierAccount,
  SlaBreached,
  ParcelCodes,
] as const;

/**
 * The same keys as a plain `name → type` record: for registering them on a server
 * (`temporal operator search-attribute create`, `operatorService.addSearchAttributes`) and for
 * checking what a server has registered.
 */
export const searchAttributeTypes: Readonly<Record<string, SearchAttributeType>> =
  Object.fromEntries(searchAttributeKeys.map((key) => [key.name, key.type]));
