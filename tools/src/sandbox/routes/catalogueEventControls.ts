/**
 * Test and demo control: `POST /__sandbox/catalogue/events` makes the supplier push a product,
 * variant or stock change of a seed product to every account that subscribed it
 * (docs/supplier-api.md §12.2), or only to `openId`. The seed catalogue itself does not change.
 */
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { WebhookChange, WebhookTopic, WebhookType } from 'dropflow/supplier';
import { stockByStorage } from '../catalogue.js';
import type { Sandbox } from '../sandbox.js';
import { findProduct, type SeedProduct } from '../seed.js';
import { isSubscribed } from '../webhooks.js';
import type { WebhookMessage } from '../state.js';
import { control, refuse } from './control.js';

const CatalogueEvent = z.object({
  pid: z.string().min(1),
  kind: z.enum([WebhookType.Product, WebhookType.Variant, WebhookType.Stock]),
  /** VARIANT: which variant changed; the product's first by default. */
  vid: z.string().min(1).optional(),
  /** Only this account (when it subscribed the product). */
  openId: z.string().min(1).optional(),
});
type CatalogueEvent = z.infer<typeof CatalogueEvent>;

export function registerCatalogueEventControlRoutes(app: FastifyInstance, sb: Sandbox): void {
  control(
    app,
    'POST',
    '/__sandbox/catalogue/events',
    { body: CatalogueEvent, status: 202 },
    (p) => {
      const product = findProduct(p.pid);
      if (!product) throw refuse(404, `no seed product ${p.pid}`);
      const built = build(product, p);
      if (typeof built === 'string') throw refuse(404, built);

      const topic: WebhookTopic =
        p.kind === WebhookType.Stock ? WebhookTopic.Stock : WebhookTopic.Product;
      const messages = Object.values(sb.state.accounts)
        .filter(
          (a) => (p.openId === undefined || a.openId === p.openId) && isSubscribed(a, product.pid),
        )
        .flatMap((a) => {
          const messageId = sb.webhooks.enqueue(a.openId, topic, built);
          return messageId === undefined ? [] : [{ openId: a.openId, messageId }];
        });
      // `messages`: the pushes queued (accounts whose topic is enabled).
      return { pid: product.pid, kind: p.kind, topic, messages };
    },
  );
}

/**
 * The message as the supplier writes it (docs/supplier-api.md §12.8): product and variant changes
 * name the changed fields in `fields` and leave the others null; stock maps each vid to its stock
 * per area.
 */
function build(product: SeedProduct, event: CatalogueEvent): WebhookMessage | string {
  switch (event.kind) {
    case WebhookType.Product:
      return {
        type: WebhookType.Product,
        messageType: WebhookChange.Update,
        params: {
          pid: product.pid,
          productName: null,
          productNameEn: null,
          productSku: null,
          productSellPrice: product.sellPrice,
          productStatus: null,
          categoryId: null,
          categoryName: null,
          productImage: null,
          productDescription: null,
          fields: ['productSellPrice'],
        },
      };
    case WebhookType.Variant: {
      const variant =
        event.vid === undefined
          ? product.variants[0]
          : product.variants.find((v) => v.vid === event.vid);
      if (!variant) return `product ${product.pid} has no variant ${event.vid ?? ''}`;
      return {
        type: WebhookType.Variant,
        messageType: WebhookChange.Update,
        params: {
          vid: variant.vid,
          pid: product.pid,
          variantSku: null,
          variantSellPrice: variant.variantSellPrice,
          variantStatus: null,
          variantWeight: null,
          fields: ['variantSellPrice'],
        },
      };
    }
    case WebhookType.Stock:
      return {
        type: WebhookType.Stock,
        messageType: WebhookChange.Update,
        params: Object.fromEntries(
          product.variants.map((v) => [
            v.vid,
            stockByStorage(v).map(({ storage, units }) => ({
              vid: v.vid,
              areaId: storage.areaId,
              areaEn: storage.areaEn,
              countryCode: storage.countryCode,
              storageNum: units,
            })),
          ]),
        ),
      };
  }
}
