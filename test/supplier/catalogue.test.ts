/** Catalogue endpoints through the typed client, against the sandbox's seed catalogue. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SupplierCode, SupplierError, SupplierRequestInvalid } from '../../src/supplier/errors.js';
import { newSandboxAccount, type TestAccount } from '../support/sandbox.js';

let account: TestAccount;

beforeAll(async () => {
  account = await newSandboxAccount();
});

afterAll(async () => {
  await account.client.close();
});

describe('browsing the catalogue', () => {
  it('returns the three-level category tree with level-3 ids', async () => {
    const tree = await account.client.api.getCategory({});
    const home = tree.find((f) => f.categoryFirstName === 'Home & Garden');
    const kitchen = home?.categoryFirstList.find((s) => s.categorySecondName === 'Kitchen');
    expect(kitchen?.categorySecondList).toEqual([
      { categoryId: 'C001', categoryName: 'Cookware' },
      { categoryId: 'C002', categoryName: 'Storage Jars' },
    ]);
  });

  it('lists V2 products by keyword, page by page', async () => {
    const second = await account.client.api.listV2({ keyWord: 'earbuds', size: 1, page: 2 });
    expect(second).toMatchObject({ pageNumber: 2, pageSize: 1, totalRecords: 2, totalPages: 2 });
    const content = second.content[0];
    expect(content?.productList).toHaveLength(1);
    expect(content?.productList[0]).toMatchObject({
      id: 'P0010',
      sku: 'SKU0010',
      sellPrice: 29.94,
    });
    expect(content?.relatedCategoryList).toEqual([{ categoryId: 'C005', categoryName: 'Earbuds' }]);
  });

  it('filters V2 products by stock country and category', async () => {
    const page = await account.client.api.listV2({
      countryCode: 'DE',
      categoryId: 'C012',
      size: 100,
    });
    // Of the two belts only the second has stock in Frankfurt.
    expect(page.content[0]?.productList.map((p) => p.id)).toEqual(['P0024']);
  });

  it('refuses a V2 page size above 100 before sending', async () => {
    const err = await account.client.api.listV2({ size: 101 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SupplierRequestInvalid);
    expect((err as SupplierRequestInvalid).issues.map((i) => i.field)).toEqual(['size']);
  });

  it('lists the global warehouses', async () => {
    const warehouses = await account.client.api.globalWarehouseList({});
    expect(warehouses.map((w) => w.countryCode).sort()).toEqual(['CN', 'DE', 'US']);
    expect(warehouses.every((w) => w.disabled === false && w.id !== null)).toBe(true);
  });

  it('lists v1 products of a category with paging', async () => {
    const page = await account.client.api.listProducts({ categoryId: 'C003', pageSize: 1 });
    expect(page).toMatchObject({ pageNum: 1, pageSize: 1, total: 2 });
    const item = page.list[0];
    // Newest first by default.
    expect(item).toMatchObject({ pid: 'P0006', categoryId: 'C003', saleStatus: 3 });
    expect(JSON.parse(item?.productName ?? 'null')).toEqual(['Desk Lamps 2']);
  });

  it('refuses a v1 page size above 200 before sending', async () => {
    await expect(account.client.api.listProducts({ pageSize: 201 })).rejects.toThrow(
      /pageSize: must be at most 200/,
    );
  });
});

describe('product detail', () => {
  it('returns every variant, found by a variant SKU', async () => {
    const detail = await account.client.api.queryProduct({ variantSku: 'SKU0024-WHITE' });
    expect(detail.pid).toBe('P0024');
    expect(detail.variants.map((v) => v.vid)).toEqual(['P0024-V1', 'P0024-V2']);
    expect(detail.productProEnSet).toEqual(['Battery']);
    expect(detail.variants[0]?.variantWeight).toBeGreaterThan(0);
  });

  it('with countryCode, returns only the variants stocked in that country', async () => {
    const detail = await account.client.api.queryProduct({ pid: 'P0024', countryCode: 'US' });
    expect(detail.variants.map((v) => v.vid)).toEqual(['P0024-V1']);
  });

  it('needs one of pid, productSku or variantSku', async () => {
    await expect(account.client.api.queryProduct({ countryCode: 'US' })).rejects.toThrow(
      /pid: one of pid, productSku or variantSku is required/,
    );
  });
});

describe('my products', () => {
  it('adds a product once, refuses it again with 1600000, and lists it', async () => {
    expect(await account.client.api.addToMyProduct({ productId: 'P0005' })).toBe(true);

    const again = await account.client.api
      .addToMyProduct({ productId: 'P0005' })
      .catch((e: unknown) => e);
    expect(again).toBeInstanceOf(SupplierError);
    expect((again as SupplierError).code).toBe(SupplierCode.SystemBusy);
    // Here the code means "already added": an outcome, not a reason to retry.
    expect((again as SupplierError).kind).toBe('business');

    const mine = await account.client.api.queryMyProducts({ keyword: 'lamps' });
    expect(mine.totalRecords).toBe(1);
    expect(mine.content[0]).toMatchObject({ productId: 'P0005', sku: 'SKU0005' });
    expect(Number(mine.content[0]?.packWeight)).toBeGreaterThan(Number(mine.content[0]?.weight));
  });
});
