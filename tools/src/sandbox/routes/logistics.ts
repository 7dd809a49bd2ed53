/**
 * Logistics (docs/supplier-api.md §8): freight estimates from the seed's logistics lines and
 * destination rules, and tracking records of the calling account's orders.
 */
import type { z } from 'zod';
import {
  IossType,
  OrderStatus,
  freightCalculate,
  freightCalculateTip,
  getSupplierLogisticsTemplate,
  partnerFreightCalculate,
  trackInfo,
  type FreightTipRequest,
} from 'dropflow/supplier';
import {
  CNY_PER_USD,
  countryName,
  dateTime,
  goodsValue,
  parcelWeight,
  productBySku,
  round2,
  stockCountries,
} from '../catalogue.js';
import { paramError, type SandboxRouter } from '../routing.js';
import {
  destination,
  LOGISTICS_LINES,
  linesFor,
  postage,
  STORAGES,
  type LogisticsLine,
} from '../seed.js';
import type { SandboxAccount, SandboxOrder } from '../state.js';
import type { Sandbox } from '../sandbox.js';

/** Destinations where an IOSS number applies (EU VAT on imports up to 150 EUR). */
const IOSS_COUNTRIES = new Set(['DE', 'FR', 'NL', 'IT', 'ES', 'AT', 'BE']);
const IOSS_LIMIT_USD = 150;
const EU_VAT_RATE = 0.2;
const IOSS_SERVICE_RATE = 0.02;
/** cm3 per g of volumetric weight (a 6000 cm3/kg divisor). */
const CM3_PER_VOLUME_GRAM = 6;
const DAY_MS = 86_400_000;

export function registerLogisticsRoutes(r: SandboxRouter): void {
  r.serve(freightCalculate, (q) => {
    const grams = weightOrFail(q.products);
    return linesFor(q.startCountryCode.toUpperCase(), q.endCountryCode.toUpperCase()).map(
      (line) => {
        const price = postage(line, grams);
        return {
          logisticName: line.logisticName,
          logisticPrice: price,
          logisticPriceCn: round2(price * CNY_PER_USD),
          logisticAging: aging(line),
          taxesFee: 0,
          clearanceOperationFee: 0,
          totalPostageFee: price,
        };
      },
    );
  });

  r.serve(freightCalculateTip, ({ reqDTOS }) => reqDTOS.flatMap((req) => detailedOptions(req)));

  r.serve(partnerFreightCalculate, (q) => {
    const grams = weightOrFail(q.products);
    const to = q.shippingCountryCode.toUpperCase();
    const value = goodsValue(q.products);
    const ioss = IOSS_COUNTRIES.has(to) && value <= IOSS_LIMIT_USD;
    return linesFor(q.fromCountryCode.toUpperCase(), to)
      .filter(
        (l) => !q.logisticName || l.logisticName.toLowerCase() === q.logisticName.toLowerCase(),
      )
      .map((line) => ({
        postageAmount: postage(line, grams),
        logisticsModel: line.logisticName,
        logisticsName: line.logisticName,
        arrivalTime: aging(line),
        isSupportIoss: ioss,
        iossList: ioss ? iossOptions(value, q.iossNumber) : [],
      }));
  });

  r.serve(getSupplierLogisticsTemplate, ({ skuList }) =>
    // Only product SKUs name a template; variant and unknown SKUs are left out.
    skuList.flatMap((sku) => {
      const p = productBySku(sku);
      if (!p) return [];
      const from = stockCountries(p);
      return [
        {
          skuList: [p.productSku],
          logisticsInfoList: LOGISTICS_LINES.flatMap((line, li) =>
            line.from
              .filter((f) => from.includes(f))
              .flatMap((start) =>
                line.to.map((dest) => ({
                  id: `TPL-${p.pid}-${li + 1}-${start}-${dest}`,
                  logisticsName: line.logisticName,
                  postage: postage(line, p.productWeight),
                  startCountryCode: start,
                  destCountryCode: dest,
                })),
              ),
          ),
        },
      ];
    }),
  );

  r.serve(trackInfo, ({ trackNumber }, account, sb) => {
    const wanted = new Set(trackNumber);
    const seen = new Set<string>();
    return ordersOf(account, sb).flatMap((o) => {
      const number = trackNumberOf(o);
      if (number === undefined || !wanted.has(number) || seen.has(number)) return [];
      seen.add(number);
      return [trackingRecord(o, number, sb.now())];
    });
  });
}

