/**
 * `dropflow/client`: what an upstream system uses. Submitting orders and reading their status
 * (OrderClient, parseOrder), their workflows' messages and types, disputes, and checking and
 * reading the signed store events dropflow POSTs to STORE_EVENTS_URL (verifyStoreEvent).
 */
export * from '../order/contract.js';
export * from '../order/orderInput.js';
export * from '../dispute/contract.js';
export type { FailureInfo } from '../supplier/failureDetails.js';
export type { Reason } from '../supplier/interception.js';
export type { MarginMoment } from '../terms/margin.js';
export * from './orderClient.js';
export * from './disputeClient.js';
export * from './storeEvents.js';
