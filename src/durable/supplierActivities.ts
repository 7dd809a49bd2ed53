/**
 * The activities workflows call, by the queue that runs them (temporal/taskQueues.ts): `supplier`
 * on the account-rate queue, `batch` the batch look-ups on it too, `orders` the workflow's own
 * queue (orchestration, checkout, store events, the token wait). durable/ names no area: each area
 * adds its activities to these registries where it defines them, by declaration merging —
 *
 *   declare module '../durable/supplierActivities.js' {
 *     interface SupplierActivities extends ReturnType<typeof orderActivities> {}
 *   }
 *
 * — and the entry points build them (src/activities.ts, src/worker.ts). Types only.
 */
/* eslint-disable @typescript-eslint/no-empty-object-type -- the areas fill them in */
export interface SupplierActivities {}
export interface BatchActivities {}
export interface OrdersQueueActivities {}
