import type { Command } from 'commander';

import { byOf, registerOrderAction, type OrderActionFlags } from '../orderAction.js';

export function register(program: Command): void {
  registerOrderAction<OrderActionFlags & { logisticName: string }>(program, {
    name: 'change-logistics',
    description: "change an order's logistics line (before confirmation)",
    by: 'who asks, for the timeline',
    options: (command) =>
      command.requiredOption(
        '--logistic-name <name>',
        'a line serving the route, e.g. "SvcPacket Express"',
      ),
    send: (orders, orderNumber, flags) =>
      orders.changeLogistics(orderNumber, { logisticName: flags.logisticName, ...byOf(flags) }),
  });
}