function weightOrFail(products: readonly { vid: string; quantity: number }[]): number {
  const w = parcelWeight(products);
  if ('unknownIndex' in w) throw paramError(`products[${w.unknownIndex}].vid`, 'unknown variant');
  return w.grams;
}

function aging(line: LogisticsLine): string {
  return `${line.days[0]}-${line.days[1]}`;
}

function iossOptions(value: number, ownNumber: string | undefined) {
  const service = {
    iossType: IossType.Service,
    iossNumber: 'IOSS-SERVICE',
    taxAmount: round2(value * EU_VAT_RATE),
    serviceAmount: round2(value * IOSS_SERVICE_RATE),
  };
  return ownNumber
    ? [{ iossType: IossType.Own, iossNumber: ownNumber, taxAmount: 0, serviceAmount: 0 }, service]
    : [service];
}

// ---- freightCalculateTip ----

interface RuleTip {
  type: string;
  expression: string;
  interceptType: '0' | '1';
  msgCode: string;
  msgEn: string;
}

type TipQuery = z.output<typeof FreightTipRequest>;
/** Address fields a tip rule is checked against. */
type TipAddress = Pick<TipQuery, 'zip' | 'phone' | 'dutyNo'>;

/**
 * The destination's interception rules (seed DESTINATIONS) as rule tips; every one is a strong
 * interception (interceptType '0'): an order breaking it is intercepted.
 */
function destinationRules(
  countryCode: string,
): { tip: RuleTip; broken: (a: TipAddress) => boolean }[] {
  const d = destination(countryCode);
  if (!d) return [];
  const rules: { tip: RuleTip; broken: (a: TipAddress) => boolean }[] = [];
  const zip = d.zip;
  if (zip) {
    rules.push({
      tip: {
        type: 'zip',
        expression: zip.source,
        interceptType: '0',
        msgCode: 'ZIP_FORMAT',
        msgEn: `The zip code for ${d.country} must look like ${d.zipExample ?? 'the local format'}`,
      },
      broken: (a) => !a.zip || !zip.test(a.zip.trim()),
    });
  }
  if (d.phoneRequired) {
    rules.push({
      tip: {
        type: 'phone',
        expression: '\\S',
        interceptType: '0',
        msgCode: 'PHONE_REQUIRED',
        msgEn: `A phone number is required for ${d.country}`,
      },
      broken: (a) => !a.phone?.trim(),
    });
  }
  if (d.taxIdRequired) {
    rules.push({
      tip: {
        type: 'dutyNo',
        expression: '\\S',
        interceptType: '0',
        msgCode: 'DUTY_NO_REQUIRED',
        msgEn: `A tax id (dutyNo, taxId on orders) is required for ${d.country}`,
      },
      broken: (a) => !a.dutyNo?.trim(),
    });
  }
  return rules;
}

function area(countryCode: string) {
  const name = countryName(countryCode);
  return {
    cnName: name,
    enName: name,
    countryId: countryCode,
    parentId: '0',
    shortCode: countryCode,
    id: countryCode,
  };
}

/** Rank (from 1) of each value, lowest first. */
function ranks(values: number[]): number[] {
  const sorted = [...values].sort((a, b) => a - b);
  return values.map((v) => sorted.indexOf(v) + 1);
}

