import { beforeAll, expect } from 'vitest';
import type { TestAccount, TestService } from '../helpers/service.ts';
import { useTestService } from '../helpers/testService.ts';

/**
 * The packages tests' shared setup: one service per test file, ZAR and EUR enabled and a package group in the test
 * account. The bindings are set once `usePackageService`'s beforeAll has run, so read them inside tests.
 */
export let t: TestService;
export let groupId: number;

export function usePackageService() {
  t = useTestService();
  beforeAll(async () => {
    for (const CurrencyCode of ['ZAR', 'EUR']) {
      await t.request('POST', '/v1/currencies', { body: { CurrencyCode } });
    }
    groupId = (await t.request('POST', '/v1/packagegroups', { body: { GroupName: 'Plans' } })).body
      .packageGroupID;
  });
}

let codes = 0;
export const nextCode = () => `PKG-${++codes}`;

export const rate = (CurrencyCode = 'USD', overrides: Record<string, unknown> = {}) => ({
  CurrencyCode,
  SetupFee: 10,
  TrialFee: 0,
  TrialPeriod: 14,
  TrialPeriodType: 'days',
  PackageRateTerms: [
    { ChargePrice: 99.99, ChargeTerm: 1, ChargeTermType: 'months' },
    { ChargePrice: 999.5, ChargeTerm: 12, ChargeTermType: 'months' },
  ],
  ...overrides,
});

export const versionBody = (overrides: Record<string, unknown> = {}) => ({
  VersionName: 'Standard',
  isActive: true,
  isDefault: true,
  packageVersionRates: [rate()],
  ...overrides,
});

export const packageBody = (overrides: Record<string, unknown> = {}) => ({
  packageGroupID: groupId,
  packageCode: nextCode(),
  Name: 'Gold',
  Descrip: 'The gold plan',
  isActive: true,
  PackageVersion: versionBody(),
  ...overrides,
});

export const createPackage = async (overrides: Record<string, unknown> = {}, as: TestAccount = t) => {
  const res = await as.request('POST', '/v1/packages', { body: packageBody(overrides) });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
};

export const addVersion = async (packageId: number, overrides: Record<string, unknown> = {}) => {
  const res = await t.request('POST', `/v1/packages/${packageId}/versions`, { body: versionBody(overrides) });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
};

export const versionsOf = async (packageId: number) =>
  (await t.request('GET', `/v1/packages/${packageId}/versions`)).body as {
    VersionNo: number;
    isDefault: boolean;
    isActive: boolean;
  }[];

export const defaults = async (packageId: number) =>
  (await versionsOf(packageId)).filter((v) => v.isDefault).map((v) => v.VersionNo);

export const expectField = (res: { status: number; body: any }, field: string) => {
  expect(res.status, JSON.stringify(res.body)).toBe(422);
  expect(res.body.fields.map((f: { field: string }) => f.field)).toContain(field);
};
