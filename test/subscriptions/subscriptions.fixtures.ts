import { afterEach, beforeAll, expect } from 'vitest';
import type { TestAccount } from '../helpers/service.ts';
import { useTestService } from '../helpers/testService.ts';
import type { FileService } from '../helpers/testService.ts';
import { midnightUtc } from '../helpers/clock.ts';

/** The service's clock: tests move it; every test starts on TODAY (afterEach puts it back). */
export const TODAY = '2026-03-10';
export const clock = {
  at: Date.parse(`${TODAY}T10:00:00.000Z`),
  now() {
    return new Date(this.at);
  },
};
export const setToday = (date: string) => {
  clock.at = Date.parse(`${date}T10:00:00.000Z`);
};
/** The account is in UTC: a calendar date is shown as its midnight in UTC. */
export { midnightUtc as wire };

/**
 * The subscription tests' shared catalogue and customers, made once per test file by `useSubscriptionService`: a
 * Gold package (USD and ZAR rates, monthly and yearly terms), a package with a 14-day trial, a component priced in
 * USD and one priced only in ZAR, a USD customer (Ada) and a ZAR one (Bongani). The bindings are set once its
 * beforeAll has run, so read them inside tests.
 */
export let t: FileService;
export let other: TestAccount;
export let groupId: number;
export let gold: any;
export let goldMonthly: number;
export let goldYearly: number;
export let goldZarMonthly: number;
export let trialPkg: any;
export let trialMonthly: number;
export let sms: any;
export let zarOnly: any;
export let ada: number;
export let bongani: number;

let codes = 0;
export const rate = (CurrencyCode: string, overrides: Record<string, unknown> = {}) => ({
  CurrencyCode,
  SetupFee: 10,
  TrialFee: 0,
  TrialPeriod: 0,
  TrialPeriodType: 'days',
  PackageRateTerms: [
    { ChargePrice: CurrencyCode === 'ZAR' ? 500 : 30, ChargeTerm: 1, ChargeTermType: 'months' },
    { ChargePrice: CurrencyCode === 'ZAR' ? 5000 : 300, ChargeTerm: 12, ChargeTermType: 'months' },
  ],
  ...overrides,
});
export const versionBody = (overrides: Record<string, unknown> = {}) => ({
  VersionName: 'Standard',
  isActive: true,
  isDefault: false,
  packageVersionRates: [rate('USD'), rate('ZAR')],
  ...overrides,
});

export async function createPackage(
  overrides: Record<string, unknown> = {},
  as: TestAccount = t,
  group = groupId,
) {
  const res = await as.request('POST', '/v1/packages', {
    body: {
      packageGroupID: group,
      packageCode: `SUB-${++codes}`,
      Name: 'Gold',
      isActive: true,
      PackageVersion: versionBody(),
      ...overrides,
    },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

/** The id of the rate term of `version` in `currency` with the given ChargeTerm. */
export const termOf = (version: any, currency: string, months = 1): number =>
  version.packageVersionRates
    .find((r: any) => r.CurrencyCode === currency)
    .PackageRateTerms.find((term: any) => term.ChargeTerm === months).packageRateTermID;

const BRACKETS = [
  { Price: 1, QtyFrom: 1, QtyTill: 10 },
  { Price: 0.5, QtyFrom: 11, QtyTill: null },
];

export async function createComponent(currencies = ['USD'], as: TestAccount = t, group = groupId) {
  const res = await as.request('POST', '/v1/components', {
    body: {
      ComponentCode: `C-${++codes}`,
      Name: 'SMS bundle',
      Type: 'quantity',
      Scheme: 'unit',
      UnitName: 'per sms',
      packageGroupID: group,
      Term: 1,
      TermType: 'months',
      ComponentVersion: {
        VersionName: 'Launch',
        ComponentVersionCurrencies: currencies.map((CurrencyCode) => ({
          CurrencyCode,
          ComponentBracketPrices: BRACKETS,
        })),
      },
    },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

export async function createCustomer(
  body: Record<string, unknown> = {},
  as: TestAccount = t,
): Promise<number> {
  const res = await as.request('POST', '/v1/customers', { body: { Name: 'Ada', ...body } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.customerID;
}

export const subscriptionBody = (overrides: Record<string, unknown> = {}) => ({
  customerID: ada,
  packageID: gold.packageID,
  packageRateTermID: goldMonthly,
  ...overrides,
});

export async function subscribe(overrides: Record<string, unknown> = {}, as: TestAccount = t) {
  const res = await as.request('POST', '/v1/subscriptions', { body: subscriptionBody(overrides) });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

/** A subscription starting later: nothing is billed, so every computed field is this module's own. */
export const subscribeFuture = (overrides: Record<string, unknown> = {}) =>
  subscribe({ StartDate: '2026-04-01', ...overrides });

export const get = async (id: number) => {
  const res = await t.request('GET', `/v1/subscriptions/${id}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
};

/** The distinct fields a problem names, in order. */
export const fieldsOf = (res: { status: number; headers: Headers; body: any }, status = 422): string[] => {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.headers.get('content-type')).toContain('application/problem+json');
  return [...new Set<string>((res.body.fields ?? []).map((f: { field: string }) => f.field))];
};

/** Changes stored columns directly, to stand for what the bill run or cancellation would have written. */
export const setColumns = (id: number, changes: Record<string, unknown>) =>
  t.service.storage.db
    .updateTable('subscriptions')
    .set(changes as never)
    .where('id', '=', id)
    .execute();

export const put = (id: number, path: string, body: unknown, as: TestAccount = t) =>
  as.request('PUT', `/v1/subscriptions/${id}/${path}`, { body });

export function useSubscriptionService() {
  t = useTestService({ clock, secondAccount: true });
  other = t.other;
  beforeAll(async () => {
    expect((await t.request('POST', '/v1/currencies', { body: { CurrencyCode: 'ZAR' } })).status).toBe(201);
    groupId = (await t.request('POST', '/v1/packagegroups', { body: { GroupName: 'Plans' } })).body
      .packageGroupID;
    gold = await createPackage();
    goldMonthly = termOf(gold.PackageVersions[0], 'USD');
    goldYearly = termOf(gold.PackageVersions[0], 'USD', 12);
    goldZarMonthly = termOf(gold.PackageVersions[0], 'ZAR');
    trialPkg = await createPackage({
      Name: 'Trial plan',
      PackageVersion: versionBody({ packageVersionRates: [rate('USD', { TrialPeriod: 14, TrialFee: 1 })] }),
    });
    trialMonthly = termOf(trialPkg.PackageVersions[0], 'USD');
    sms = await createComponent();
    zarOnly = await createComponent(['ZAR']);
    ada = await createCustomer({ LastName: 'Lovelace' });
    bongani = await createCustomer({ Name: 'Bongani', CurrencyCode: 'ZAR' });
  });
  afterEach(() => setToday(TODAY));
}
