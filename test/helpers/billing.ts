import { expect } from 'vitest';
import type { TestAccount } from './service.ts';

/** A clock the test moves by hand. */
/** Every movable clock made, with its start: a fixture's clock outlives the file that moved it (perFile.ts). */
const movableClocks = new Map<{ set(at: string): void }, string>();

export function movableClock(start: string) {
  let now = new Date(start);
  const clock = {
    now: () => new Date(now.getTime()),
    set(at: string) {
      now = new Date(at);
    },
  };
  movableClocks.set(clock, start);
  return clock;
}

/** Sets every movable clock back to its start, as each test file finds it (test/helpers/perFile.ts). */
export function resetMovableClocks(): void {
  for (const [clock, start] of movableClocks) clock.set(start);
}

export async function ok<T = any>(
  as: TestAccount,
  method: string,
  path: string,
  body?: unknown,
  status = method === 'POST' ? 201 : method === 'GET' ? 200 : 204,
): Promise<T> {
  const res = await as.request(method, path, body === undefined ? {} : { body });
  expect(res.status, `${method} ${path}: ${res.text}`).toBe(status);
  return res.body as T;
}

let codes = 0;
// Counted apart from plans, so that a plan's name (on its invoice lines) does not depend on components made first.
let componentCodes = 0;

export interface PlanOptions {
  chargePrice?: number;
  chargeTerm?: number;
  chargeTermType?: 'months' | 'days';
  setupFee?: number;
  trialFee?: number;
  trialPeriod?: number;
  trialPeriodType?: 'days' | 'months';
  currency?: string;
  /** More rate terms beside the first. */
  extraTerms?: { ChargePrice: number; ChargeTerm: number; ChargeTermType: string }[];
}

/** A package with one version and one rate in a currency; returns its ids. */
export async function createPlan(as: TestAccount, options: PlanOptions = {}) {
  const group = await ok(as, 'POST', '/v1/packagegroups', { GroupName: `Plans ${++codes}` });
  const pkg = await ok(as, 'POST', '/v1/packages', {
    packageGroupID: group.packageGroupID,
    packageCode: `PLAN-${codes}`,
    Name: `Plan ${codes}`,
    isActive: true,
    PackageVersion: {
      VersionName: 'Standard',
      isActive: true,
      isDefault: true,
      packageVersionRates: [
        {
          CurrencyCode: options.currency ?? 'USD',
          SetupFee: options.setupFee ?? 0,
          TrialFee: options.trialFee ?? 0,
          TrialPeriod: options.trialPeriod ?? 0,
          TrialPeriodType: options.trialPeriodType ?? 'days',
          PackageRateTerms: [
            {
              ChargePrice: options.chargePrice ?? 30,
              ChargeTerm: options.chargeTerm ?? 1,
              ChargeTermType: options.chargeTermType ?? 'months',
            },
            ...(options.extraTerms ?? []),
          ],
        },
      ],
    },
  });
  const version = pkg.PackageVersions[0];
  const terms = version.packageVersionRates[0].PackageRateTerms;
  return {
    packageId: pkg.packageID as number,
    /** The name its invoice lines carry. */
    name: pkg.Name as string,
    versionId: version.packageVersionID as number,
    rateTermId: terms[0].packageRateTermID as number,
    rateTermIds: terms.map((t: { packageRateTermID: number }) => t.packageRateTermID) as number[],
  };
}

export interface ComponentOptions {
  name?: string;
  scheme?: string;
  unitName?: string;
  type?: string;
  /** The version's currency: USD unless given. */
  currencyCode?: string;
  /** The version currency's fields besides CurrencyCode; left out, one bracket of 1.00 from the first unit. */
  currency?: Record<string, unknown>;
}

/** A monthly usage component, in a group of its own, with one version priced in one currency (USD unless given). */
export async function createComponent(as: TestAccount, options: ComponentOptions = {}) {
  const code = ++componentCodes;
  const group = await ok(as, 'POST', '/v1/packagegroups', { GroupName: `Usage ${code}` });
  return ok(as, 'POST', '/v1/components', {
    ComponentCode: `USAGE-${code}`,
    Name: options.name ?? 'SMS',
    Type: options.type ?? 'quantity',
    Scheme: options.scheme ?? 'unit',
    UnitName: options.unitName ?? 'sms',
    packageGroupID: group.packageGroupID,
    Term: 1,
    TermType: 'months',
    ComponentVersion: {
      VersionName: 'Launch',
      ComponentVersionCurrencies: [
        {
          CurrencyCode: options.currencyCode ?? 'USD',
          ...(options.currency ?? { ComponentBracketPrices: [{ Price: 1, QtyFrom: 1, QtyTill: null }] }),
        },
      ],
    },
  });
}

export async function createCustomer(as: TestAccount, body: Record<string, unknown> = {}) {
  const customer = await ok(as, 'POST', '/v1/customers', { Name: 'Ada', Email: 'ada@example.com', ...body });
  return customer.customerID as number;
}

export async function subscribe(
  as: TestAccount,
  customerId: number,
  plan: { packageId: number; rateTermId: number },
  body: Record<string, unknown> = {},
) {
  return ok(as, 'POST', '/v1/subscriptions', {
    customerID: customerId,
    packageID: plan.packageId,
    packageRateTermID: plan.rateTermId,
    ...body,
  });
}

/** The customer's invoices, oldest first. */
export async function invoicesOf(as: TestAccount, customerId: number) {
  return (await ok(as, 'GET', `/v1/customers/${customerId}/invoices?page_size=200`)) as any[];
}

/** PUT /v1/payments/{id} with the payment's fields and these changes. */
export async function editPayment(account: TestAccount, paymentId: number, changes: Record<string, unknown>) {
  const payment = await ok(account, 'GET', `/v1/payments/${paymentId}`);
  await ok(account, 'PUT', `/v1/payments/${paymentId}`, {
    customerID: payment.customerID,
    Amount: payment.Amount,
    CurrencyCode: payment.CurrencyCode,
    Date: payment.Date,
    Method: payment.Method,
    Ref: payment.Ref,
    Allocations: payment.Allocations,
    ...changes,
  });
}
