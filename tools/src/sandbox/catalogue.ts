/**
 * Pure look-ups over the seed catalogue (seed.ts) shared by the catalogue, inventory and logistics
 * routes: stock by country, product references, keyword matching, paging, parcel weights.
 */
import {
  destination,
  findProduct,
  findStorage,
  findVariant,
  PRODUCTS,
  type SeedProduct,
  type SeedStorage,
  type SeedVariant,
} from './seed.js';

export const SUPPLIER_NAME = 'Sandbox Supplier';
export const SUPPLIER_ID = 'SUP-SANDBOX-1';
/** CNY per USD, for the *Cn / *CNY fields. */
export const CNY_PER_USD = 7.2;

/** `.invalid` never resolves: images are placeholders. */
export function imageUrl(name: string): string {
  return `https://images.sandbox.invalid/${name}.jpg`;
}

/** yyyy-MM-dd HH:mm:ss in UTC, as the supplier writes plain dates. */
export function dateTime(ms: number): string {
  return new Date(ms).toISOString().slice(0, 19).replace('T', ' ');
}

export function round2(n: number): number {
  return Math.round(n * 100) / 100;
}

/** A page of a list; `pageNum` from 1. */
export function page<T>(items: readonly T[], pageNum: number, pageSize: number): T[] {
  return items.slice((pageNum - 1) * pageSize, pageNum * pageSize);
}

export function pageCount(total: number, pageSize: number): number {
  return Math.ceil(total / pageSize);
}

/** The storages a variant has a stock entry in (also at 0 units), with their units. */
export function stockByStorage(v: SeedVariant): { storage: SeedStorage; units: number }[] {
  return Object.entries(v.stock).flatMap(([storageId, units]) => {
    const storage = findStorage(storageId);
    return storage ? [{ storage, units }] : [];
  });
}

/** Units of a variant in the storages of one country. */
export function stockInCountry(v: SeedVariant, countryCode: string): number {
  const cc = countryCode.toUpperCase();
  return stockByStorage(v)
    .filter((s) => s.storage.countryCode === cc)
    .reduce((sum, s) => sum + s.units, 0);
}

/** Countries where at least one variant of the product has units. */
export function stockCountries(p: SeedProduct): string[] {
  const out = new Set<string>();
  for (const v of p.variants) {
    for (const s of stockByStorage(v)) if (s.units > 0) out.add(s.storage.countryCode);
  }
  return [...out];
}

export function totalStock(p: SeedProduct): number {
  return p.variants.reduce((sum, v) => sum + Object.values(v.stock).reduce((a, b) => a + b, 0), 0);
}

/** "CN,US" → ['CN', 'US']; empty or missing → undefined (no filter). */
export function countryCodes(text: string | undefined): string[] | undefined {
  const codes = (text ?? '')
    .split(',')
    .map((c) => c.trim().toUpperCase())
    .filter((c) => c !== '');
  return codes.length > 0 ? codes : undefined;
}

export function hasStockInAny(p: SeedProduct, codes: readonly string[]): boolean {
  const have = stockCountries(p);
  return codes.some((c) => have.includes(c));
}

/** Name, product SKU or a variant SKU contains the keyword (case-insensitive). */
export function matchesKeyword(p: SeedProduct, keyword: string | undefined): boolean {
  const k = keyword?.trim().toLowerCase();
  if (!k) return true;
  return [p.productNameEn, p.productSku, ...p.variants.map((v) => v.variantSku)].some((s) =>
    s.toLowerCase().includes(k),
  );
}

export function productBySku(productSku: string): SeedProduct | undefined {
  return PRODUCTS.find((p) => p.productSku.toLowerCase() === productSku.toLowerCase());
}

/** The product a pid, a product SKU or a variant SKU names, tried in that order. */
export function productByRef(ref: {
  pid?: string | undefined;
  productSku?: string | undefined;
  variantSku?: string | undefined;
}): SeedProduct | undefined {
  if (ref.pid) return findProduct(ref.pid);
  if (ref.productSku) return productBySku(ref.productSku);
  if (ref.variantSku) {
    const v = findVariant(undefined, ref.variantSku);
    return v ? findProduct(v.pid) : undefined;
  }
  return undefined;
}

/** Listing count shown in lists: deterministic, so sorting by it is stable across restarts. */
export function listedNum(p: SeedProduct): number {
  return (Number(p.pid.slice(1)) * 37) % 500;
}

const EXTRA_COUNTRY_NAMES: Record<string, string> = { CN: 'China' };

export function countryName(countryCode: string): string {
  const cc = countryCode.toUpperCase();
  return destination(cc)?.country ?? EXTRA_COUNTRY_NAMES[cc] ?? cc;
}

export type ParcelWeight = { grams: number } | { unknownIndex: number };

/** Total weight of product lines (variant weight × quantity), or the index of an unknown vid. */
export function parcelWeight(products: readonly { vid: string; quantity: number }[]): ParcelWeight {
  let grams = 0;
  for (const [i, line] of products.entries()) {
    const v = findVariant(line.vid);
    if (!v) return { unknownIndex: i };
    grams += v.variantWeight * line.quantity;
  }
  return { grams };
}

/** Value of product lines in USD (variant sell price × quantity); unknown vids count 0. */
export function goodsValue(products: readonly { vid: string; quantity: number }[]): number {
  return round2(
    products.reduce((sum, l) => sum + (findVariant(l.vid)?.variantSellPrice ?? 0) * l.quantity, 0),
  );
}
