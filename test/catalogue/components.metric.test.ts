import { describe, expect, it } from 'vitest';
import type { TestAccount } from '../helpers/service.ts';
import { createComponent, createCustomer, createPlan, ok, subscribe } from '../helpers/billing.ts';
import { useTestService } from '../helpers/testService.ts';

// A component's link to a billable metric (docs/usage.md, "Billable metrics"): MetricCode on create, edit and GET,
// metered components only, to open metrics of the account; fixed while subscriptions carry the component; and a
// linked component takes no per-period quantity (its quantity comes from events).

const t = useTestService();

async function metric(as: TestAccount, Code: string): Promise<number> {
  return (await ok(as, 'POST', '/v1/billable-metrics', { Code, Name: Code, Aggregation: 'count' }))
    .billableMetricID;
}

async function newGroup(as: TestAccount): Promise<number> {
  return (await ok(as, 'POST', '/v1/packagegroups', { GroupName: 'Usage' })).packageGroupID;
}

const componentBody = (
  packageGroupID: number,
  ComponentCode: string,
  extra: Record<string, unknown> = {},
) => ({
  ComponentCode,
  Name: 'API calls',
  Type: 'metered',
  Scheme: 'unit',
  UnitName: 'per call',
  packageGroupID,
  Term: 1,
  TermType: 'months',
  isActive: true,
  ComponentVersion: {
    VersionName: 'Launch',
    ComponentVersionCurrencies: [
      { CurrencyCode: 'USD', ComponentBracketPrices: [{ Price: 0.01, QtyFrom: 1, QtyTill: null }] },
    ],
  },
  ...extra,
});

/** The fields a component PUT replaces, as the component has them. */
function editFields(component: any) {
  const {
    ComponentVersions: _versions,
    componentID: _id,
    Descrip: _descrip,
    MetricCode: _metric,
    ...fields
  } = component;
  return fields;
}

describe('a component linked to a billable metric', () => {
  it('shows MetricCode on create, GET and the list; null when unlinked', async () => {
    const account = await t.newAccount();
    await metric(account, 'api_calls');
    const group = await newGroup(account);
    const linked = await ok(
      account,
      'POST',
      '/v1/components',
      componentBody(group, 'CALLS', { MetricCode: 'api_calls' }),
    );
    expect(linked.MetricCode).toBe('api_calls');
    const plain = await ok(account, 'POST', '/v1/components', componentBody(group, 'PLAIN'));
    expect(plain.MetricCode).toBeNull();
    expect((await ok(account, 'GET', `/v1/components/${linked.componentID}`)).MetricCode).toBe('api_calls');
    const list = await ok(account, 'GET', '/v1/components');
    expect(list.map((c: any) => c.MetricCode)).toEqual(['api_calls', null]);
  });

  it('links, keeps (MetricCode left out) and unlinks (null) through PUT', async () => {
    const account = await t.newAccount();
    await metric(account, 'calls');
    await metric(account, 'tokens');
    const component = await ok(
      account,
      'POST',
      '/v1/components',
      componentBody(await newGroup(account), 'C'),
    );
    const path = `/v1/components/${component.componentID}`;
    await ok(account, 'PUT', path, { ...editFields(component), MetricCode: 'calls' }, 200);
    expect((await ok(account, 'GET', path)).MetricCode).toBe('calls');
    await ok(account, 'PUT', path, { ...editFields(component), Name: 'Calls' }, 200);
    expect(await ok(account, 'GET', path)).toMatchObject({ Name: 'Calls', MetricCode: 'calls' });
    await ok(account, 'PUT', path, { ...editFields(component), MetricCode: 'tokens' }, 200);
    expect((await ok(account, 'GET', path)).MetricCode).toBe('tokens');
    await ok(account, 'PUT', path, { ...editFields(component), MetricCode: null }, 200);
    expect((await ok(account, 'GET', path)).MetricCode).toBeNull();
  });

  it('is refused (422 naming MetricCode) for a component that is not metered, and Type cannot leave metered', async () => {
    const account = await t.newAccount();
    await metric(account, 'seats');
    const group = await newGroup(account);
    for (const Type of ['quantity', 'opt_in']) {
      const res = await account.request('POST', '/v1/components', {
        body: componentBody(group, `Q-${Type}`, { Type, MetricCode: 'seats' }),
      });
      expect(res.status, res.text).toBe(422);
      expect(res.body.fields[0].field).toBe('MetricCode');
    }
    const linked = await ok(
      account,
      'POST',
      '/v1/components',
      componentBody(group, 'M', { MetricCode: 'seats' }),
    );
    const path = `/v1/components/${linked.componentID}`;
    const toQuantity = await account.request('PUT', path, {
      body: { ...editFields(linked), Type: 'quantity' },
    });
    expect(toQuantity.status).toBe(422);
    expect(toQuantity.body.fields[0].field).toBe('Type');
    const both = await account.request('PUT', path, {
      body: { ...editFields(linked), Type: 'quantity', MetricCode: 'seats' },
    });
    expect(both.status).toBe(422);
    expect(both.body.fields[0].field).toBe('MetricCode');
    expect((await ok(account, 'GET', path)).Type).toBe('metered');
  });

  it("is refused (422 naming MetricCode) for an unknown, archived or another account's code", async () => {
    const account = await t.newAccount();
    const archived = await metric(account, 'old');
    await ok(account, 'DELETE', `/v1/billable-metrics/${archived}`);
    await metric(await t.newAccount(), 'theirs');
    const group = await newGroup(account);
    for (const [code, problem] of [
      ['nope', 'billable_metric_not_found'],
      ['old', 'billable_metric_archived'],
      ['theirs', 'billable_metric_not_found'],
    ]) {
      const res = await account.request('POST', '/v1/components', {
        body: componentBody(group, `X-${code}`, { MetricCode: code }),
      });
      expect(res.status, res.text).toBe(422);
      expect(res.body.code).toBe(problem);
      expect(res.body.fields[0].field).toBe('MetricCode');
    }
    expect(await ok(account, 'GET', '/v1/components')).toEqual([]);
  });

  it('cannot change its MetricCode while a subscription carries it (409)', async () => {
    const account = await t.newAccount();
    await metric(account, 'a');
    await metric(account, 'b');
    const component = await ok(
      account,
      'POST',
      '/v1/components',
      componentBody(await newGroup(account), 'S', { MetricCode: 'a' }),
    );
    const customer = await createCustomer(account);
    await subscribe(account, customer, await createPlan(account), {
      componentUsage: [{ componentID: component.componentID }],
    });
    const path = `/v1/components/${component.componentID}`;
    for (const MetricCode of ['b', null]) {
      const res = await account.request('PUT', path, { body: { ...editFields(component), MetricCode } });
      expect(res.status, res.text).toBe(409);
      expect(res.body.code).toBe('component_metric_in_use');
    }
    // The same link, or none sent, is no change.
    await ok(account, 'PUT', path, { ...editFields(component), MetricCode: 'a', Name: 'Calls' }, 200);
    expect((await ok(account, 'GET', path)).MetricCode).toBe('a');
  });
});

