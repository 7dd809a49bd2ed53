/**
 * The names of the trace span attributes dropflow sets (docs/tracing.md), besides the Temporal
 * interceptors' own (`temporalWorkflowId`, `temporalActivityId`). No imports: workflow code reads
 * them too.
 */
export const SpanAttribute = {
  /** The supplier account the work is for: the workflow's SupplierAccount, the task's fairness key. */
  account: 'dropflow.account',
  /** The store's order reference (already in the order's workflow id); never the recipient's data. */
  orderNumber: 'dropflow.order_number',
  /** The workflow's id, under the key the Temporal interceptors give it on their own spans. */
  workflowId: 'temporalWorkflowId',
  /** The supplier operation, as src/supplier/api names it (`createOrderV3`, `payBalanceV2`, …). */
  supplierEndpoint: 'supplier.endpoint',
  /** The envelope's `code` (200 on success; SupplierCode otherwise). */
  supplierCode: 'supplier.code',
  supplierRequestId: 'supplier.request_id',
  /** Why a request had no envelope: the network error's code, or `no_envelope`. */
  errorType: 'error.type',
  urlPath: 'url.path',
  httpMethod: 'http.request.method',
  httpRoute: 'http.route',
  httpStatus: 'http.response.status_code',
} as const;
