/** Waybill upload for platform-logistics orders (flow A; docs/supplier-api.md §7.7). */
import type { WaybillInput } from './contract.js';
import type { SupplierClient } from '../supplier/client.js';
import { uploadWaybillInfo } from '../supplier/api/waybill.js';
import { supplierCall } from '../supplier/supplierCall.js';

export function waybillActivities(supplier: SupplierClient) {
  return {
    async uploadWaybillInfo(upload: { svcOrderId: string; waybill: WaybillInput }): Promise<void> {
      const { waybill } = upload;
      await supplierCall(supplier, uploadWaybillInfo, {
        orderId: upload.svcOrderId,
        svcOrderId: upload.svcOrderId,
        svcShippingCompanyName: waybill.carrier,
        trackNumber: waybill.trackNumber,
        waybillFile: {
          filename: waybill.filename,
          contentType: waybill.contentType ?? 'application/pdf',
          data: new Uint8Array(Buffer.from(waybill.contentBase64, 'base64')),
        },
      });
    },
  };
}

declare module '../durable/supplierActivities.js' {
  interface SupplierActivities extends ReturnType<typeof waybillActivities> {}
}
