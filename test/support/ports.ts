/**
 * Loopback ports in tests: a free one to give a server, one held taken, and whether something
 * listens on one.
 */
import { connect, createServer, type Server } from 'node:net';

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

/** A server that holds a loopback port (any free one by default) until it is closed. */
export async function holdPort(port = 0): Promise<Server> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(port, '127.0.0.1', done));
  return server;
}
