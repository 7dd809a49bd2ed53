// A store's receiver of dropflow's events (docs/store-events.md). Run it with
// PORT=3000 STORE_EVENTS_SECRET=whsec_… npx tsx examples/store-receiver.ts
import { createServer } from 'node:http';
import { buffer } from 'node:stream/consumers';
import { verifyStoreEvent } from 'dropflow/client';

const handled = new Set<string>(); // event ids already handled: keep them in your database
createServer((req, res) => {
  buffer(req) // the raw body: a parsed and re-serialised one no longer matches its signature
    .then((raw) => verifyStoreEvent(req.headers, raw, process.env.STORE_EVENTS_SECRET!))
    .then((event) => {
      // event.id is the webhook-id: a delivery again (a retry, a replay) has the same one
      if (!handled.has(event.id)) console.log(event.type, event.orderNumber, event.data);
      handled.add(event.id);
      res.writeHead(204).end();
    })
    .catch(() => res.writeHead(400).end()); // not signed with the secret, or not a store event
}).listen(Number(process.env.PORT ?? 3000));
