/**
 * The sandbox's deterministic world: catalogue, warehouses and stock, logistics lines, and the
 * destination rules behind interceptions. Same data on every start, so demos and tests can name
 * products and storages. docs/sandbox.md lists the ids worth knowing.
 */

export interface SeedVariant {
  vid: string;
  pid: string;
  variantSku: string;
  variantNameEn: string;
  variantKey: string;
  variantSellPrice: number;
  variantWeight: number;
  variantLength: number;
  variantWidth: number;
  variantHeight: number;
  /** Units in stock per storageId. */
  stock: Record<string, number>;
}

export interface SeedProduct {
  pid: string;
  productSku: string;
  productNameEn: string;
  categoryId: string;
  categoryName: string;
  sellPrice: number;
  productWeight: number;
  productProEnSet: string[];
  variants: SeedVariant[];
  createTime: number;
}

export interface SeedCategory {
  first: string;
  second: string;
  categoryId: string;
  categoryName: string;
}

export interface SeedStorage {
  storageId: string;
  name: string;
  countryCode: string;
  areaId: number;
  areaEn: string;
  province: string;
  city: string;
  address1: string;
  zipCode: string;
  phone: string;
  /** Carriers the warehouse accepts on uploaded waybills. */
  logisticsBrandList: { id: string; name: string }[];
}

export interface LogisticsLine {
  logisticName: string;
  from: string[];
  to: string[];
  /** USD per parcel plus USD per kg. */
  base: number;
  perKg: number;
  /** Business days, min and max. */
  days: [number, number];
}

export interface DestinationRules {
  countryCode: string;
  country: string;
  zip?: RegExp;
  zipExample?: string;
  phoneRequired: boolean;
  taxIdRequired: boolean;
}

const NAMES: [string, string, [string, string]][] = [
  ['Home & Garden', 'Kitchen', ['Cookware', 'Storage Jars']],
  ['Home & Garden', 'Lighting', ['Desk Lamps', 'String Lights']],
  ['Consumer Electronics', 'Audio', ['Earbuds', 'Speakers']],
  ['Consumer Electronics', 'Accessories', ['Phone Cases', 'Chargers']],
  ['Apparel', 'Women', ['Scarves', 'Hats']],
  ['Apparel', 'Men', ['Socks', 'Belts']],
];

export const CATEGORIES: SeedCategory[] = NAMES.flatMap(([first, second, leaves], i) =>
  leaves.map((leaf, j) => ({
    first,
    second,
    categoryId: `C${String(i * 2 + j + 1).padStart(3, '0')}`,
    categoryName: leaf,
  })),
);

export const STORAGES: SeedStorage[] = [
  {
    storageId: 'ST-CN-SZ',
    name: 'Shenzhen Warehouse',
    countryCode: 'CN',
    areaId: 1,
    areaEn: 'China Warehouse',
    province: 'Guangdong',
    city: 'Shenzhen',
    address1: '18 Logistics Park Road',
    zipCode: '518000',
    phone: '+86 755 0000 0000',
    logisticsBrandList: [
      { id: '1', name: 'SF Express' },
      { id: '2', name: 'YTO' },
    ],
  },
  {
    storageId: 'ST-US-LA',
    name: 'Los Angeles Warehouse',
    countryCode: 'US',
    areaId: 2,
    areaEn: 'US Warehouse',
    province: 'California',
    city: 'Ontario',
    address1: '1200 Distribution Way',
    zipCode: '91761',
    phone: '+1 909 000 0000',
    logisticsBrandList: [
      { id: '11', name: 'UPS' },
      { id: '12', name: 'USPS' },
      { id: '13', name: 'FedEx' },
    ],
  },
  {
    storageId: 'ST-DE-FRA',
    name: 'Frankfurt Warehouse',
    countryCode: 'DE',
    areaId: 3,
    areaEn: 'Germany Warehouse',
    province: 'Hessen',
    city: 'Frankfurt am Main',
    address1: 'Lagerstrasse 7',
    zipCode: '60549',
    phone: '+49 69 0000000',
    logisticsBrandList: [
      { id: '21', name: 'DHL' },
      { id: '22', name: 'DPD' },
    ],
  },
];

