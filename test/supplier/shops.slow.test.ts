import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_SHOP_ID } from '../../tools/src/sandbox/shops.js';
import { SupplierCode, SupplierError, SupplierRequestInvalid } from '../../src/supplier/errors.js';
import { newSandboxAccount, type TestAccount } from '../support/sandbox.js';

describe('shops, store products and connections (docs/supplier-api.md §10)', () => {
  let account: TestAccount;
  beforeAll(async () => {
    account = await newSandboxAccount();
  });

  it('the account has one enabled API shop', async () => {
    const shops = await account.client.api.getShops({});
    expect(shops).toEqual([
      expect.objectContaining({ id: DEFAULT_SHOP_ID, type: 'Api', status: 1 }),
    ]);
  });

  it('a saved store product is unconnected until its variants are connected, and again after the connection is removed', async () => {
    const api = account.client.api;
    // Store product ids are the caller's own; unique ones keep accounts apart.
    const productId = `SP-${randomUUID().slice(0, 8)}`;
    await api.saveStoreProduct({
      id: productId,
      title: 'Ceramic mug',
      image: 'https://shop.example/mug.jpg',
      priceMin: 9.9,
      priceMax: 12.5,
      priceCurrency: 'USD',
    });
    const saved = await api.saveStoreVariants({
      variants: [
        {
          id: `${productId}-red`,
          productId,
          title: 'Red',
          sku: 'MUG-RED',
          image: 'https://shop.example/r.jpg',
        },
        {
          id: `${productId}-blue`,
          productId,
          title: 'Blue',
          sku: 'MUG-BLUE',
          image: 'https://shop.example/b.jpg',
        },
        {
          id: 'orphan',
          productId: 'no-such-product',
          title: 'X',
          sku: 'X',
          image: 'https://shop.example/x.jpg',
        },
      ],
    });
    expect(saved.map((v) => [v.id, v.saveSuccess])).toEqual([
      [`${productId}-red`, true],
      [`${productId}-blue`, true],
      ['orphan', false],
    ]);
    expect(saved[2]?.saveFailMessage).toMatch(/not found/);

    const relevance = async () => {
      const page = await api.queryStoreProducts({ shopProductId: productId });
      expect(page.total).toBe(1);
      return page.list[0]?.relevanceStatus;
    };
    expect(await relevance()).toBe(0);

    await api.createConnection({
      defaultArea: 1,
      logistics: 'SvcPacket Ordinary',
      svcProductId: 'P0001',
      platformProductId: productId,
      variantList: [
        { svcVariantId: 'P0001-V1', platformVariantId: `${productId}-red` },
        { svcVariantId: 'P0001-V2', platformVariantId: `${productId}-blue` },
      ],
    });
    expect(await relevance()).toBe(2);

    const links = await api.listConnections({ platformProductId: productId });
    expect(links.total).toBe(2);
    expect(links.list).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          shopId: DEFAULT_SHOP_ID,
          platformVariantId: `${productId}-red`,
          svcProductId: 'P0001',
          svcVariantId: 'P0001-V1',
        }),
      ]),
    );

    const [detail] = await api.queryStoreProductDetail({
      shopId: DEFAULT_SHOP_ID,
      platformProductIds: [productId],
    });
    expect(detail?.variants.map((v) => v.relevanceStatus)).toEqual(['2', '2']);

    // Without a variant id every variant connection of the product goes.
    await api.deleteConnection({ platformProductId: productId });
    expect(await relevance()).toBe(0);
  });

  it('a connection to a variant that is not in the catalogue is refused with 1600100', async () => {
    const productId = `SP-${randomUUID().slice(0, 8)}`;
    await account.client.api.saveStoreProduct({
      id: productId,
      title: 'Lamp',
      image: 'https://shop.example/lamp.jpg',
    });
    const refused = await account.client.api
      .createConnection({
        defaultArea: 1,
        logistics: 'SvcPacket Ordinary',
        svcProductId: 'P0001',
        platformProductId: productId,
        variantList: [{ svcVariantId: 'P9999-V1', platformVariantId: 'v1' }],
      })
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(SupplierError);
    expect((refused as SupplierError).code).toBe(SupplierCode.ParamError);
    expect((refused as SupplierError).supplierMessage).toContain('variantList[0].svcVariantId');
  });

  it('the client refuses a store product page above 10 before sending', async () => {
    const refused = await account.client.api
      .queryStoreProducts({ pageSize: 11 })
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(SupplierRequestInvalid);
    expect((refused as SupplierRequestInvalid).issues).toEqual([
      { field: 'pageSize', rule: 'must be at most 10' },
    ]);
  });
});
