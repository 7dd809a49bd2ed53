import type { Command } from 'commander';

import { byOf, registerOrderAction, type OrderActionFlags } from '../orderAction.js';

export function register(program: Command): void {
  registerOrderAction<OrderActionFlags & { note?: string }>(program, {
    name: 'resume',
    description: 'retry the step an order is blocked on, after the cause was fixed',
    by: 'who asks, for the timeline',
    options: (command) => command.option('--note <text>', 'what was fixed, for the timeline'),
    send: (orders, orderNumber, flags) =>
      orders.resume(orderNumber, {
        ...(flags.note !== undefined && { note: flags.note }),
        ...byOf(flags),
      }),
  });
}
