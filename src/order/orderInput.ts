/**
 * The input of `fulfillOrder` (docs/architecture.md §5.1): the createOrderV3 body an upstream
 * system sends, same field names, plus dropflow's own choices under `fulfillment`. Validated before
 * a workflow starts, by `dropflow submit`, the gateway and the typed client alike.
 */
import { z } from 'zod';
import {
  ACCOUNT_ID_RULE,
  DEFAULT_ACCOUNT,
  isAccountId,
  newAccountIdIssue,
  STORE_CONNECTION_ID,
  STORE_CONNECTION_ID_RULE,
  STORE_PLATFORMS,
} from '../accounts/contract.js';
import type { StoreOrderRef } from '../store/contract.js';
import { OrderFlow } from '../supplier/api/constants.js';
import {
  CreateOrderV3Request,
  type CreateOrderRequest,
} from '../supplier/api/createOrderRequest.js';
import type { FieldIssue } from '../supplier/errors.js';
import { toFieldIssues } from '../supplier/issues.js';
import { IsoDuration, SlaDurations } from '../terms/sla.js';
import { MarginRule, needsSalePrice } from '../terms/margin.js';

// Each workflow evaluates this module again (amend checks an order in the workflow): the schemas
// are built on first use, not whenever a workflow starts.

const logisticsPolicy = () =>
  z.discriminatedUnion(
    'policy',
    [
      /** The order's own logisticName. */
      z.object({ policy: z.literal('named') }),
      /** The cheapest line the freight estimate offers for the route. */
      z.object({ policy: z.literal('cheapest') }),
      /** The line with the shortest delivery time. */
      z.object({ policy: z.literal('fastest') }),
    ],
    { error: 'must be {policy: named|cheapest|fastest}' },
  );

const storagePolicy = () =>
  z.discriminatedUnion(
    'mode',
    [
      /** The order's storageId (shopLogisticsType 1). */
      z.object({ mode: z.literal('given'), storageId: z.string().min(1).max(40) }),
      /** A storage in the origin country with stock for every line (shopLogisticsType 1). */
      z.object({ mode: z.literal('fromStock') }),
      /** Left to the supplier (shopLogisticsType 3). */
      z.object({ mode: z.literal('supplier') }),
    ],
    { error: 'must be {mode: given|fromStock|supplier}' },
  );

const paymentPolicy = () =>
  z.discriminatedUnion(
    'policy',
    [
      /** Pay from the balance as soon as the parent order exists. */
      z.object({ policy: z.literal('balance') }),
      /** Pay automatically up to `maxAmount` USD; above it, wait for approvePayment. */
      z.object({ policy: z.literal('upTo'), maxAmount: z.number().positive() }),
      /** Always wait for approvePayment. */
      z.object({ policy: z.literal('approval') }),
    ],
    { error: 'must be {policy: balance|upTo|approval}' },
  );

/**
 * Base64 by zod's own pattern. Not `z.base64()`: it also tries `atob`, which the workflow sandbox
 * lacks, so every label failed there — and `amend` checks the whole input again in the workflow.
 */
const BASE64 = /^(?:[0-9a-zA-Z+/]{4})*(?:[0-9a-zA-Z+/]{2}==|[0-9a-zA-Z+/]{3}=)?$/;

export const WaybillSchema = z.lazy(() =>
  z.object({
    carrier: z.string().min(1).max(200),
    trackNumber: z.string().min(1).max(200),
    filename: z.string().min(1).max(200),
    contentBase64: z.string().regex(BASE64, { error: 'must be base64' }).min(1),
    contentType: z.string().max(100).optional(),
  }),
);

/** Flow C: a store variant and the catalogue variant it stands for. */
const storeConnection = () =>
  z.object({
    storeProductId: z.string().min(1).max(100),
    storeVariantId: z.string().min(1).max(100),
    svcProductId: z.string().min(1).max(50),
    svcVariantId: z.string().min(1).max(50),
  });

