/**
 * A scope of its own whose routes take their body as raw bytes, whatever the content type, up to
 * `bodyLimit` (413 above): a signed webhook is verified on exactly the bytes that were sent.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';

export function registerRawBodyRoutes(
  app: FastifyInstance,
  bodyLimit: number,
  routes: (scope: FastifyInstance) => void,
): void {
  void app.register((scope, _options, done) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit }, (_req, body, parsed) => {
      parsed(null, body);
    });
    routes(scope);
    done();
  });
}

/** The bytes of a request in such a scope (none when it had no body). */
export function rawBody(req: FastifyRequest): Buffer {
  return Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
}
