/**
 * The Shopify double's GraphQL Admin API: the subset a fulfilment app uses, with the types, field
 * names and payloads of Shopify's public schema (graphql-js parses and validates, as a real
 * server would). Each object field checks the access scope Shopify's reference names for it, and a
 * missing one is an ACCESS_DENIED error that says which scope.
 */
import { buildSchema, GraphQLError } from 'graphql';

import { gid, idOf, type ShopFulfillment, type ShopifyShop, type ShopOrder } from './shop.js';

export const SDL = /* GraphQL */ `
  scalar DateTime
  scalar URL
  type Query {
    shop: Shop!
    currentAppInstallation: AppInstallation!
    order(id: ID!): Order
    fulfillment(id: ID!): Fulfillment
  }
  type Mutation {
    fulfillmentCreate(fulfillment: FulfillmentInput!, message: String): FulfillmentCreatePayload
    fulfillmentTrackingInfoUpdate(
      fulfillmentId: ID!
      trackingInfoInput: FulfillmentTrackingInput!
      notifyCustomer: Boolean
    ): FulfillmentTrackingInfoUpdatePayload
    fulfillmentEventCreate(fulfillmentEvent: FulfillmentEventInput!): FulfillmentEventCreatePayload
    tagsAdd(id: ID!, tags: [String!]!): TagsAddPayload
    orderUpdate(input: OrderInput!): OrderUpdatePayload
  }
  type Shop {
    id: ID!
    name: String!
    myshopifyDomain: String!
  }
  type AppInstallation {
    accessScopes: [AccessScope!]!
  }
  type AccessScope {
    handle: String!
  }
  type Order {
    id: ID!
    legacyResourceId: String!
    name: String!
    note: String
    tags: [String!]!
    cancelledAt: DateTime
    displayFinancialStatus: String
    displayFulfillmentStatus: String!
    lineItems(first: Int): LineItemConnection!
    fulfillmentOrders(first: Int): FulfillmentOrderConnection!
    fulfillments(first: Int): [Fulfillment!]!
  }
  type LineItem {
    id: ID!
    sku: String
    title: String!
    quantity: Int!
  }
  type LineItemConnection {
    nodes: [LineItem!]!
  }
  type FulfillmentOrder {
    id: ID!
    status: String!
    lineItems(first: Int): FulfillmentOrderLineItemConnection!
  }
  type FulfillmentOrderConnection {
    nodes: [FulfillmentOrder!]!
  }
  type FulfillmentOrderLineItem {
    id: ID!
    totalQuantity: Int!
    remainingQuantity: Int!
    lineItem: LineItem!
  }
  type FulfillmentOrderLineItemConnection {
    nodes: [FulfillmentOrderLineItem!]!
  }
  type Fulfillment {
    id: ID!
    name: String!
    status: String!
    createdAt: DateTime!
    trackingInfo(first: Int): [FulfillmentTrackingInfo!]!
    fulfillmentLineItems(first: Int): FulfillmentLineItemConnection!
    events(first: Int): FulfillmentEventConnection!
  }
  type FulfillmentTrackingInfo {
    company: String
    number: String
    url: URL
  }
  type FulfillmentLineItem {
    id: ID!
    quantity: Int
    lineItem: LineItem!
  }
  type FulfillmentLineItemConnection {
    nodes: [FulfillmentLineItem!]!
  }
  type FulfillmentEvent {
    id: ID!
    status: FulfillmentEventStatus!
    happenedAt: DateTime!
    message: String
  }
  type FulfillmentEventConnection {
    nodes: [FulfillmentEvent!]!
  }
  type UserError {
    field: [String!]
    message: String!
  }
  type FulfillmentCreatePayload {
    fulfillment: Fulfillment
    userErrors: [UserError!]!
  }
  type FulfillmentTrackingInfoUpdatePayload {
    fulfillment: Fulfillment
    userErrors: [UserError!]!
  }
  type FulfillmentEventCreatePayload {
    fulfillmentEvent: FulfillmentEvent
    userErrors: [UserError!]!
  }
  type TagsAddPayload {
    node: Order
    userErrors: [UserError!]!
  }
  type OrderUpdatePayload {
    order: Order
    userErrors: [UserError!]!
  }
  input FulfillmentInput {
    lineItemsByFulfillmentOrder: [FulfillmentOrderLineItemsInput!]!
    notifyCustomer: Boolean
    trackingInfo: FulfillmentTrackingInput
  }
  input FulfillmentOrderLineItemsInput {
    fulfillmentOrderId: ID!
    fulfillmentOrderLineItems: [FulfillmentOrderLineItemInput!]
  }
  input FulfillmentOrderLineItemInput {
    id: ID!
    quantity: Int!
  }
  input FulfillmentTrackingInput {
    company: String
    number: String
    url: URL
  }
  input FulfillmentEventInput {
    fulfillmentId: ID!
    status: FulfillmentEventStatus!
    happenedAt: DateTime
    message: String
  }
  enum FulfillmentEventStatus {
    ATTEMPTED_DELIVERY
    CARRIER_PICKED_UP
    CONFIRMED
    DELAYED
    DELIVERED
    FAILURE
    IN_TRANSIT
    LABEL_PRINTED
    LABEL_PURCHASED
    OUT_FOR_DELIVERY
    PICKED_UP
    READY_FOR_PICKUP
  }
  input OrderInput {
    id: ID!
    note: String
    tags: [String!]
  }
`;