export const FulfillmentChoices = z.lazy(() =>
  z.object({
    /** A platform logistics, B service logistics, C store flow. */
    flow: z.enum(['A', 'B', 'C'], { error: 'must be A, B or C' }),
    /** Flow C continues as A or B after creation. */
    then: z.enum(['A', 'B'], { error: 'must be A or B' }).default('B'),
    logistics: logisticsPolicy().default({ policy: 'named' }),
    /** Flow A: where the goods ship from. */
    storage: storagePolicy().optional(),
    payment: paymentPolicy().default({ policy: 'balance' }),
    /** The margin the order must keep when it pays (docs/margin-guard.md); none: not checked. */
    margin: MarginRule.optional(),
    /** Flow A: the label, when it is known at submission (otherwise provideWaybill). */
    waybill: WaybillSchema.optional(),
    /** Flow C: connections dropflow makes itself when a store product is not connected. */
    connections: z.array(storeConnection()).max(100).default([]),
    /** A supplier sandbox order (isSandbox 1): payment simulated, nothing charged or shipped. */
    sandboxOrder: z.boolean().default(false),
    /**
     * How long the supplier's own view (its order queries) may trail what it did: after a lost
     * answer, a call not seen done this long after is taken as not done. Default 120.
     */
    supplierLagSeconds: z
      .number()
      .int()
      .min(0)
      .max(24 * 3_600)
      .optional(),
    /**
     * Deadlines this order is held to, over the store's (docs/delivery-promises.md): ISO-8601
     * durations such as PT48H or P7D.
     */
    sla: SlaDurations.optional(),
    /** How long a delivered order waits for proof of delivery before it completes without. */
    proofOfDeliveryWaitHours: z
      .number()
      .positive()
      .max(24 * 90)
      .default(72),
  }),
);
export type FulfillmentChoices = z.output<typeof FulfillmentChoices>;

/** `store`: the store order the order was made from (src/store/contract.ts StoreOrderRef). */
export const StoreOrderRefSchema = z.lazy(() =>
  z.object({
    connection: z.string().regex(STORE_CONNECTION_ID, { error: STORE_CONNECTION_ID_RULE }),
    platform: z.enum(
      STORE_PLATFORMS as [StoreOrderRef['platform'], ...StoreOrderRef['platform'][]],
      {
        error: `must be one of ${STORE_PLATFORMS.join(', ')}`,
      },
    ),
    orderId: z.string().min(1).max(40),
    orderName: z.string().min(1).max(100),
    lines: z
      .array(
        z.object({
          storeLineId: z.string().min(1).max(125),
          vid: z.string().max(50),
          quantity: z.number().int().positive(),
          sku: z.string().max(200).optional(),
          storeProductId: z.string().max(64).optional(),
          storeVariantId: z.string().max(100).optional(),
        }),
      )
      .min(1)
      .max(200),
    holdFor: IsoDuration.optional(),
  }),
);

/** A line of the order: the createOrderV3 item, with what the customer paid for one unit. */
export type OrderLine = CreateOrderRequest['products'][number] & {
  /** USD per unit, as the store sold it; never sent to the supplier (its client drops it). */
  salePrice?: number;
};

/** The createOrderV3 body, whose logisticName a logistics policy may leave to dropflow. */
export type OrderBody = Omit<CreateOrderRequest, 'logisticName' | 'products'> & {
  logisticName?: string;
  products: OrderLine[];
};

export interface OrderInput {
  order: OrderBody;
  fulfillment: FulfillmentChoices;
  /**
   * The supplier account the order is fulfilled with; absent: `default` (an explicit `default` is
   * left out, so both name one order). The starter sets the run's SupplierAccount from it.
   */
  account?: string;
  /**
   * The store order it was made from, when a store connection handed it over (docs/orders.md):
   * where its tracking and cancellations go back to.
   */
  store?: StoreOrderRef;
}

/** The account of an order input: `default` when it names none. */
export function orderAccount(input: Pick<OrderInput, 'account'>): string {
  return input.account ?? DEFAULT_ACCOUNT;
}

export type ParsedOrder = { ok: true; input: OrderInput } | { ok: false; issues: FieldIssue[] };

/** A stand-in logistic name while a policy picks the real one, so the body's rules still apply. */
const PICKED_BY_POLICY = 'picked-by-policy';

/** `products[].salePrice`: dropflow's own field beside the createOrderV3 item. */
const SalePrices = z.lazy(() =>
  z.array(
    z.looseObject({
      salePrice: z
        .number({ error: 'must be a number (USD per unit)' })
        .min(0, { error: 'must be at least 0' })
        .optional(),
    }),
  ),
);

export interface ParseOptions {
  /**
   * The store's margin rule (MARGIN_RULE) for orders that name none; a rule on the margin applies
   * only to orders whose every line has a salePrice.
   */
  marginDefault?: MarginRule | undefined;
  /**
   * The order exists already (an amendment): its orderNumber and account were accepted when it
   * was received, under the rules of then, and keep their workflow id.
   */
  existing?: boolean;
}

/**
 * An orderNumber's alphabet. It names the order's workflow id, `order:<orderNumber>` for the
 * default account and `order:<account>:<orderNumber>` for another, so a `:` in it could take
 * another account's id; it also appears in URLs (`/v1/orders/<orderNumber>`) and visibility
 * queries, so it holds nothing that needs escaping there.
 */
export const ORDER_NUMBER = /^[A-Za-z0-9][A-Za-z0-9._-]{0,49}$/;
export const ORDER_NUMBER_RULE =
  'must be 1 to 50 letters A-Z or a-z, digits, ".", "_" or "-", starting with a letter or digit (no ":")';

