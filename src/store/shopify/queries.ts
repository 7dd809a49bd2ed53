/** The GraphQL documents dropflow sends a Shopify shop, and the shapes of their answers. */

export const ORDER_FULFILLMENT_STATE = /* GraphQL */ `
  query DropflowOrderFulfillment($id: ID!) {
    order(id: $id) {
      id
      name
      note
      tags
      cancelledAt
      fulfillmentOrders(first: 5) {
        nodes {
          id
          status
          lineItems(first: 25) {
            nodes {
              id
              remainingQuantity
              lineItem {
                id
              }
            }
          }
        }
      }
      fulfillments(first: 10) {
        id
        status
        trackingInfo(first: 3) {
          number
          company
          url
        }
        fulfillmentLineItems(first: 25) {
          nodes {
            quantity
            lineItem {
              id
            }
          }
        }
        events(first: 5) {
          nodes {
            status
            message
          }
        }
      }
    }
  }
`;

export interface OrderFulfillmentState {
  order: {
    id: string;
    name: string;
    note: string | null;
    tags: string[];
    cancelledAt: string | null;
    fulfillmentOrders: {
      nodes: {
        id: string;
        status: string;
        lineItems: { nodes: { id: string; remainingQuantity: number; lineItem: { id: string } }[] };
      }[];
    };
    fulfillments: ShopFulfillment[];
  } | null;
}

export interface ShopFulfillment {
  id: string;
  status: string;
  trackingInfo: { number: string | null; company: string | null; url: string | null }[];
  fulfillmentLineItems: { nodes: { quantity: number | null; lineItem: { id: string } }[] };
  events: { nodes: { status: string; message: string | null }[] };
}

export const FULFILLMENT_CREATE = /* GraphQL */ `
  mutation DropflowFulfillmentCreate($fulfillment: FulfillmentInput!) {
    fulfillmentCreate(fulfillment: $fulfillment) {
      fulfillment {
        id
        status
      }
      userErrors {
        field
        message
      }
    }
  }
`;

export const TRACKING_UPDATE = /* GraphQL */ `
  mutation DropflowTrackingUpdate(
    $id: ID!
    $tracking: FulfillmentTrackingInput!
    $notify: Boolean
  ) {
    fulfillmentTrackingInfoUpdate(
      fulfillmentId: $id
      trackingInfoInput: $tracking
      notifyCustomer: $notify
    ) {
      fulfillment {
        id
      }
      userErrors {
        field
        message
      }
    }
  }
`;

export const FULFILLMENT_EVENT_CREATE = /* GraphQL */ `
  mutation DropflowFulfillmentEvent($event: FulfillmentEventInput!) {
    fulfillmentEventCreate(fulfillmentEvent: $event) {
      fulfillmentEvent {
        id
        status
      }
      userErrors {
        field
        message
      }
    }
  }
`;

export const TAGS_ADD = /* GraphQL */ `
  mutation DropflowTagsAdd($id: ID!, $tags: [String!]!) {
    tagsAdd(id: $id, tags: $tags) {
      userErrors {
        field
        message
      }
    }
  }
`;

export const ORDER_NOTE = /* GraphQL */ `
  mutation DropflowOrderNote($input: OrderInput!) {
    orderUpdate(input: $input) {
      userErrors {
        field
        message
      }
    }
  }
`;

export const CONNECTION_CHECK = /* GraphQL */ `
  query DropflowConnectionCheck {
    shop {
      name
      myshopifyDomain
    }
    currentAppInstallation {
      accessScopes {
        handle
      }
    }
  }
`;

export interface ConnectionCheck {
  shop: { name: string; myshopifyDomain: string };
  currentAppInstallation: { accessScopes: { handle: string }[] };
}

export interface UserErrors {
  userErrors: { field: string[] | null; message: string }[];
}
