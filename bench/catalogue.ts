import { setting } from './common.ts';

/**
 * Seeds a catalogue through the API for the list benchmarks: 200 packages (BENCH_CATALOGUE_ITEMS) of 5 versions with
 * 3 currencies each, and as many components likewise (3 brackets per currency).
 */
export const CATALOGUE_SIZE = {
  items: setting('BENCH_CATALOGUE_ITEMS', 200, 1, 200),
  versions: 5,
  currencies: ['USD', 'ZAR', 'EUR'],
};

async function call(base: string, authorization: string, method: string, path: string, body?: unknown) {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { authorization, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(30_000),
  });
  const text = await response.text();
  if (response.status >= 300) throw new Error(`${method} ${path} answered ${response.status}: ${text}`);
  return text === '' ? undefined : (JSON.parse(text) as Record<string, unknown>);
}

const packageRates = (version: number) =>
  CATALOGUE_SIZE.currencies.map((CurrencyCode, i) => ({
    CurrencyCode,
    SetupFee: 10 + i,
    TrialFee: 0,
    TrialPeriod: 14,
    TrialPeriodType: 'days',
    PackageRateTerms: [
      { ChargePrice: 99.5 + version, ChargeTerm: 1, ChargeTermType: 'months' },
      { ChargePrice: 999 + version, ChargeTerm: 12, ChargeTermType: 'months' },
    ],
  }));

const componentCurrencies = (version: number) =>
  CATALOGUE_SIZE.currencies.map((CurrencyCode) => ({
    CurrencyCode,
    ComponentBracketPrices: [
      { Price: 1 + version, QtyFrom: 1, QtyTill: 10 },
      { Price: 0.8 + version, QtyFrom: 11, QtyTill: 20 },
      { Price: 0.5 + version, QtyFrom: 21, QtyTill: null },
    ],
  }));

/** Runs `work` for 0..count-1, a few at a time. */
async function inBatches(count: number, work: (i: number) => Promise<void>): Promise<void> {
  const width = 8;
  for (let start = 0; start < count; start += width) {
    await Promise.all(Array.from({ length: Math.min(width, count - start) }, (_, k) => work(start + k)));
  }
}

export async function seedCatalogue(base: string, authorization: string): Promise<void> {
  for (const code of CATALOGUE_SIZE.currencies.slice(1)) {
    await call(base, authorization, 'POST', '/v1/currencies', { CurrencyCode: code });
  }
  const group = await call(base, authorization, 'POST', '/v1/packagegroups', { GroupName: 'Bench' });
  const packageGroupID = group!.packageGroupID;

  await inBatches(CATALOGUE_SIZE.items, async (i) => {
    const created = await call(base, authorization, 'POST', '/v1/packages', {
      packageGroupID,
      packageCode: `PKG-${i}`,
      Name: `Package ${i}`,
      Descrip: 'Benchmark package',
      isActive: true,
      PackageVersion: {
        VersionName: 'v1',
        isActive: true,
        isDefault: true,
        packageVersionRates: packageRates(1),
      },
    });
    for (let v = 2; v <= CATALOGUE_SIZE.versions; v++) {
      await call(base, authorization, 'POST', `/v1/packages/${created!.packageID}/versions`, {
        VersionName: `v${v}`,
        isActive: true,
        isDefault: false,
        packageVersionRates: packageRates(v),
      });
    }
  });

  await inBatches(CATALOGUE_SIZE.items, async (i) => {
    const created = await call(base, authorization, 'POST', '/v1/components', {
      ComponentCode: `CMP-${i}`,
      Name: `Component ${i}`,
      Type: 'quantity',
      Scheme: 'unit',
      UnitName: 'per license',
      packageGroupID,
      Term: 1,
      TermType: 'months',
      Descrip: 'Benchmark component',
      isActive: true,
      ComponentVersion: { VersionName: 'v1', ComponentVersionCurrencies: componentCurrencies(1) },
    });
    for (let v = 2; v <= CATALOGUE_SIZE.versions; v++) {
      await call(base, authorization, 'POST', `/v1/components/${created!.componentID}/versions`, {
        VersionName: `v${v}`,
        isActive: true,
        isDefault: false,
        ComponentVersionCurrencies: componentCurrencies(v),
      });
    }
  });

  // Both lists must hold the whole catalogue before they are measured.
  for (const path of ['/v1/packages', '/v1/components']) {
    const response = await fetch(`${base}${path}?page_size=200`, { headers: { authorization } });
    const list = (await response.json()) as unknown[];
    if (list.length !== CATALOGUE_SIZE.items)
      throw new Error(`${path} lists ${list.length} items after seeding`);
  }
}
