/**
 * Which of a fleet's slots of an account this process may send in, moment by moment. The grid
 * (pacing.ts) asks for each slot's time: the answer must be the same in every process that holds
 * the same facts, so that every slot has at most one sender. Two sources: a fixed share
 * (`SUPPLIER_FLEET_SHARE`) and the live roster of the deployment's workers (fleetRoster.ts).
 */
import { ownerOf } from './fleetGrid.js';

/** This process's part of a fleet's slots (whose each slot is: fleetGrid.ts). */
export interface FleetShare {
  /** 0 … of − 1 */
  index: number;
  /** The processes of the fleet that call the supplier. */
  of: number;
}

/** What this process may do at one moment. */
export type Seat =
  /** The only sender: it paces the account at its tier, off any grid. */
  | { kind: 'alone' }
  /** One of `of` senders: the grid's slots k with `ownerOf(k, of, tier)` = index are its own. */
  | ({ kind: 'seat' } & FleetShare)
  /** Not a sender now (joining, leaving, unsure of the fleet, or the second after a change). */
  | { kind: 'out' };

export interface SeatQuery {
  /**
   * As it will be if this process goes on polling and reading the roster as it does: for how far
   * a slot is, never for whether to send.
   */
  expected?: boolean;
  /** The account's tier: where the grid's pace changes with the fleet's size (fleetGrid.ts). */
  tier?: number;
}

export interface FleetView {
  /** Tells apart the pacings of one account under two views (pacing.ts keeps one per view). */
  readonly key: string;
  /** This process's seat at `t` (epoch ms). */
  seatAt(t: number, query?: SeatQuery): Seat;
  /**
   * Who may have sent in slot k of the account's grid with own seconds (fleetGrid.ts) at `t`:
   * this process, another, or nobody (the fleet was alone, or quiet between two paces).
   */
  senderAt(t: number, k: number, tier: number): Sender;
  /** The senders now (at least 1): what the checkout's quiet floor counts. */
  size(): number;
}

export type Sender = 'me' | 'other' | 'nobody';

/** A share set by hand: the same seat at every moment (`0/1`: alone). */
export function fixedShare(share: FleetShare): FleetView {
  const seat: Seat = share.of <= 1 ? { kind: 'alone' } : { kind: 'seat', ...share };
  return {
    key: `share:${share.index}/${share.of}`,
    seatAt: () => seat,
    senderAt: (_t, k, tier) => {
      if (share.of <= 1) return 'nobody';
      return ownerOf(k, share.of, tier) === share.index ? 'me' : 'other';
    },
    size: () => share.of,
  };
}

/** A view as given: a share set by hand is made one. */
export function fleetViewOf(fleet: FleetShare | FleetView): FleetView {
  return 'seatAt' in fleet ? fleet : fixedShare(fleet);
}
