import { beforeAll, expect } from 'vitest';
import type { TestAccount } from '../helpers/service.ts';
import { useTestService } from '../helpers/testService.ts';
import type { FileService } from '../helpers/testService.ts';

/**
 * The components tests' shared setup: one service per test file, with a package group in the test account and in
 * another account, and ZAR enabled in the test account. The bindings below are set once `useComponentService`'s
 * beforeAll has run, so read them inside tests, never while the file is being collected.
 */
export let t: FileService;
export let other: TestAccount;
export let groupId: number;
export let otherGroupId: number;

export const createGroup = async (as: TestAccount, GroupName = 'Usage') => {
  const res = await as.request('POST', '/v1/packagegroups', { body: { GroupName } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.packageGroupID as number;
};

export function useComponentService() {
  t = useTestService({ secondAccount: true });
  other = t.other;
  beforeAll(async () => {
    groupId = await createGroup(t);
    otherGroupId = await createGroup(other);
    expect((await t.request('POST', '/v1/currencies', { body: { CurrencyCode: 'ZAR' } })).status).toBe(201);
  });
}

/** 1–10 at 1.00, 11–20 at 0.80, 21+ at 0.50 (the pricing module's worked example). */
export const BRACKETS = [
  { Price: 1.0, QtyFrom: 1, QtyTill: 10 },
  { Price: 0.8, QtyFrom: 11, QtyTill: 20 },
  { Price: 0.5, QtyFrom: 21, QtyTill: null },
];

let codeSeq = 0;
const nextCode = () => `SMS-${++codeSeq}`;

export function componentIn(overrides: Record<string, unknown> = {}, group = groupId) {
  return {
    ComponentCode: nextCode(),
    Name: 'SMS bundle',
    Type: 'quantity',
    Scheme: 'unit',
    UnitName: 'per sms',
    packageGroupID: group,
    Term: 1,
    TermType: 'months',
    ComponentVersion: {
      VersionName: 'Launch prices',
      ComponentVersionCurrencies: [{ CurrencyCode: 'USD', ComponentBracketPrices: BRACKETS }],
    },
    ...overrides,
  };
}

export async function create(overrides: Record<string, unknown> = {}, as: TestAccount = t, group = groupId) {
  const res = await as.request('POST', '/v1/components', { body: componentIn(overrides, group) });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

export const withBrackets = (ComponentBracketPrices: unknown[], CurrencyCode = 'USD') => ({
  ComponentVersion: {
    VersionName: 'v1',
    ComponentVersionCurrencies: [{ CurrencyCode, ComponentBracketPrices }],
  },
});

export const BRACKET_PATH = 'ComponentVersion.ComponentVersionCurrencies[0].ComponentBracketPrices';

export async function refused(body: unknown, as: TestAccount = t) {
  const res = await as.request('POST', '/v1/components', { body });
  expect(res.status, JSON.stringify(res.body)).toBe(422);
  return res.body.fields as { field: string; message: string }[];
}

export const versionIn = (overrides: Record<string, unknown> = {}) => ({
  VersionName: 'Next',
  isActive: true,
  isDefault: false,
  ComponentVersionCurrencies: [{ CurrencyCode: 'USD', ComponentBracketPrices: [{ Price: 2, QtyFrom: 1 }] }],
  ...overrides,
});

export async function addVersion(componentId: number, overrides: Record<string, unknown> = {}) {
  const res = await t.request('POST', `/v1/components/${componentId}/versions`, {
    body: versionIn(overrides),
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

export const versionsOf = async (componentId: number) =>
  (await t.request('GET', `/v1/components/${componentId}/versions`)).body as {
    VersionNo: number;
    isDefault: boolean;
    isActive: boolean;
  }[];

export const defaultOf = async (componentId: number) =>
  (await versionsOf(componentId)).filter((v) => v.isDefault).map((v) => v.VersionNo);