const EU = ['DE', 'FR', 'NL', 'IT', 'ES', 'AT', 'BE'];
const WORLD = ['US', 'CA', 'GB', 'AU', 'BR', 'MX', ...EU];

/** A row: name, from, to, USD per parcel, USD per kg, business days. */
export const LOGISTICS_LINES: LogisticsLine[] = (
  [
    ['SvcPacket Ordinary', ['CN'], WORLD, 3.2, 9.5, [12, 20]],
    ['SvcPacket Express', ['CN'], ['US', 'CA', 'GB', 'AU', ...EU], 7.9, 14, [6, 10]],
    ['Brazil Post Line', ['CN'], ['BR'], 4.1, 11, [18, 30]],
    ['USPS Ground', ['US'], ['US'], 4.5, 3.2, [3, 6]],
    ['UPS 2nd Day', ['US'], ['US', 'CA'], 9.9, 4.8, [2, 3]],
    ['DHL Paket', ['DE'], EU, 4.9, 2.5, [2, 5]],
  ] satisfies [string, string[], string[], number, number, [number, number]][]
).map(([logisticName, from, to, base, perKg, days]) => ({
  logisticName,
  from,
  to,
  base,
  perKg,
  days,
}));

/**
 * Interception rules by destination; docs/sandbox.md shows how to trigger each. A row: country
 * code, name, postcode rule, a postcode it accepts, phone required, tax id required.
 */
export const DESTINATIONS: DestinationRules[] = (
  [
    ['US', 'United States', /^\d{5}(-\d{4})?$/, '90210', false, false],
    ['CA', 'Canada', /^[A-Z]\d[A-Z] ?\d[A-Z]\d$/i, 'M5V 2T6', true, false],
    ['GB', 'United Kingdom', /^[A-Z]{1,2}\d[A-Z\d]? ?\d[A-Z]{2}$/i, 'SW1A 1AA', false, false],
    ['AU', 'Australia', /^\d{4}$/, '2000', true, false],
    ['BR', 'Brazil', /^\d{5}-?\d{3}$/, '01310-100', true, true],
    ['MX', 'Mexico', /^\d{5}$/, '06600', true, false],
    ['DE', 'Germany', /^\d{5}$/, '10115', false, false],
    ['FR', 'France', /^\d{5}$/, '75001', false, false],
    ['NL', 'Netherlands', /^\d{4} ?[A-Z]{2}$/i, '1012 AB', false, false],
    ['IT', 'Italy', /^\d{5}$/, '00118', false, false],
    ['ES', 'Spain', /^\d{5}$/, '28001', false, false],
    ['AT', 'Austria', /^\d{4}$/, '1010', false, false],
    ['BE', 'Belgium', /^\d{4}$/, '1000', false, false],
  ] as const
).map(([countryCode, country, zip, zipExample, phoneRequired, taxIdRequired]) => ({
  countryCode,
  country,
  zip,
  zipExample,
  phoneRequired,
  taxIdRequired,
}));

/** Small deterministic pseudo-random numbers, so the catalogue is the same on every start. */
function seeded(n: number): number {
  const x = Math.sin(n * 9301 + 49297) * 233280;
  return x - Math.floor(x);
}

const COLOURS = ['Black', 'White', 'Blue'];
const BASE_CREATE_TIME = Date.UTC(2026, 0, 15);

/**
 * 24 products, two per leaf category, each with two or three colour variants. Every variant has
 * stock at the Shenzhen storage; some also in Los Angeles and Frankfurt. The last variant of the
 * last product has none anywhere but Shenzhen, and only 1 unit there (for the insufficient-stock
 * interception).
 */
