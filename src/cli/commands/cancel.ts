import type { Command } from 'commander';

import { byOf, registerOrderAction, type OrderActionFlags } from '../orderAction.js';

export function register(program: Command): void {
  registerOrderAction<OrderActionFlags & { reason: string }>(program, {
    name: 'cancel',
    description: 'cancel an order; refused once it can no longer be cancelled',
    by: 'who asks, for the timeline',
    options: (command) => command.requiredOption('--reason <text>', 'why, for the timeline'),
    send: (orders, orderNumber, flags) =>
      orders.cancel(orderNumber, { reason: flags.reason, ...byOf(flags) }),
  });
}