/** The rules a new order's name and account keep beyond the supplier's (intake only). */
function intakeIssues(orderNumber: unknown, account: unknown): FieldIssue[] {
  const issues: FieldIssue[] = [];
  if (typeof orderNumber === 'string' && !ORDER_NUMBER.test(orderNumber)) {
    issues.push({ field: 'orderNumber', rule: ORDER_NUMBER_RULE });
  }
  const accountIssue = account === undefined ? undefined : newAccountIdIssue(account);
  if (accountIssue !== undefined) issues.push({ field: 'account', rule: accountIssue });
  return issues;
}

/** The sale price of each line, or its issues; nothing when products is not a list. */
function salePrices(products: unknown): { prices: (number | undefined)[]; issues: FieldIssue[] } {
  if (!Array.isArray(products)) return { prices: [], issues: [] };
  const parsed = SalePrices.safeParse(products);
  if (!parsed.success) {
    const issues = toFieldIssues(parsed.error).map((i) => ({ ...i, field: `products${i.field}` }));
    return { prices: [], issues };
  }
  return { prices: parsed.data.map((p) => p.salePrice), issues: [] };
}

/** The rule the order keeps: its own, else the store's default where it can be checked. */
function marginOf(
  own: MarginRule | undefined,
  fallback: MarginRule | undefined,
  prices: readonly (number | undefined)[],
): MarginRule | undefined {
  if (own !== undefined || fallback === undefined) return own;
  return needsSalePrice(fallback) && prices.some((p) => p === undefined) ? undefined : fallback;
}

/**
 * Checks an incoming order: the createOrderV3 body's rules (required fields, lengths), plus the
 * fulfilment choices and how they fit together. Issues name the field and the rule.
 */
export function parseOrder(raw: unknown, options: ParseOptions = {}): ParsedOrder {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    return { ok: false, issues: [{ field: '(body)', rule: 'must be a JSON object' }] };
  }
  const {
    fulfillment: rawChoices,
    account,
    store: rawStore,
    ...body
  } = raw as Record<string, unknown>;
  const issues: FieldIssue[] = [];
  if (options.existing === true) {
    if (account !== undefined && !isAccountId(account)) {
      issues.push({ field: 'account', rule: ACCOUNT_ID_RULE });
    }
  } else {
    issues.push(...intakeIssues(body.orderNumber, account));
  }
  const store = rawStore === undefined ? undefined : StoreOrderRefSchema.safeParse(rawStore);
  if (store?.success === false) {
    issues.push(...toFieldIssues(store.error).map((i) => ({ ...i, field: `store.${i.field}` })));
  }

  const choices = FulfillmentChoices.safeParse(rawChoices ?? {});
  if (!choices.success) {
    issues.push(
      ...toFieldIssues(choices.error).map((i) => ({ ...i, field: `fulfillment.${i.field}` })),
    );
  }
  const byPolicy = choices.success && choices.data.logistics.policy !== 'named';
  const withName =
    byPolicy && body.logisticName === undefined
      ? { ...body, logisticName: PICKED_BY_POLICY }
      : body;
  const order = CreateOrderV3Request.safeParse(withName);
  if (!order.success) {
    // The supplier's own rule for orderNumber (1 to 50) says it once, not twice.
    const mine = new Set(issues.map((i) => i.field));
    issues.push(...toFieldIssues(order.error).filter((i) => !mine.has(i.field)));
  }
  const sales = salePrices(body.products);
  issues.push(...sales.issues);
  if (!choices.success || !order.success || sales.issues.length > 0 || store?.success === false) {
    return { ok: false, issues };
  }

  const margin = marginOf(choices.data.margin, options.marginDefault, sales.prices);
  const f: FulfillmentChoices = { ...choices.data, ...(margin !== undefined && { margin }) };
  const o: OrderBody = {
    ...order.data,
    products: order.data.products.map((p, i) =>
      sales.prices[i] === undefined ? p : { ...p, salePrice: sales.prices[i] },
    ),
  };
  if (f.margin !== undefined && needsSalePrice(f.margin)) {
    sales.prices.forEach((price, i) => {
      if (price === undefined) {
        issues.push({
          field: `products[${i}].salePrice`,
          rule: 'is required when fulfillment.margin sets minPercent or minUsd',
        });
      }
    });
  }
  if ((f.flow === 'C') !== (o.orderFlow === OrderFlow.Store)) {
    issues.push({ field: 'orderFlow', rule: 'must be 2 exactly when fulfillment.flow is C' });
  }
  if (!usesPlatformLogistics(f) && (f.storage !== undefined || f.waybill !== undefined)) {
    issues.push({ field: 'fulfillment.storage', rule: 'storage and waybill belong to flow A' });
  }
  if (
    f.storage?.mode === 'given' &&
    o.storageId !== undefined &&
    o.storageId !== f.storage.storageId
  ) {
    issues.push({ field: 'storageId', rule: 'must equal fulfillment.storage.storageId' });
  }
  if (issues.length > 0) return { ok: false, issues };

  const { logisticName, ...rest } = o;
  const input: OrderInput = {
    order: logisticName === PICKED_BY_POLICY ? rest : o,
    fulfillment: f,
    ...(isAccountId(account) && account !== DEFAULT_ACCOUNT && { account }),
    ...(store?.success === true && { store: store.data }),
  };
  return { ok: true, input };
}

