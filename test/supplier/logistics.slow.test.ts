/** Freight estimates, tracking, stock and warehouses through the typed client, against the sandbox. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SupplierCode, SupplierError } from '../../src/supplier/errors.js';
import { newSandboxAccount, rawCall, type TestAccount } from '../support/sandbox.js';

let account: TestAccount;

beforeAll(async () => {
  account = await newSandboxAccount();
});

afterAll(async () => {
  await account.client.close();
});

const baseTip = {
  srcAreaCode: 'CN',
  skuList: ['SKU0002'],
  wrapWeight: 620,
  weight: 596,
  volume: 1440,
  productProp: ['General'],
  freightTrialSkuList: [{ vid: 'P0002-V1', skuQuantity: 1 }],
};

describe('freight estimates', () => {
  it('offers the CN lines to the US, priced by weight, and no US domestic line', async () => {
    const options = await account.client.api.freightCalculate({
      startCountryCode: 'CN',
      endCountryCode: 'US',
      products: [{ vid: 'P0002-V1', quantity: 2 }],
    });
    const names = options.map((o) => o.logisticName);
    expect(names).toContain('SvcPacket Ordinary');
    expect(names).not.toContain('USPS Ground');
    const ordinary = options.find((o) => o.logisticName === 'SvcPacket Ordinary');
    expect(ordinary?.logisticPrice).toBeGreaterThan(0);
    expect(ordinary?.totalPostageFee).toBe(ordinary?.logisticPrice);
    expect(ordinary?.logisticAging).toBe('12-20');
  });

  it('shows the rules that would intercept an order to Brazil', async () => {
    const options = await account.client.api.freightCalculateTip({
      reqDTOS: [
        { ...baseTip, destAreaCode: 'BR', uid: 'bare', zip: '123' },
        {
          ...baseTip,
          destAreaCode: 'BR',
          uid: 'complete',
          zip: '01310-100',
          phone: '+55 11 99999 0000',
          dutyNo: '123.456.789-09',
        },
      ],
    });
    const bare = options.filter((o) => o.uid === 'bare');
    expect(bare.map((o) => o.option?.enName).sort()).toEqual([
      'Brazil Post Line',
      'SvcPacket Ordinary',
    ]);
    const tips = bare[0]?.ruleTips ?? [];
    expect(tips.map((t) => t.type).sort()).toEqual(['dutyNo', 'phone', 'zip']);
    expect(tips.every((t) => t.interceptType === '0')).toBe(true);
    const zipRule = tips.find((t) => t.type === 'zip');
    expect(new RegExp(zipRule?.expression ?? '').test('01310-100')).toBe(true);

    const complete = options.filter((o) => o.uid === 'complete');
    expect(complete.length).toBeGreaterThan(0);
    expect(complete[0]?.ruleTips).toEqual([]);
    expect(complete[0]?.allRuleTips.map((t) => t.type).sort()).toEqual(['dutyNo', 'phone', 'zip']);
    expect(complete[0]?.discountFee).toBeGreaterThan(0);
  });

  it('estimates partner freight with the IOSS choices for the EU', async () => {
    const options = await account.client.api.partnerFreightCalculate({
      orderNumber: 'estimate-1',
      shippingCountryCode: 'DE',
      shippingCountry: 'Germany',
      shippingProvince: 'Berlin',
      shippingCity: 'Berlin',
      shippingZip: '10115',
      fromCountryCode: 'CN',
      products: [{ vid: 'P0003-V1', quantity: 1 }],
    });
    const ordinary = options.find((o) => o.logisticsName === 'SvcPacket Ordinary');
    expect(ordinary?.postageAmount).toBeGreaterThan(0);
    expect(ordinary?.isSupportIoss).toBe(true);
    expect(ordinary?.iossList.map((i) => i.iossType)).toEqual([3]);
  });

  it('returns the logistics template of product SKUs only', async () => {
    const templates = await account.client.api.getSupplierLogisticsTemplate({
      skuList: ['SKU0002', 'SKU0002-BLACK'],
    });
    expect(templates.map((t) => t.skuList)).toEqual([['SKU0002']]);
    const routes = templates[0]?.logisticsInfoList ?? [];
    // SKU0002 is stocked in Shenzhen and Los Angeles.
    expect(routes).toContainEqual(
      expect.objectContaining({
        logisticsName: 'USPS Ground',
        startCountryCode: 'US',
        destCountryCode: 'US',
      }),
    );
    expect(routes).toContainEqual(
      expect.objectContaining({
        logisticsName: 'SvcPacket Ordinary',
        startCountryCode: 'CN',
        destCountryCode: 'US',
      }),
    );
  });
});

describe('tracking', () => {
  it('leaves unknown tracking numbers out', async () => {
    expect(await account.client.api.trackInfo({ trackNumber: ['NO-SUCH-NUMBER'] })).toEqual([]);
  });

  it('reads a repeated query parameter as a list', async () => {
    // Fresh accounts, so these unpaced calls spend nobody else's rate limit.
    const callWith = async (trackNumber: string[]) => {
      const other = await newSandboxAccount();
      try {
        const token = await other.client.tokens.accessToken();
        return await rawCall('logistic/trackInfo', { token, query: { trackNumber } });
      } finally {
        await other.client.close();
      }
    };
    const two = await callWith(['a', 'b']);
    expect(two.body).toMatchObject({ code: 200, data: [] });
    // 101 repeated values are counted as 101 items of one list.
    const tooMany = await callWith(Array.from({ length: 101 }, (_, i) => `n${i}`));
    expect(tooMany.body.code).toBe(SupplierCode.ParamError);
    expect(tooMany.body.message).toMatch(/trackNumber: must hold at most 100 items/);
  });
});

describe('stock and warehouses', () => {
  it('gives a product stock by country and by variant, with the storages to order from', async () => {
    const inv = await account.client.api.getInventoryByPid({ pid: 'P0024' });
    expect(inv.inventories.map((i) => i.countryCode).sort()).toEqual(['CN', 'DE', 'US']);
    const scarce = inv.variantInventories.find((v) => v.vid === 'P0024-V2');
    // The sandbox sends the vendor example's spelling (totalInventory); the client reads both.
    expect(scarce?.inventory).toEqual([
      expect.objectContaining({
        countryCode: 'CN',
        totalInventoryNum: 1,
        stock: [{ stockId: 'ST-CN-SZ', inventory: 1, factoryInventory: 0 }],
      }),
    ]);
  });

  it('gives a variant stock by vid and by SKU', async () => {
    const byVid = await account.client.api.queryInventoryByVid({ vid: 'P0002-V1' });
    expect(byVid.map((s) => [s.countryCode, s.totalInventoryNum])).toEqual([
      ['CN', 685],
      ['US', 92],
    ]);
    const bySku = await account.client.api.queryInventoryBySku({ sku: 'SKU0002-BLACK' });
    expect(bySku).toEqual(byVid);
  });

  it('describes a warehouse and refuses an unknown one with 1608001', async () => {
    const la = await account.client.api.warehouseDetail({ id: 'ST-US-LA' });
    expect(la).toMatchObject({ id: 'ST-US-LA', areaCountryCode: 'US' });
    expect(la.logisticsBrandList.map((b) => b.name)).toContain('USPS');

    const err = await account.client.api
      .warehouseDetail({ id: 'ST-NOWHERE' })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SupplierError);
    expect((err as SupplierError).code).toBe(SupplierCode.WarehouseNotFound);
  });
});