export const schema = buildSchema(SDL);

/** The scopes each part needs (Shopify's reference: any one of a group is enough). */
export const NEEDS = {
  orders: ['read_orders', 'write_orders'],
  writeOrders: ['write_orders'],
  fulfillmentOrders: [
    'read_merchant_managed_fulfillment_orders',
    'write_merchant_managed_fulfillment_orders',
    'read_assigned_fulfillment_orders',
    'write_assigned_fulfillment_orders',
  ],
  fulfill: ['write_merchant_managed_fulfillment_orders', 'write_assigned_fulfillment_orders'],
  fulfillmentEvents: ['write_fulfillments'],
} as const;

export interface RequestContext {
  scopes: ReadonlySet<string>;
  shopDomain: string;
}

function need(ctx: RequestContext, what: string, scopes: readonly string[]): void {
  if (scopes.some((s) => ctx.scopes.has(s))) return;
  const list = scopes.map((s) => `\`${s}\``).join(', ');
  throw new GraphQLError(
    `Access denied for ${what} field. Required access: ${list} access scope.`,
    {
      extensions: {
        code: 'ACCESS_DENIED',
        documentation: 'https://shopify.dev/api/usage/access-scopes',
        requiredAccess: `${list} access scope.`,
      },
    },
  );
}

const lineItemView = (li: ShopOrder['lineItems'][number]) => ({
  id: gid('LineItem', li.id),
  sku: li.sku,
  title: li.title,
  quantity: li.quantity,
});

function fulfillmentView(order: ShopOrder, f: ShopFulfillment) {
  const line = (id: number) => order.lineItems.find((li) => li.id === id)!;
  return {
    id: gid('Fulfillment', f.id),
    name: f.name,
    status: f.status,
    createdAt: f.createdAt,
    trackingInfo: () => f.trackingInfo,
    fulfillmentLineItems: () => ({
      nodes: f.lineItems.map((l) => ({
        id: gid('FulfillmentLineItem', l.id),
        quantity: l.quantity,
        lineItem: lineItemView(line(l.lineItemId)),
      })),
    }),
    events: () => ({
      nodes: f.events.map((e) => ({ ...e, id: gid('FulfillmentEvent', e.id) })),
    }),
  };
}

function orderView(order: ShopOrder, ctx: RequestContext) {
  const fulfilled = order.fulfillmentOrders.every((fo) =>
    fo.lineItems.every((l) => l.remainingQuantity === 0),
  );
  const partly = order.fulfillments.length > 0;
  return {
    id: gid('Order', order.id),
    legacyResourceId: String(order.id),
    name: order.name,
    note: order.note,
    tags: order.tags,
    cancelledAt: order.cancelledAt,
    displayFinancialStatus: order.financialStatus.toUpperCase(),
    displayFulfillmentStatus: fulfilled
      ? 'FULFILLED'
      : partly
        ? 'PARTIALLY_FULFILLED'
        : 'UNFULFILLED',
    lineItems: () => ({ nodes: order.lineItems.map(lineItemView) }),
    fulfillmentOrders: () => {
      need(ctx, 'fulfillmentOrders', NEEDS.fulfillmentOrders);
      return {
        nodes: order.fulfillmentOrders.map((fo) => ({
          id: gid('FulfillmentOrder', fo.id),
          status: fo.status,
          lineItems: () => ({
            nodes: fo.lineItems.map((l) => ({
              id: gid('FulfillmentOrderLineItem', l.id),
              totalQuantity: l.totalQuantity,
              remainingQuantity: l.remainingQuantity,
              lineItem: lineItemView(order.lineItems.find((li) => li.id === l.lineItemId)!),
            })),
          }),
        })),
      };
    },
    fulfillments: () => order.fulfillments.map((f) => fulfillmentView(order, f)),
  };
}

