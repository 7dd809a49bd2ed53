/**
 * A fleet's slot holds only if the call leaves in it (pacing.ts): a request that would be written
 * to its connection after its deadline fails unsent with `MissedSlot`, and the caller takes the
 * next slot. Checked by undici right before it writes the request, so a stall anywhere between
 * the slot's timer and the write (the event loop, a connection being opened) is caught; a request
 * that leaves says when, for the pacer to keep the process's next call in that place 1 s off.
 */
import { DecoratorHandler, type Dispatcher } from 'undici';

import type { SendSlot } from './pacing.js';

/** The request was not sent: it would have left after its slot. */
export class MissedSlot extends Error {
  constructor(readonly lateMs: number) {
    super(`not sent: it would have left ${lateMs} ms after its slot`);
    this.name = 'MissedSlot';
  }
}

/** undici's handler that passes every event on (its typings leave the methods out). */
const PassOn = DecoratorHandler as unknown as new (
  handler: Dispatcher.DispatchHandler,
) => Dispatcher.DispatchHandler & {
  onRequestStart(controller: Dispatcher.DispatchController, context: unknown): void;
};

class LeaveBy extends PassOn {
  constructor(
    handler: Dispatcher.DispatchHandler,
    private readonly slot: SendSlot,
  ) {
    super(handler);
  }

  override onRequestStart(controller: Dispatcher.DispatchController, context: unknown): void {
    const now = Date.now();
    const late = now - this.slot.by;
    // Thrown before the request is written: undici fails it and keeps the connection.
    if (late > 0) throw new MissedSlot(late);
    this.slot.sent(now);
    super.onRequestStart(controller, context);
  }
}

/** Requests through the composed dispatcher leave by `slot.by` (epoch ms) or not at all. */
export function leaveBy(slot: SendSlot): Dispatcher.DispatcherComposeInterceptor {
  return (dispatch) => (options, handler) => dispatch(options, new LeaveBy(handler, slot));
}
