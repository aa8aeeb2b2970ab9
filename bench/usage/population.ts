/**
 * The usage benchmark's population (bench/usage.ts), made through the API as a business would: a billable metric,
 * a metered component linked to it on a plan, customers sending events, and one subscription for the period.
 */
import { BenchError, setting } from '../common.ts';
import type { Service } from '../harness.ts';
import type { PeriodOwner } from './period.ts';

export const METRIC = 'bench_tokens';
const CUSTOMERS = Math.round(setting('BENCH_USAGE_CUSTOMERS', 100, 1, 10_000));

export async function api(
  service: Service,
  method: string,
  path: string,
  body?: unknown,
  auth = service.authorization,
) {
  const res = await fetch(`${service.base}${path}`, {
    method,
    headers: { authorization: auth, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status >= 300) throw new BenchError(`${method} ${path}: ${res.status} ${text}`);
  return text === '' ? undefined : JSON.parse(text);
}

export interface Population {
  customerIds: number[];
  owner: PeriodOwner;
}

/** The metric, a metered component linked to it on a plan, the customers, and the period's subscription. */
export async function seedPopulation(service: Service): Promise<Population> {
  const metric = await api(service, 'POST', '/v1/billable-metrics', {
    Code: METRIC,
    Name: 'Tokens',
    Aggregation: 'sum',
    Property: 'tokens',
  });
  const group = await api(service, 'POST', '/v1/packagegroups', { GroupName: 'Usage' });
  const component = await api(service, 'POST', '/v1/components', {
    ComponentCode: 'TOKENS',
    Name: 'Tokens',
    Type: 'metered',
    Scheme: 'unit',
    UnitName: 'per token',
    packageGroupID: group.packageGroupID,
    Term: 1,
    TermType: 'months',
    isActive: true,
    MetricCode: METRIC,
    ComponentVersion: {
      VersionName: 'Launch',
      ComponentVersionCurrencies: [
        { CurrencyCode: 'USD', ComponentBracketPrices: [{ Price: 0.001, QtyFrom: 1, QtyTill: null }] },
      ],
    },
  });
  const pkg = await api(service, 'POST', '/v1/packages', {
    packageGroupID: group.packageGroupID,
    packageCode: 'API',
    Name: 'API plan',
    isActive: true,
    PackageVersion: {
      VersionName: 'Standard',
      isActive: true,
      isDefault: true,
      packageVersionRates: [
        {
          CurrencyCode: 'USD',
          SetupFee: 0,
          TrialFee: 0,
          TrialPeriod: 0,
          TrialPeriodType: 'days',
          PackageRateTerms: [{ ChargePrice: 10, ChargeTerm: 1, ChargeTermType: 'months' }],
        },
      ],
    },
  });
  const customerIds: number[] = [];
  for (let i = 0; i < CUSTOMERS + 1; i += 1) {
    const customer = await api(service, 'POST', '/v1/customers', {
      Name: `User ${i}`,
      Email: `u${i}@example.com`,
    });
    customerIds.push(customer.customerID);
  }
  const periodCustomer = customerIds.pop()!;
  const subscription = await api(service, 'POST', '/v1/subscriptions', {
    customerID: periodCustomer,
    packageID: pkg.packageID,
    packageRateTermID: pkg.PackageVersions[0].packageVersionRates[0].PackageRateTerms[0].packageRateTermID,
    componentUsage: [{ componentID: component.componentID }],
  });
  return {
    customerIds,
    owner: {
      accountId: service.credentials.accountID,
      customerId: periodCustomer,
      subscriptionId: subscription.subscriptionID,
      metricId: metric.billableMetricID,
    },
  };
}
