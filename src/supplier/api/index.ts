/** Every supplier endpoint by operation name; `api/<area>.ts` holds each one's schemas. */
import { authEndpoints } from './auth.js';
import { catalogueEndpoints } from './catalogue.js';
import { disputesEndpoints } from './disputes.js';
import { inventoryEndpoints } from './inventory.js';
import { logisticsEndpoints } from './logistics.js';
import { ordersEndpoints } from './orders.js';
import { paymentEndpoints } from './payment.js';
import { shopsEndpoints } from './shops.js';
import { waybillEndpoints } from './waybill.js';
import { webhooksEndpoints } from './webhooks.js';

export const endpoints = {
  ...authEndpoints,
  ...catalogueEndpoints,
  ...logisticsEndpoints,
  ...inventoryEndpoints,
  ...ordersEndpoints,
  ...paymentEndpoints,
  ...waybillEndpoints,
  ...disputesEndpoints,
  ...shopsEndpoints,
  ...webhooksEndpoints,
} as const;
