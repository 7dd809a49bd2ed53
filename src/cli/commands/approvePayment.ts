import type { Command } from 'commander';

import { byOf, registerOrderAction, type OrderActionFlags } from '../orderAction.js';

export function register(program: Command): void {
  registerOrderAction<OrderActionFlags & { note?: string }>(program, {
    name: 'approve-payment',
    description: 'approve the payment of an order that waits for it (payment policy)',
    by: 'who approves, for the timeline',
    options: (command) => command.option('--note <text>', 'for the timeline'),
    send: (orders, orderNumber, flags) =>
      orders.approvePayment(orderNumber, {
        ...(flags.note !== undefined && { note: flags.note }),
        ...byOf(flags),
      }),
  });
}
