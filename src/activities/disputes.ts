/** Dispute activities (docs/supplier-api.md §9): one supplier call each, named for the endpoint. */
import type { SupplierClient } from '../supplier/client.js';
import {
  cancelDispute,
  createDispute,
  disputeConfirmInfo,
  disputeProducts,
  getDisputeList,
} from '../supplier/api/disputes.js';
import { supplierCall } from './supplierCall.js';

export interface DisputableLine {
  lineItemId: string;
  /** Unit price, USD. */
  price: number;
  /** Units that can still be disputed. */
  quantity: number;
  canChoose: boolean;
}

export interface DisputeLine {
  lineItemId: string;
  quantity: number;
  price: number;
}

export interface DisputeTerms {
  maxAmount?: number;
  reasons: { id: number; name: string }[];
}

export interface DisputeSummary {
  disputeId: string;
  status?: string;
  /** 1 refund, 2 reissue, 3 reject. */
  finallyDeal?: number;
  money?: number;
  resendOrderCode?: string;
}

export interface NewDispute {
  businessDisputeId: string;
  orderId: string;
  disputeReasonId: number;
  expectType: number;
  refundType: number;
  messageText: string;
  imageUrls: string[];
  lines: DisputeLine[];
}

export function disputeActivities(supplier: SupplierClient) {
  return {
    async disputeProducts(orderId: string): Promise<DisputableLine[]> {
      const r = await supplierCall(supplier, disputeProducts, { orderId });
      return r.productInfoList.flatMap((p) =>
        p.lineItemId == null
          ? []
          : [
              {
                lineItemId: p.lineItemId,
                price: p.price ?? 0,
                quantity: p.quantity ?? 0,
                canChoose: p.canChoose !== false,
              },
            ],
      );
    },

    async disputeConfirmInfo(q: { orderId: string; lines: DisputeLine[] }): Promise<DisputeTerms> {
      const r = await supplierCall(supplier, disputeConfirmInfo, {
        orderId: q.orderId,
        productInfoList: q.lines,
      });
      return {
        ...(r.maxAmount != null && { maxAmount: r.maxAmount }),
        reasons: r.disputeReasonList.map((x) => ({
          id: x.disputeReasonId,
          name: x.reasonName ?? '',
        })),
      };
    },

    async createDispute(d: NewDispute): Promise<void> {
      await supplierCall(supplier, createDispute, {
        businessDisputeId: d.businessDisputeId,
        orderId: d.orderId,
        disputeReasonId: d.disputeReasonId,
        expectType: d.expectType,
        refundType: d.refundType,
        messageText: d.messageText,
        ...(d.imageUrls.length > 0 && { imageUrl: d.imageUrls }),
        productInfoList: d.lines,
      });
    },

    async cancelDispute(q: { orderId: string; disputeId: string }): Promise<void> {
      await supplierCall(supplier, cancelDispute, q);
    },

    /** The order's disputes, newest first. */
    async getDisputeList(orderId: string): Promise<DisputeSummary[]> {
      const r = await supplierCall(supplier, getDisputeList, { orderId, pageSize: 50 });
      return r.list.map((x) => ({
        disputeId: x.id,
        ...(x.status != null && { status: x.status }),
        ...(x.finallyDeal != null && { finallyDeal: x.finallyDeal }),
        ...(x.money != null && { money: x.money }),
        ...(x.resendOrderCode != null && { resendOrderCode: x.resendOrderCode }),
      }));
    },
  };
}
