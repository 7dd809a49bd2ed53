/** Loopback ports in tests: a free one to give a server, and whether something listens on one. */
import { connect } from 'node:net';

export { freePort } from '../../tools/src/localStack/ports.js';

export function listening(port: number): Promise<boolean> {
  return new Promise((settle) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      settle(true);
    });
    socket.once('error', () => {
      settle(false);
    });
  });
}
