/** Starts a double's Fastify app on loopback and says where it listens. */
import type { FastifyInstance } from 'fastify';

export interface Listening {
  url: string;
  close(): Promise<void>;
}

export async function listenOnLoopback(app: FastifyInstance, port = 0): Promise<Listening> {
  await app.listen({ port, host: '127.0.0.1' });
  const address = app.server.address();
  const bound = typeof address === 'object' && address !== null ? address.port : port;
  return { url: `http://127.0.0.1:${bound}`, close: () => app.close() };
}

/** A control route's numeric id parameter, or undefined. */
export function numericId(params: unknown): number | undefined {
  const id = Number((params as { id?: string }).id);
  return Number.isSafeInteger(id) && id > 0 ? id : undefined;
}
