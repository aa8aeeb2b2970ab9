import type { MetricAggregation } from '../../src/modules/catalogue/index.ts';
import type { TestAccount } from '../helpers/service.ts';
import { createCustomer, createPlan, ok, subscribe } from '../helpers/billing.ts';
import { advanceClock } from '../helpers/clock.ts';

/* Set-up shared by the tests of usage billed from events: a metric, a usage component linked to it, events. */

export { advanceClock as advance };

/** Brackets 1–10 at 1.00, 11+ at 0.50 (graduated under `unit`). */
export const TIERS = {
  ComponentBracketPrices: [
    { Price: 1, QtyFrom: 1, QtyTill: 10 },
    { Price: 0.5, QtyFrom: 11, QtyTill: null },
  ],
};

/** "API calls" summed from the `n` of each event, graduated: 1–1,000 at 0.10, 1,001–5,000 at 0.05, 5,001+ at 0.02. */
export const GRADUATED_CALLS = {
  ComponentBracketPrices: [
    { Price: 0.1, QtyFrom: 1, QtyTill: 1000 },
    { Price: 0.05, QtyFrom: 1001, QtyTill: 5000 },
    { Price: 0.02, QtyFrom: 5001, QtyTill: null },
  ],
};

/**
 * A customer subscribed at 30.00 a month to a plan with GRADUATED_CALLS, from today on the account's clock, and
 * `send(at, n)` sending one event of `n` calls.
 */
export async function graduatedCallsSubscription(as: TestAccount) {
  const { metric, componentId } = await meteredComponent(as, 'calls', 'sum', {
    property: 'n',
    currency: GRADUATED_CALLS,
  });
  const { customerId, subscriptionId } = await meteredSubscription(as, [componentId]);
  const send = (at: string, n: number) =>
    sendEvents(as, [{ customerId, subscriptionId, code: metric.code, at, n }]);
  return { componentId, customerId, subscriptionId, send };
}

/** A usage component "API calls" (unit calls) linked to a new metric; 1.00 a unit unless priced otherwise. */
export async function meteredComponent(
  as: TestAccount,
  code: string,
  aggregation: MetricAggregation,
  options: { property?: string; groupBy?: string; currency?: Record<string, unknown> } = {},
) {
  const metric = await ok(as, 'POST', '/v1/billable-metrics', {
    Code: code,
    Name: code,
    Aggregation: aggregation,
    ...(options.property ? { Property: options.property } : {}),
    ...(options.groupBy ? { GroupBy: options.groupBy } : {}),
  });
  const group = await ok(as, 'POST', '/v1/packagegroups', { GroupName: `Usage ${code}` });
  const component = await ok(as, 'POST', '/v1/components', {
    ComponentCode: `USAGE-${code}`,
    Name: 'API calls',
    Type: 'metered',
    Scheme: 'unit',
    UnitName: 'calls',
    packageGroupID: group.packageGroupID,
    Term: 1,
    TermType: 'months',
    MetricCode: code,
    ComponentVersion: {
      VersionName: 'Launch',
      ComponentVersionCurrencies: [
        {
          CurrencyCode: 'USD',
          ...(options.currency ?? { ComponentBracketPrices: [{ Price: 1, QtyFrom: 1, QtyTill: null }] }),
        },
      ],
    },
  });
  return { metric: { code: metric.Code as string }, componentId: component.componentID as number };
}

/** A customer subscribed at 30.00 a month to a plan with the components, from today on the account's clock. */
export async function meteredSubscription(
  as: TestAccount,
  componentIds: number[],
  customerId?: number,
  body: Record<string, unknown> = {},
) {
  const plan = await createPlan(as, { chargePrice: 30 });
  const customer = customerId ?? (await createCustomer(as));
  const sub = await subscribe(as, customer, plan, {
    componentUsage: componentIds.map((componentID) => ({ componentID })),
    ...body,
  });
  return { customerId: customer, subscriptionId: sub.subscriptionID as number, plan };
}

let transactions = 0;

/** Sends events as the app would, through the batch endpoint, each accepted (on the account's test clock). */
export async function sendEvents(
  as: TestAccount,
  events: {
    customerId: number;
    subscriptionId?: number | null;
    code: string;
    at: string;
    [property: string]: unknown;
  }[],
) {
  const body = {
    events: events.map(({ customerId, subscriptionId, code, at, ...properties }) => ({
      transaction_id: `tx-${++transactions}`,
      customerID: customerId,
      ...(subscriptionId ? { subscriptionID: subscriptionId } : {}),
      code,
      timestamp: at,
      properties,
    })),
  };
  const answer = await ok(as, 'POST', '/v1/usage-events/batch', body, 200);
  for (const outcome of answer.events)
    if (outcome.Status !== 'accepted') throw new Error(JSON.stringify(outcome));
}

/** An invoice's lines as [Descrip, AmountEx], with the metered fields when the line has them. */
export const linesOf = (invoice: any) =>
  invoice.Charges.map((c: any) =>
    c.MetricCode === undefined
      ? [c.Descrip, c.AmountEx]
      : [
          c.Descrip,
          c.AmountEx,
          c.MetricCode,
          c.UsageGroup,
          c.Quantity,
          c.PeriodStart.slice(0, 10),
          c.PeriodEnd.slice(0, 10),
        ],
  );
