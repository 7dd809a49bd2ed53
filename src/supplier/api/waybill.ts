/**
 * Waybill of a platform-logistics order (flow A; docs/supplier-api.md §7.7): sent as
 * multipart/form-data, every field required, strings of at most 200. Upload only after payment;
 * update only while the order is UNSHIPPED. The warehouse starts work once it has the waybill.
 */
import { z } from 'zod';
import { endpoint } from '../endpoint.js';
import { text } from '../fields.js';
import { isFilePart, type FilePart } from '../http.js';

export const WaybillRequest = z.object({
  orderId: text(200),
  svcOrderId: text(200),
  /** A carrier name from the warehouse detail's logisticsBrandList (806 otherwise). */
  svcShippingCompanyName: text(200),
  trackNumber: text(200),
  /** The label file. */
  waybillFile: z.custom<FilePart>(isFilePart, { error: 'is required (a file)' }),
});
export type WaybillRequest = z.input<typeof WaybillRequest>;

/** data: boolean (documented); read tolerantly. */
const WaybillResult = z.unknown();

export const uploadWaybillInfo = endpoint({
  name: 'uploadWaybillInfo',
  method: 'POST',
  path: 'shopping/order/uploadWaybillInfo',
  transport: 'multipart',
  request: WaybillRequest,
  response: WaybillResult,
});

export const updateWaybillInfo = endpoint({
  name: 'updateWaybillInfo',
  method: 'POST',
  path: 'shopping/order/updateWaybillInfo',
  transport: 'multipart',
  request: WaybillRequest,
  response: WaybillResult,
});

export const waybillEndpoints = { uploadWaybillInfo, updateWaybillInfo } as const;