describe('archiving a metric while a component links it, at the same time', () => {
  it('ends either archived and unlinked, or linked and not archived, never archived and linked', async () => {
    const account = await t.newAccount();
    const group = await newGroup(account);
    for (let round = 0; round < 6; round += 1) {
      const code = `race_${round}`;
      const metricId = await metric(account, code);
      const component = await ok(account, 'POST', '/v1/components', componentBody(group, `R-${round}`));
      const [archive, link] = await Promise.all([
        account.request('DELETE', `/v1/billable-metrics/${metricId}`),
        account.request('PUT', `/v1/components/${component.componentID}`, {
          body: { ...editFields(component), MetricCode: code },
        }),
      ]);
      const archived = (await ok(account, 'GET', `/v1/billable-metrics/${metricId}`)).ArchivedAt !== null;
      const linked =
        (await ok(account, 'GET', `/v1/components/${component.componentID}`)).MetricCode === code;
      expect(archived !== linked, `round ${round}: archived ${archived}, linked ${linked}`).toBe(true);
      expect([archive.status, link.status]).toEqual(archived ? [204, 422] : [409, 200]);
    }
  });
});

describe('per-period quantities of a linked component', () => {
  it('are refused with 409 naming the metric: recordusage, and NumUnits on create and modify', async () => {
    const account = await t.newAccount();
    await metric(account, 'api_calls');
    const linked = await ok(
      account,
      'POST',
      '/v1/components',
      componentBody(await newGroup(account), 'L', { MetricCode: 'api_calls' }),
    );
    const plain = await createComponent(account, { type: 'metered' });
    const customer = await createCustomer(account);
    const plan = await createPlan(account);

    const withUnits = await account.request('POST', '/v1/subscriptions', {
      body: {
        customerID: customer,
        packageID: plan.packageId,
        packageRateTermID: plan.rateTermId,
        componentUsage: [{ componentID: linked.componentID, NumUnits: 3 }],
      },
    });
    expect(withUnits.status, withUnits.text).toBe(409);
    expect(withUnits.body.code).toBe('component_usage_from_events');
    expect(withUnits.body.detail).toContain('api_calls');

    const subscription = await subscribe(account, customer, plan, {
      componentUsage: [{ componentID: linked.componentID }, { componentID: plain.componentID, NumUnits: 2 }],
    });
    const path = `/v1/subscriptions/${subscription.subscriptionID}`;
    const recorded = await account.request('PUT', `${path}/components/recordusage`, {
      body: [
        { componentID: plain.componentID, NumUnits: 1 },
        { componentID: linked.componentID, NumUnits: 5 },
      ],
    });
    expect(recorded.status, recorded.text).toBe(409);
    expect(recorded.body.code).toBe('component_usage_from_events');
    expect(recorded.body.detail).toContain('api_calls');

    const modified = await account.request('PUT', `${path}/components/modify`, {
      body: {
        componentUsage: [
          { componentID: linked.componentID, NumUnits: 1 },
          { componentID: plain.componentID },
        ],
      },
    });
    expect(modified.status, modified.text).toBe(409);

    // Nothing was written: the plain component's units stay 2.
    const after = await ok(account, 'GET', path);
    const plainUsage = after.componentUsage.find((c: any) => c.componentID === plain.componentID);
    expect(Number(plainUsage.NumUnits)).toBe(2);
    // The plain component still takes quantities.
    await ok(account, 'PUT', `${path}/components/recordusage`, [
      { componentID: plain.componentID, NumUnits: 1 },
    ]);
  });
});
