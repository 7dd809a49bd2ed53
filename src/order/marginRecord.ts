/**
 * Where the order stands against its margin rule (docs/margin-guard.md), written by this class
 * alone: the last check and when it ran, a person's approval of a landed cost, and a logistics
 * change that kept the rule. The status shows it; marginGuard.ts decides, this records. A failing
 * rule stops the order through its host, the numbers as its reason.
 */
import { Stage, type MarginView } from './contract.js';
import type { FailureInfo } from '../supplier/failureDetails.js';
import {
  checkText,
  type LogisticsRescue,
  type MarginCheck,
  type MarginMoment,
} from '../terms/margin.js';

/** The step name of the margin rule's check, as a stop's reason shows it. */
export const MARGIN_STEP = 'marginGuard';

/** What the order lends its margin record: its stage, its reasons and its timeline. */
export interface MarginHost {
  enter(stage: Stage): void;
  failed(info: FailureInfo): void;
  note(note: string): void;
  record(facts: { logisticName: string }): void;
}

export class MarginRecord {
  private view: MarginView | undefined;

  /** `shown`: the status shows the margin as it stands now. */
  constructor(
    private readonly host: MarginHost,
    private readonly shown: (margin: MarginView) => void,
  ) {}

  /** The rule was checked at `at`: the status shows the numbers. */
  checked(check: MarginCheck, at: MarginMoment): void {
    this.show(this.next(check, at));
  }

  /** The rule fails: the order waits in AWAITING_APPROVAL, the numbers as its reason. */
  held(check: MarginCheck, at: MarginMoment): void {
    this.show(this.next(check, at));
    this.host.enter(Stage.AWAITING_APPROVAL);
    this.host.failed({ step: MARGIN_STEP, message: `the margin rule fails: ${checkText(check)}` });
  }

  /** A person approved paying at this landed cost although the rule fails. */
  approved(cost: number): void {
    if (this.view !== undefined) this.show({ ...this.view, approvedCost: cost });
    this.host.note(
      `payment approved at a landed cost of ${cost.toFixed(2)} USD despite the margin rule`,
    );
  }

  /** Whether a person already approved paying this landed cost. */
  approvedFor(cost: number): boolean {
    const approved = this.view?.approvedCost;
    return approved !== undefined && cost <= approved + 0.005;
  }

  /** Another logistics line of the order keeps the rule; the supplier changed it. */
  rescued(rescue: LogisticsRescue, from: string): void {
    const to = rescue.offer.logisticsName;
    this.host.record({ logisticName: to });
    this.show({ ...rescue.check, at: 'cart', logistics: { from, to, savedUsd: rescue.savedUsd } });
    this.host.note(
      `margin rule kept by changing logistics from ${from} to ${to} (postage ${rescue.savedUsd.toFixed(2)} USD less)`,
    );
  }

  /** A new check, keeping an earlier approval and logistics change. */
  private next(check: MarginCheck, at: MarginMoment): MarginView {
    const { approvedCost, logistics } = this.view ?? {};
    return {
      ...check,
      at,
      ...(logistics !== undefined && { logistics }),
      ...(approvedCost !== undefined && { approvedCost }),
    };
  }

  private show(margin: MarginView): void {
    this.view = margin;
    this.shown(margin);
  }
}