let nextEventId = 9_000_000_001;

/** The root resolvers over `shop`, for one request's context. */
export function rootValue(shop: ShopifyShop, ctx: RequestContext) {
  const fulfillmentById = (id: string) => {
    const n = idOf('Fulfillment', id);
    return n === undefined ? undefined : shop.fulfillmentOf(n);
  };
  const orderById = (id: string) => {
    need(ctx, 'order', NEEDS.orders);
    const n = idOf('Order', id);
    const order = n === undefined ? undefined : shop.orders.get(n);
    return order === undefined ? null : order;
  };
  return {
    shop: () => ({
      id: gid('Shop', 1),
      name: ctx.shopDomain.split('.')[0],
      myshopifyDomain: ctx.shopDomain,
    }),
    currentAppInstallation: () => ({ accessScopes: [...ctx.scopes].map((handle) => ({ handle })) }),
    order: ({ id }: { id: string }) => {
      const order = orderById(id);
      return order === null ? null : orderView(order, ctx);
    },
    fulfillment: ({ id }: { id: string }) => {
      need(ctx, 'fulfillment', NEEDS.orders);
      const found = fulfillmentById(id);
      return found === undefined ? null : fulfillmentView(found.order, found.fulfillment);
    },
    fulfillmentCreate: ({
      fulfillment,
    }: {
      fulfillment: Parameters<ShopifyShop['createFulfillment']>[0];
    }) => {
      need(ctx, 'fulfillmentCreate', NEEDS.fulfill);
      const made = shop.createFulfillment(fulfillment);
      const found =
        made.fulfillment === undefined ? undefined : shop.fulfillmentOf(made.fulfillment.id);
      return {
        fulfillment: found === undefined ? null : fulfillmentView(found.order, found.fulfillment),
        userErrors: made.userErrors,
      };
    },
    fulfillmentTrackingInfoUpdate: (args: {
      fulfillmentId: string;
      trackingInfoInput: { company?: string; number?: string; url?: string };
    }) => {
      need(ctx, 'fulfillmentTrackingInfoUpdate', NEEDS.fulfill);
      const found = fulfillmentById(args.fulfillmentId);
      if (found === undefined)
        return {
          fulfillment: null,
          userErrors: [{ field: ['fulfillmentId'], message: 'Fulfillment does not exist.' }],
        };
      const t = args.trackingInfoInput;
      found.fulfillment.trackingInfo = [
        { company: t.company ?? null, number: t.number ?? null, url: t.url ?? null },
      ];
      return { fulfillment: fulfillmentView(found.order, found.fulfillment), userErrors: [] };
    },
    fulfillmentEventCreate: ({
      fulfillmentEvent: e,
    }: {
      fulfillmentEvent: {
        fulfillmentId: string;
        status: string;
        happenedAt?: string;
        message?: string;
      };
    }) => {
      need(ctx, 'fulfillmentEventCreate', NEEDS.fulfillmentEvents);
      const found = fulfillmentById(e.fulfillmentId);
      if (found === undefined)
        return {
          fulfillmentEvent: null,
          userErrors: [
            {
              field: ['fulfillmentEvent', 'fulfillmentId'],
              message: 'Fulfillment does not exist.',
            },
          ],
        };
      const event = {
        id: nextEventId++,
        status: e.status,
        happenedAt: e.happenedAt ?? new Date().toISOString(),
        message: e.message ?? null,
      };
      found.fulfillment.events.push(event);
      return {
        fulfillmentEvent: { ...event, id: gid('FulfillmentEvent', event.id) },
        userErrors: [],
      };
    },
    tagsAdd: ({ id, tags }: { id: string; tags: string[] }) => {
      need(ctx, 'tagsAdd', NEEDS.writeOrders);
      const order = orderById(id);
      if (order === null)
        return { node: null, userErrors: [{ field: ['id'], message: 'Order does not exist' }] };
      for (const tag of tags) if (!order.tags.includes(tag)) order.tags.push(tag);
      return { node: orderView(order, ctx), userErrors: [] };
    },
    orderUpdate: ({ input }: { input: { id: string; note?: string; tags?: string[] } }) => {
      need(ctx, 'orderUpdate', NEEDS.writeOrders);
      const order = orderById(input.id);
      if (order === null)
        return { order: null, userErrors: [{ field: ['id'], message: 'Order does not exist' }] };
      if (input.note !== undefined) order.note = input.note;
      if (input.tags !== undefined) order.tags = [...input.tags];
      return { order: orderView(order, ctx), userErrors: [] };
    },
  };
}
