/**
 * `dropflow/gateway`: the HTTP gateway (webhooks in, orders in) and the registration of its
 * callback address with the supplier.
 */
export { startGateway, type StartGatewayOptions, type StartedGateway } from './server.js';
export { WEBHOOK_PATH } from './webhookRoute.js';
export { callbackUrlFor, enableWebhooks } from './registration.js';