function detailedOptions(req: TipQuery) {
  const src = req.srcAreaCode.toUpperCase();
  const dest = req.destAreaCode.toUpperCase();
  const volumeWeight = req.volumeWeight ?? Math.round(req.volume / CM3_PER_VOLUME_GRAM);
  const grams = Math.max(req.wrapWeight, req.weight, volumeWeight);
  const rules = destinationRules(dest);
  const allRuleTips = rules.map((r) => r.tip);
  const ruleTips = rules.filter((r) => r.broken(req)).map((r) => r.tip);
  const storageIds = req.storageIdList;
  const storages = STORAGES.filter(
    (s) => s.countryCode === src && (!storageIds || storageIds.includes(s.storageId)),
  );
  const lines = linesFor(src, dest).filter(
    (l) => !req.optionName || l.logisticName.toLowerCase() === req.optionName.toLowerCase(),
  );
  const prices = lines.map((l) => postage(l, grams));
  const byPrice = ranks(prices);
  const byTime = ranks(lines.map((l) => l.days[1]));
  const byBoth = ranks(lines.map((_, i) => (byPrice[i] ?? 0) + (byTime[i] ?? 0)));

  return lines.map((line, i) => {
    const price = prices[i] ?? 0;
    const cny = round2(price * CNY_PER_USD);
    const id = String(LOGISTICS_LINES.indexOf(line) + 1);
    const recommend = [
      ...(byTime[i] === 1 ? [0] : []),
      ...(byPrice[i] === 1 ? [1] : []),
      ...(byBoth[i] === 1 ? [2] : []),
    ];
    return {
      arrivalTime: aging(line),
      discountFee: price,
      discountFeeCNY: cny,
      postage: price,
      postageCNY: cny,
      volumeWeight,
      channelId: id,
      optionId: id,
      error: null,
      errorEn: null,
      priceIncreases: '0',
      reSort: String(byPrice[i] ?? 0),
      remoteFee: 0,
      remoteFeeCNY: 0,
      tip: ruleTips.map((t) => t.msgEn).join('; '),
      uid: req.uid ?? null,
      wrapPostage: 0,
      wrapPostageCNY: 0,
      wrapWeight: req.wrapWeight,
      stopWords: [],
      dump: false,
      channel: { cnName: line.logisticName, enName: line.logisticName, id },
      option: {
        cnName: line.logisticName,
        enName: line.logisticName,
        id,
        arrivalTime: aging(line),
      },
      svcRespDTO: {
        postage: price.toFixed(2),
        postageCNY: cny.toFixed(2),
        remoteFee: '0.00',
        remoteFeeCNY: '0.00',
      },
      taxesFee: 0,
      clearanceOperationFee: 0,
      tariff: 0,
      totalPostageFee: price,
      recommendLogisticsTypeList: recommend,
      timePrioritySort: byTime[i],
      pricePrioritySort: byPrice[i],
      compositeRecommendSort: byBoth[i],
      zonePrice: storages.map((s) => ({
        storageId: s.storageId,
        discountFee: price.toFixed(2),
        lastDiscountFee: price.toFixed(2),
        wrapPostage: '0.00',
        lastWrapPostage: '0.00',
      })),
      ruleTipTypes: ruleTips.map((t) => t.type),
      ruleTips,
      allRuleTips,
      srcArea: area(src),
      destArea: area(dest),
    };
  });
}

// ---- trackInfo ----

function ordersOf(account: SandboxAccount, sb: Sandbox): SandboxOrder[] {
  return Object.values(sb.state.orders).filter((o) => o.openId === account.openId);
}

/** The number set by updateTrackNumber or shipping, else the one of an uploaded waybill. */
function trackNumberOf(o: SandboxOrder): string | undefined {
  return o.trackNumber ?? o.waybill?.trackNumber;
}

function trackingStatus(o: SandboxOrder): string {
  if (o.status === OrderStatus.Delivered) return 'Delivered';
  if (o.status === OrderStatus.Shipped) return 'In transit';
  return 'Info received';
}

function trackingRecord(o: SandboxOrder, number: string, now: number) {
  const to = o.request.shippingCountryCode;
  const inTransitUntil = o.deliveredAt ?? now;
  return {
    trackingNumber: number,
    logisticName: o.logisticName,
    trackingFrom: o.fromCountryCode,
    trackingTo: typeof to === 'string' ? to : null,
    deliveryDay:
      o.shippedAt === undefined
        ? null
        : String(Math.max(0, Math.ceil((inTransitUntil - o.shippedAt) / DAY_MS))),
    deliveryTime: o.deliveredAt === undefined ? null : dateTime(o.deliveredAt),
    trackingStatus: trackingStatus(o),
    lastMileCarrier: o.trackingProvider ?? o.waybill?.carrier ?? o.logisticName,
    lastTrackNumber: number,
  };
}
