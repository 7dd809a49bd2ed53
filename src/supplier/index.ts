/**
 * `dropflow/supplier`: the supplier's Open API as dropflow speaks it. Every endpoint with its
 * schemas and named statuses, the supplier's error codes, webhook topics and signatures, and the
 * client that sends the calls. The dev tools' sandbox serves these same schemas.
 */
export * from './api/index.js';
export * from './api/auth.js';
export * from './api/catalogue.js';
export * from './api/constants.js';
export * from './api/disputes.js';
export * from './api/inventory.js';
export * from './api/logistics.js';
export * from './api/orders.js';
export * from './api/payment.js';
export * from './api/shops.js';
export * from './api/waybill.js';
export * from './api/webhooks.js';
export { API_PREFIX, type Endpoint, type RateClass } from './endpoint.js';
export * from './errors.js';
export { toFieldIssues } from './issues.js';
export type { FilePart } from './http.js';
export { SupplierClient, type SupplierConfig } from './client.js';
export { signWebhook, verifyWebhookSignature } from './webhookSignature.js';
export { callbackRefusal } from './callbackAddress.js';
/** The schema building blocks of the request and response fields (`fields.optText`, …). */
export * as fields from './fields.js';
