/**
 * `GET /wp-json/wc/v3/orders` of the WooCommerce double, as the REST API v3 documents it: filters
 * `after`/`before` (created), `modified_after`/`modified_before` (ISO 8601, the site's local time
 * unless `dates_are_gmt`; strictly after/before), `status` (a list, comma-separated or repeated;
 * `any` by default), `orderby` (`date`, `id`, `modified`, `include`) and `order` (`desc` by
 * default), `page` and `per_page` (1 to 100, default 10), with `X-WP-Total` and
 * `X-WP-TotalPages`. A parameter out of its rule answers 400 `rest_invalid_param`, as WordPress does.
 */
import type { WooOrder } from './site.js';

const STATUSES: readonly string[] = [
  'any',
  'trash',
  'pending',
  'processing',
  'on-hold',
  'completed',
  'cancelled',
  'refunded',
  'failed',
];
const ORDER_BY = ['date', 'id', 'modified', 'include'];
const DATE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}/;

export interface ListAnswer {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

type Query = Record<string, string | string[] | undefined>;

function invalid(param: string, why: string): ListAnswer {
  return {
    status: 400,
    headers: {},
    body: {
      code: 'rest_invalid_param',
      message: `Invalid parameter(s): ${param}`,
      data: { status: 400, params: { [param]: why } },
    },
  };
}

function list(value: string | string[] | undefined): string[] {
  if (value === undefined) return [];
  return (Array.isArray(value) ? value : [value]).flatMap((v) => v.split(',')).filter(Boolean);
}

function one(q: Query, name: string): string | undefined {
  const v = q[name] ?? q[`${name}[]`];
  return Array.isArray(v) ? v[0] : v;
}

/** The date filters: `[param, field of the order, after?]`. */
const DATE_FILTERS = [
  ['after', 'date_created', true],
  ['before', 'date_created', false],
  ['modified_after', 'date_modified', true],
  ['modified_before', 'date_modified', false],
] as const;

export function listOrders(orders: Iterable<WooOrder>, q: Query): ListAnswer {
  const perPage = Number(one(q, 'per_page') ?? 10);
  if (!Number.isInteger(perPage) || perPage < 1 || perPage > 100)
    return invalid('per_page', 'per_page must be between 1 (inclusive) and 100 (inclusive)');
  const page = Number(one(q, 'page') ?? 1);
  if (!Number.isInteger(page) || page < 1) return invalid('page', 'page must be at least 1');
  const statuses = list(q.status ?? q['status[]']);
  const bad = statuses.find((s) => !STATUSES.includes(s));
  if (bad !== undefined) return invalid('status', `status[0] is not one of ${STATUSES.join(', ')}`);
  const orderBy = one(q, 'orderby') ?? 'date';
  if (!ORDER_BY.includes(orderBy))
    return invalid('orderby', `orderby is not one of ${ORDER_BY.join(', ')}`);
  const gmt = one(q, 'dates_are_gmt') === 'true' || one(q, 'dates_are_gmt') === '1';
  let all = [...orders];
  for (const [param, field, after] of DATE_FILTERS) {
    const at = one(q, param);
    if (at === undefined) continue;
    if (!DATE.test(at)) return invalid(param, `${param} is not a valid date`);
    const key = at.slice(0, 19);
    all = all.filter((o) => {
      const value = o[gmt ? (`${field}_gmt` as const) : field];
      return after ? value > key : value < key;
    });
  }
  if (statuses.length > 0 && !statuses.includes('any')) {
    all = all.filter((o) => statuses.includes(o.status));
  }
  const sortKey = (o: WooOrder): string | number =>
    orderBy === 'modified' ? o.date_modified_gmt : orderBy === 'date' ? o.date_created_gmt : o.id;
  const asc = one(q, 'order') === 'asc';
  all.sort((a, b) => {
    const [x, y] = [sortKey(a), sortKey(b)];
    const by = x < y ? -1 : x > y ? 1 : a.id - b.id;
    return asc ? by : -by;
  });
  return {
    status: 200,
    headers: {
      'x-wp-total': String(all.length),
      'x-wp-totalpages': String(Math.ceil(all.length / perPage)),
    },
    body: all.slice((page - 1) * perPage, page * perPage),
  };
}