/** Flow A, or flow C continuing as A: the goods leave a platform storage, with a waybill. */
export function usesPlatformLogistics(f: FulfillmentChoices): boolean {
  return f.flow === 'A' || (f.flow === 'C' && f.then === 'A');
}

/** `A`, `B`, `C+A` or `C+B`: the FulfillmentFlow search attribute. */
export function flowLabel(f: FulfillmentChoices): string {
  return f.flow === 'C' ? `C+${f.then}` : f.flow;
}

// ---- amending an order that the supplier does not have yet --------------------------------------

/**
 * The createOrderV3 body fields `amend` may change (docs/architecture.md §9): the recipient, the
 * address, the contact, customs numbers, the lines and the logistics line. The orderNumber names
 * the order; origin, storage, flow and sandbox follow from the fulfilment choices.
 */
export const AMENDABLE_FIELDS = [
  'shippingCustomerName',
  'shippingAddress',
  'shippingAddress2',
  'houseNumber',
  'shippingCity',
  'shippingCounty',
  'shippingProvince',
  'shippingCountry',
  'shippingCountryCode',
  'shippingZip',
  'shippingPhone',
  'email',
  'taxId',
  'consigneeID',
  'iossType',
  'iossNumber',
  'remark',
  'logisticName',
  'products',
] as const satisfies readonly (keyof OrderBody)[];
export type AmendableField = (typeof AMENDABLE_FIELDS)[number];

/** What `amend` changes: createOrderV3 body fields; null removes an optional one. */
export type OrderChanges = { [K in AmendableField]?: OrderBody[K] | null };

export type AmendedOrder =
  { ok: true; input: OrderInput; fields: AmendableField[] } | { ok: false; issues: FieldIssue[] };

function isAmendable(key: string): key is AmendableField {
  return (AMENDABLE_FIELDS as readonly string[]).includes(key);
}

/** The shape of an amendment on its own: an object of amendable fields, at least one. */
export function changesIssues(raw: unknown): FieldIssue[] {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    return [{ field: '(body)', rule: 'must be a JSON object of the fields to change' }];
  }
  const keys = Object.keys(raw);
  if (keys.length === 0) return [{ field: '(body)', rule: 'must name at least one field' }];
  return keys
    .filter((key) => !isAmendable(key))
    .map((field) => ({
      field,
      rule:
        field === 'orderNumber'
          ? 'cannot be amended: it names the order'
          : `cannot be amended (amendable: ${AMENDABLE_FIELDS.join(', ')})`,
    }));
}

/**
 * The order with `raw`'s changes, checked as a whole as an incoming order is (parseOrder), with the
 * names of the fields that really change. Issues name the field and the rule.
 */
export function amendOrder(current: OrderInput, raw: unknown): AmendedOrder {
  const shape = changesIssues(raw);
  if (shape.length > 0) return { ok: false, issues: shape };
  const merged = withChanges(current.order, raw as Record<string, unknown>);
  const parsed = parseOrder(
    {
      ...merged,
      fulfillment: current.fulfillment,
      ...(current.account !== undefined && { account: current.account }),
      ...(current.store !== undefined && { store: current.store }),
    },
    { existing: true },
  );
  if (!parsed.ok) return parsed;
  const before = current.order as Record<string, unknown>;
  const after = parsed.input.order as Record<string, unknown>;
  const fields = AMENDABLE_FIELDS.filter(
    (f) => JSON.stringify(before[f]) !== JSON.stringify(after[f]),
  );
  if (fields.length === 0) {
    return {
      ok: false,
      issues: [{ field: '(body)', rule: 'changes nothing: the order already has these values' }],
    };
  }
  return { ok: true, input: parsed.input, fields };
}

/** `body` with `changes` applied: a null change removes the field. */
export function withChanges<T extends object>(body: T, changes: Record<string, unknown>): T {
  const removed = new Set(Object.keys(changes).filter((key) => changes[key] === null));
  return Object.fromEntries([
    ...Object.entries(body).filter(([key]) => !removed.has(key)),
    ...Object.entries(changes).filter(([, value]) => value !== null),
  ]) as T;
}
