/**
 * The order as submitted with the amendments taken since, written by this class alone: the
 * createOrderV3 body carries each amended field (null: removed), and a store order's products
 * carry the supplier variants its lines resolved to. An amend is taken only while the supplier has
 * nothing of the order and no create of it is in doubt (its host's status says where it stands).
 */
import { FINAL_STAGES, type OrderStatus, type Stage } from './contract.js';
import type { FailureInfo } from '../supplier/failureDetails.js';
import { SupplierCode } from '../supplier/errors.js';
import { paramErrorFields } from '../durable/failures.js';
import { amendOrder, withChanges, type AmendedOrder, type OrderInput } from './orderInput.js';
import type { StoreOrderLine } from '../store/contract.js';
import type { ConnectedVariant } from '../store/intake/connectionActivities.js';
import { OrderFlow } from '../supplier/api/constants.js';

/** The supplier step that creates the order. */
export const CREATE_STEP = 'createOrderV3';

/** Where the order stands, which says whether an amend is taken. */
export interface CurrentOrderHost {
  readonly status: Readonly<OrderStatus>;
  readonly stage: Stage;
}

export class CurrentOrder {
  private current: OrderInput;
  /** The amended fields, as the create body must carry them (null: removed). */
  private readonly changes: Record<string, unknown> = {};

  constructor(
    input: OrderInput,
    private readonly host: CurrentOrderHost,
  ) {
    this.current = input;
  }

  /** The order: as submitted, with the amendments taken since. */
  get input(): OrderInput {
    return this.current;
  }

  /** The createOrderV3 body planned from the order, with the amendments taken since. */
  withAmendments<T extends object>(planned: T): T {
    return withChanges(planned, this.changes);
  }

  /** Whether the supplier has nothing of the order, and no create of it is in doubt. */
  get amendable(): boolean {
    const { status, stage } = this.host;
    return (
      status.atSupplier !== true &&
      status.outcomeUnknown?.step !== CREATE_STEP &&
      !FINAL_STAGES.includes(stage)
    );
  }

  /** Why an amend is not taken now. */
  refusal(): string {
    const { status, stage } = this.host;
    if (FINAL_STAGES.includes(stage)) return 'the order is finished';
    if (status.outcomeUnknown?.step === CREATE_STEP) {
      return "the create's answer was lost; dropflow looks it up first";
    }
    if (status.atSupplier === true) {
      const which = status.svcOrderId ?? 'unconnected, flow C';
      return (
        `the supplier has created the order (${which}) and its API changes no address or ` +
        'products of an order it has (only its logistics line: changeLogistics while intercepted); cancel it instead'
      );
    }
    return (
      'the order is at work: amend is taken while it stops before the supplier has it ' +
      `(NEEDS_ATTENTION, or INTERCEPTED at ${CREATE_STEP})`
    );
  }

  /**
   * The order with `changes`, checked again as a whole: when they make a valid order, it becomes
   * the order and its later create carries them. Returns the check's answer either way.
   */
  amend(changes: unknown): AmendedOrder {
    const result = amendOrder(this.current, changes);
    if (!result.ok) return result;
    this.current = result.input;
    const after = result.input.order as Record<string, unknown>;
    for (const field of result.fields) this.changes[field] = after[field] ?? null;
    return result;
  }

  /** The store's lines now (an edit taken): each waits for its variant again. */
  storeLinesEdited(lines: StoreOrderLine[]): void {
    if (this.current.store === undefined) return;
    this.current = { ...this.current, store: { ...this.current.store, lines } };
  }

  /**
   * Store lines resolved to supplier variants (by store line id): the order's products carry the
   * variant from now on, never the store's SKU.
   */
  storeLinesResolved(vids: ReadonlyMap<string, string>): void {
    const store = this.current.store;
    if (store === undefined || vids.size === 0) return;
    const products = this.current.order.products.map((p) => {
      const vid = vids.get(p.storeLineItemId ?? '');
      if (vid === undefined) return p;
      const { sku: _storeSku, ...rest } = p;
      return { ...rest, vid };
    });
    const lines = store.lines.map((l) => ({ ...l, vid: vids.get(l.storeLineId) ?? l.vid }));
    this.current = {
      ...this.current,
      order: { ...this.current.order, products },
      store: { ...store, lines },
    };
    if ('products' in this.changes) this.changes['products'] = products;
  }

  /**
   * Every store line is connected at the supplier (by store line id): the order is created in the
   * store flow, each product named by its store variant, product and image, and continues as it
   * would have (A or B). Its lines carry the catalogue variants the connections name.
   */
  storeFlowChosen(connected: ReadonlyMap<string, ConnectedVariant>): void {
    const store = this.current.store;
    if (store === undefined) return;
    const products = this.current.order.products.map((p) => {
      const c = connected.get(p.storeLineItemId ?? '');
      if (c === undefined) return p;
      const { sku: _storeSku, ...rest } = p;
      return {
        ...rest,
        vid: c.storeVariantId,
        storeProductId: c.storeProductId,
        ...(c.image !== undefined && { storeProductImg: c.image }),
      };
    });
    const connections = new Map(
      [...connected.values()].map((c) => [
        c.storeVariantId,
        {
          storeProductId: c.storeProductId,
          storeVariantId: c.storeVariantId,
          svcProductId: c.svcProductId,
          svcVariantId: c.svcVariantId,
        },
      ]),
    );
    const f = this.current.fulfillment;
    const lines = store.lines.map((l) => ({
      ...l,
      vid: connected.get(l.storeLineId)?.svcVariantId ?? l.vid,
    }));
    this.current = {
      ...this.current,
      order: { ...this.current.order, products, orderFlow: OrderFlow.Store },
      fulfillment: {
        ...f,
        flow: 'C',
        then: f.flow === 'A' ? 'A' : 'B',
        connections: [...connections.values()],
      },
      store: { ...store, lines },
    };
    if ('products' in this.changes) this.changes['products'] = products;
  }
}

/**
 * What moves an order on that stopped before the supplier has it. A parameter error (1600100) at
 * the create names the field when the supplier's message does (`Param error: field: rule; …`).
 */
export function amendRemedy(info: FailureInfo, remedy: string | undefined): string {
  if (info.step === CREATE_STEP && info.code === SupplierCode.ParamError) {
    const fields = paramErrorFields(info.message);
    const named = fields.length > 0 ? ` (field ${fields.join(', ')})` : '';
    return `amend the order${named} or cancel; resume sends it again unchanged`;
  }
  return `${remedy ?? `resume after the cause of ${info.step} is fixed, or cancel`}; or amend the order`;
}
