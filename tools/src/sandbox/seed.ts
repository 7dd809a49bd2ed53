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

export const LOGISTICS_LINES: LogisticsLine[] = [
  {
    logisticName: 'SvcPacket Ordinary',
    from: ['CN'],
    to: WORLD,
    base: 3.2,
    perKg: 9.5,
    days: [12, 20],
  },
  {
    logisticName: 'SvcPacket Express',
    from: ['CN'],
    to: ['US', 'CA', 'GB', 'AU', ...EU],
    base: 7.9,
    perKg: 14,
    days: [6, 10],
  },
  {
    logisticName: 'Brazil Post Line',
    from: ['CN'],
    to: ['BR'],
    base: 4.1,
    perKg: 11,
    days: [18, 30],
  },
  { logisticName: 'USPS Ground', from: ['US'], to: ['US'], base: 4.5, perKg: 3.2, days: [3, 6] },
  {
    logisticName: 'UPS 2nd Day',
    from: ['US'],
    to: ['US', 'CA'],
    base: 9.9,
    perKg: 4.8,
    days: [2, 3],
  },
  { logisticName: 'DHL Paket', from: ['DE'], to: EU, base: 4.9, perKg: 2.5, days: [2, 5] },
];

/** Interception rules by destination; docs/sandbox.md shows how to trigger each. */
export const DESTINATIONS: DestinationRules[] = [
  {
    countryCode: 'US',
    country: 'United States',
    zip: /^\d{5}(-\d{4})?$/,
    zipExample: '90210',
    phoneRequired: false,
    taxIdRequired: false,
  },
  {
    countryCode: 'CA',
    country: 'Canada',
    zip: /^[A-Z]\d[A-Z] ?\d[A-Z]\d$/i,
    zipExample: 'M5V 2T6',
    phoneRequired: true,
    taxIdRequired: false,
  },
  {
    countryCode: 'GB',
    country: 'United Kingdom',
    zip: /^[A-Z]{1,2}\d[A-Z\d]? ?\d[A-Z]{2}$/i,
    zipExample: 'SW1A 1AA',
    phoneRequired: false,
    taxIdRequired: false,
  },
  {
    countryCode: 'AU',
    country: 'Australia',
    zip: /^\d{4}$/,
    zipExample: '2000',
    phoneRequired: true,
    taxIdRequired: false,
  },
  {
    countryCode: 'BR',
    country: 'Brazil',
    zip: /^\d{5}-?\d{3}$/,
    zipExample: '01310-100',
    phoneRequired: true,
    taxIdRequired: true,
  },
  {
    countryCode: 'MX',
    country: 'Mexico',
    zip: /^\d{5}$/,
    zipExample: '06600',
    phoneRequired: true,
    taxIdRequired: false,
  },
  {
    countryCode: 'DE',
    country: 'Germany',
    zip: /^\d{5}$/,
    zipExample: '10115',
    phoneRequired: false,
    taxIdRequired: false,
  },
  {
    countryCode: 'FR',
    country: 'France',
    zip: /^\d{5}$/,
    zipExample: '75001',
    phoneRequired: false,
    taxIdRequired: false,
  },
  {
    countryCode: 'NL',
    country: 'Netherlands',
    zip: /^\d{4} ?[A-Z]{2}$/i,
    zipExample: '1012 AB',
    phoneRequired: false,
    taxIdRequired: false,
  },
  {
    countryCode: 'IT',
    country: 'Italy',
    zip: /^\d{5}$/,
    zipExample: '00118',
    phoneRequired: false,
    taxIdRequired: false,
  },
  {
    countryCode: 'ES',
    country: 'Spain',
    zip: /^\d{5}$/,
    zipExample: '28001',
    phoneRequired: false,
    taxIdRequired: false,
  },
  {
    countryCode: 'AT',
    country: 'Austria',
    zip: /^\d{4}$/,
    zipExample: '1010',
    phoneRequired: false,
    taxIdRequired: false,
  },
  {
    countryCode: 'BE',
    country: 'Belgium',
    zip: /^\d{4}$/,
    zipExample: '1000',
    phoneRequired: false,
    taxIdRequired: false,
  },
];

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