export const PRODUCTS: SeedProduct[] = CATEGORIES.flatMap((cat, ci) =>
  [0, 1].map((k) => {
    const n = ci * 2 + k + 1;
    const pid = `P${String(n).padStart(4, '0')}`;
    const productSku = `SKU${String(n).padStart(4, '0')}`;
    const sellPrice = Math.round((4 + seeded(n) * 36) * 100) / 100;
    const weight = Math.round(80 + seeded(n + 100) * 900);
    const colours = COLOURS.slice(0, 2 + (n % 2));
    const variants: SeedVariant[] = colours.map((colour, vi) => {
      const vid = `${pid}-V${vi + 1}`;
      const stock: Record<string, number> = {
        'ST-CN-SZ': 50 + Math.round(seeded(n * 10 + vi) * 950),
      };
      if (n % 2 === 0) stock['ST-US-LA'] = Math.round(seeded(n * 20 + vi) * 200);
      if (n % 3 === 0) stock['ST-DE-FRA'] = Math.round(seeded(n * 30 + vi) * 150);
      return {
        vid,
        pid,
        variantSku: `${productSku}-${colour.toUpperCase()}`,
        variantNameEn: `${cat.categoryName} ${k + 1} ${colour}`,
        variantKey: colour,
        variantSellPrice: Math.round((sellPrice + vi * 0.5) * 100) / 100,
        variantWeight: weight,
        variantLength: 200,
        variantWidth: 120,
        variantHeight: 60,
        stock,
      };
    });
    return {
      pid,
      productSku,
      productNameEn: `${cat.categoryName} ${k + 1}`,
      categoryId: cat.categoryId,
      categoryName: `${cat.first} > ${cat.second} > ${cat.categoryName}`,
      sellPrice,
      productWeight: weight,
      productProEnSet: n % 4 === 0 ? ['Battery'] : ['General'],
      variants,
      createTime: BASE_CREATE_TIME + n * 86_400_000,
    };
  }),
);

const last = PRODUCTS[PRODUCTS.length - 1]!.variants;
/** A variant with 1 unit in Shenzhen and none elsewhere. */
export const SCARCE_VARIANT = last[last.length - 1]!;
SCARCE_VARIANT.stock = { 'ST-CN-SZ': 1 };

const variantsById = new Map(PRODUCTS.flatMap((p) => p.variants.map((v) => [v.vid, v] as const)));
const variantsBySku = new Map(
  PRODUCTS.flatMap((p) => p.variants.map((v) => [v.variantSku, v] as const)),
);
const productsById = new Map(PRODUCTS.map((p) => [p.pid, p] as const));

export function findVariant(vid: string | undefined, sku?: string): SeedVariant | undefined {
  return vid !== undefined && vid !== ''
    ? variantsById.get(vid)
    : sku
      ? variantsBySku.get(sku)
      : undefined;
}

export function findProduct(pid: string): SeedProduct | undefined {
  return productsById.get(pid);
}

export function findStorage(storageId: string): SeedStorage | undefined {
  return STORAGES.find((s) => s.storageId === storageId);
}

export function findLine(logisticName: string): LogisticsLine | undefined {
  return LOGISTICS_LINES.find((l) => l.logisticName.toLowerCase() === logisticName.toLowerCase());
}

/** Lines that carry parcels from one country to another. */
export function linesFor(from: string, to: string): LogisticsLine[] {
  return LOGISTICS_LINES.filter((l) => l.from.includes(from) && l.to.includes(to));
}

export function destination(countryCode: string): DestinationRules | undefined {
  return DESTINATIONS.find((d) => d.countryCode === countryCode.toUpperCase());
}

/** Postage in USD for a parcel of `grams` on a line. */
export function postage(line: LogisticsLine, grams: number): number {
  return Math.round((line.base + (line.perKg * grams) / 1000) * 100) / 100;
}
