/** (stub: being written) Automatic order lifecycle after payment. */
import type { Sandbox } from './sandbox.js';

export class Lifecycle {
  constructor(private readonly sandbox: Sandbox) {}

  start(): void {
    this.sandbox.changed();
  }

  stop(): void {}
}
