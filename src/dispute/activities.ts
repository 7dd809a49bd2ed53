/** Dispute activities (docs/supplier-api.md §9): one supplier call each, named for the endpoint. */
import type { SupplierClient } from '../supplier/client.js';
import {
  cancelDispute,
  createDispute,
  disputeConfirmInfo,
  disputeProducts,
  getDisputeList,
} from '../supplier/api/disputes.js';
import { supplierCall, supplierExchange } from '../supplier/supplierCall.js';

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
  /** The caller's id, when the supplier gives it back (its list documents none). */
  businessDisputeId?: string;
  status?: string;
  /** The reason's name, as disputeConfirmInfo offered it. */
  reason?: string;
  /** When the supplier opened it, epoch ms. */
  createdAt?: number;
  /** The disputed order lines. */
  lineItemIds?: string[];
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

    /** Returns the supplier's requestId of the accepted create. */
    async createDispute(d: NewDispute): Promise<{ requestId?: string }> {
      const { requestId } = await supplierExchange(supplier, createDispute, {
        businessDisputeId: d.businessDisputeId,
        orderId: d.orderId,
        disputeReasonId: d.disputeReasonId,
        expectType: d.expectType,
        refundType: d.refundType,
        messageText: d.messageText,
        ...(d.imageUrls.length > 0 && { imageUrl: d.imageUrls }),
        productInfoList: d.lines,
      });
      return requestId === undefined ? {} : { requestId };
    },

    async cancelDispute(q: { orderId: string; disputeId: string }): Promise<void> {
      await supplierCall(supplier, cancelDispute, q);
    },

    /** The order's disputes, newest first. */
    async getDisputeList(orderId: string): Promise<DisputeSummary[]> {
      const r = await supplierCall(supplier, getDisputeList, { orderId, pageSize: 50 });
      return r.list.map((x) => ({
        disputeId: x.id,
        ...(x.businessDisputeId != null && { businessDisputeId: x.businessDisputeId }),
        ...(x.status != null && { status: x.status }),
        ...(x.disputeReason != null && { reason: x.disputeReason }),
        ...(epochMs(x.createDate) !== undefined && { createdAt: epochMs(x.createDate) }),
        lineItemIds: x.productList.flatMap((p) => (p.lineItemId == null ? [] : [p.lineItemId])),
        ...(x.finallyDeal != null && { finallyDeal: x.finallyDeal }),
        ...(x.money != null && { money: x.money }),
        ...(x.resendOrderCode != null && { resendOrderCode: x.resendOrderCode }),
      }));
    },
  };
}

/** The list's createDate: epoch ms, or a UTC "yyyy-MM-dd HH:mm:ss" like the order dates. */
function epochMs(v: number | string | null | undefined): number | undefined {
  if (v == null) return undefined;
  if (typeof v === 'number') return v;
  const ms = /^\d+$/.test(v)
    ? Number(v)
    : Date.parse(/^\d{4}-\d\d-\d\d \d/.test(v) ? `${v.replace(' ', 'T')}Z` : v);
  return Number.isFinite(ms) ? ms : undefined;
}

declare module '../durable/supplierActivities.js' {
  interface SupplierActivities extends ReturnType<typeof disputeActivities> {}
}
