import { describe, expect, it } from 'vitest';
import type { TestAccount } from '../helpers/service.ts';
import { createComponent, createCustomer, createPlan, ok, subscribe } from '../helpers/billing.ts';
import { expectEvents } from '../helpers/resourceEvents.ts';
import { useTestService } from '../helpers/testService.ts';

// Billable metrics through the API (docs/usage.md, "Billable metrics"): made with a reading that never changes
// after, renamed, listed in pages, archived while nothing bills by them, and invisible to other accounts.

const t = useTestService();

const sumBody = (Code: string, extra: Record<string, unknown> = {}) => ({
  Code,
  Name: 'API calls',
  Aggregation: 'sum',
  Property: 'weight',
  Filters: [{ Property: 'region', Values: ['eu-west', 'us-east'] }],
  GroupBy: 'model',
  ...extra,
});

async function createMetric(as: TestAccount, body: Record<string, unknown>): Promise<any> {
  return ok(as, 'POST', '/v1/billable-metrics', body);
}

describe('creating a billable metric', () => {
  it('answers 201 with the metric, and GET reads it back', async () => {
    const metric = await createMetric(t, sumBody('api_calls', { Descrip: '  Weighted requests ' }));
    expect(metric).toEqual({
      billableMetricID: expect.any(Number),
      Code: 'api_calls',
      Name: 'API calls',
      Descrip: 'Weighted requests',
      Aggregation: 'sum',
      Property: 'weight',
      Filters: [{ Property: 'region', Values: ['eu-west', 'us-east'] }],
      GroupBy: 'model',
      ArchivedAt: null,
      CreatedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });
    expect(await ok(t, 'GET', `/v1/billable-metrics/${metric.billableMetricID}`)).toEqual(metric);
  });

  it.each(['count', 'sum', 'max', 'unique_count', 'latest', 'weighted_sum'])(
    'makes a %s metric, with a property unless count',
    async (Aggregation) => {
      const Code = `agg.${Aggregation}`;
      const body =
        Aggregation === 'count'
          ? { Code, Name: 'n', Aggregation }
          : { Code, Name: 'n', Aggregation, Property: 'v' };
      const metric = await createMetric(t, body);
      expect(metric).toMatchObject({
        Aggregation,
        Property: Aggregation === 'count' ? null : 'v',
        Filters: [],
        GroupBy: null,
        Descrip: null,
      });
    },
  );

  it.each([
    [{ Code: 'c1', Name: 'n', Aggregation: 'count', Property: 'v' }, 'Property'],
    [{ Code: 'c2', Name: 'n', Aggregation: 'sum' }, 'Property'],
    [{ Code: 'c3', Name: 'n', Aggregation: 'max', Property: null }, 'Property'],
    [{ Code: 'c4', Name: 'n', Aggregation: 'sum', Property: '' }, 'Property'],
    [{ Code: 'c5', Name: 'n', Aggregation: 'avg', Property: 'v' }, 'Aggregation'],
    [{ Name: 'n', Aggregation: 'count' }, 'Code'],
    [{ Code: 'has space', Name: 'n', Aggregation: 'count' }, 'Code'],
    [{ Code: '-lead', Name: 'n', Aggregation: 'count' }, 'Code'],
    [{ Code: 'x'.repeat(101), Name: 'n', Aggregation: 'count' }, 'Code'],
    [{ Code: 'c6', Name: '  ', Aggregation: 'count' }, 'Name'],
    [{ Code: 'c7', Aggregation: 'count' }, 'Name'],
    [{ Code: 'c8', Name: 'n', Aggregation: 'count', GroupBy: ' ' }, 'GroupBy'],
    [
      { Code: 'c9', Name: 'n', Aggregation: 'count', Filters: [{ Property: 'a', Values: [] }] },
      'Filters[0].Values',
    ],
    [
      { Code: 'c10', Name: 'n', Aggregation: 'count', Filters: [{ Property: ' ', Values: ['x'] }] },
      'Filters[0].Property',
    ],
    [
      {
        Code: 'c11',
        Name: 'n',
        Aggregation: 'count',
        Filters: [
          { Property: 'a', Values: ['x'] },
          { Property: 'a', Values: ['y'] },
        ],
      },
      'Filters[1].Property',
    ],
    [
      {
        Code: 'c12',
        Name: 'n',
        Aggregation: 'count',
        Filters: Array.from({ length: 21 }, (_, i) => ({ Property: `p${i}`, Values: ['x'] })),
      },
      'Filters',
    ],
    [
      {
        Code: 'c13',
        Name: 'n',
        Aggregation: 'count',
        Filters: [{ Property: 'a', Values: Array(101).fill('x') }],
      },
      'Filters[0].Values',
    ],
  ])('refuses %j with 422 naming the field, and makes nothing', async (body, field) => {
    const account = await t.newAccount();
    const res = await account.request('POST', '/v1/billable-metrics', { body });
    expect(res.status, res.text).toBe(422);
    expect(res.body.fields.map((f: { field: string }) => f.field)).toContain(field);
    expect(await ok(account, 'GET', '/v1/billable-metrics')).toEqual([]);
  });

  it('refuses a Code the account already has (409), archived metrics included', async () => {
    const account = await t.newAccount();
    const first = await createMetric(account, {
      Code: 'seats',
      Name: 'Seats',
      Aggregation: 'max',
      Property: 'n',
    });
    const again = await account.request('POST', '/v1/billable-metrics', {
      body: { Code: 'seats', Name: 'Other', Aggregation: 'count' },
    });
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('billable_metric_code_taken');
    await ok(account, 'DELETE', `/v1/billable-metrics/${first.billableMetricID}`);
    const afterArchive = await account.request('POST', '/v1/billable-metrics', {
      body: { Code: 'seats', Name: 'Other', Aggregation: 'count' },
    });
    expect(afterArchive.status).toBe(409);
    // Another account may use the same code.
    await createMetric(await t.newAccount(), { Code: 'seats', Name: 'Seats', Aggregation: 'count' });
  });
});

describe('listing billable metrics', () => {
  it('pages them in creation order, archived ones included', async () => {
    const account = await t.newAccount();
    const ids: number[] = [];
    for (const code of ['a', 'b', 'c', 'd', 'e'])
      ids.push(
        (await createMetric(account, { Code: code, Name: code, Aggregation: 'count' })).billableMetricID,
      );
    await ok(account, 'DELETE', `/v1/billable-metrics/${ids[1]}`);
    const all = await ok(account, 'GET', '/v1/billable-metrics');
    expect(all.map((m: { billableMetricID: number }) => m.billableMetricID)).toEqual(ids);
    expect(all[1].ArchivedAt).not.toBeNull();
    const page2 = await ok(account, 'GET', '/v1/billable-metrics?page=2&page_size=2');
    expect(page2.map((m: { Code: string }) => m.Code)).toEqual(['c', 'd']);
    expect(await ok(account, 'GET', '/v1/billable-metrics?page=4&page_size=2')).toEqual([]);
    for (const query of ['page=0', 'page_size=0', 'page_size=201']) {
      const bad = await account.request('GET', `/v1/billable-metrics?${query}`);
      expect(bad.status).toBe(422);
      expect(bad.body.fields[0].field).toBe(query.split('=')[0]);
    }
  });
});

describe('editing a billable metric', () => {
  it('changes Name and Descrip, and accepts the reading fields sent as they are', async () => {
    const metric = await createMetric(t, sumBody('edit.names', { Descrip: 'old' }));
    const path = `/v1/billable-metrics/${metric.billableMetricID}`;
    const edited = await ok(
      t,
      'PUT',
      path,
      {
        Name: 'Weighted calls',
        Aggregation: 'sum',
        Property: 'weight',
        Filters: [{ Property: 'region', Values: ['eu-west', 'us-east'] }],
        GroupBy: 'model',
      },
      200,
    );
    expect(edited).toEqual({ ...metric, Name: 'Weighted calls', Descrip: null });
    expect(await ok(t, 'GET', path)).toEqual(edited);
  });

  it.each([
    [{ Aggregation: 'max' }, 'Aggregation'],
    [{ Property: 'tokens' }, 'Property'],
    [{ Property: null }, 'Property'],
    [{ Filters: [] }, 'Filters'],
    [{ Filters: [{ Property: 'region', Values: ['eu-west'] }] }, 'Filters'],
    [{ GroupBy: null }, 'GroupBy'],
    [{ GroupBy: 'region' }, 'GroupBy'],
  ])('refuses a changed reading %j with 422 naming the field, changing nothing', async (change, field) => {
    const metric = await createMetric(t, sumBody(`fixed.${field}.${Math.random().toString(36).slice(2, 8)}`));
    const path = `/v1/billable-metrics/${metric.billableMetricID}`;
    const res = await t.request('PUT', path, { body: { Name: 'Renamed', ...change } });
    expect(res.status, res.text).toBe(422);
    expect(res.body.fields.map((f: { field: string }) => f.field)).toEqual([field]);
    expect(await ok(t, 'GET', path)).toEqual(metric);
  });

  it('refuses a blank Name with 422', async () => {
    const metric = await createMetric(t, { Code: 'blank.name', Name: 'n', Aggregation: 'count' });
    const res = await t.request('PUT', `/v1/billable-metrics/${metric.billableMetricID}`, {
      body: { Name: ' ' },
    });
    expect(res.status).toBe(422);
    expect(res.body.fields[0].field).toBe('Name');
  });
});

describe('archiving a billable metric', () => {
  it('sets ArchivedAt, keeps the metric readable, and a second archive changes nothing', async () => {
    const metric = await createMetric(t, { Code: 'archive.me', Name: 'n', Aggregation: 'count' });
    const path = `/v1/billable-metrics/${metric.billableMetricID}`;
    await ok(t, 'DELETE', path);
    const archived = await ok(t, 'GET', path);
    expect(archived).toEqual({ ...metric, ArchivedAt: expect.any(String) });
    await ok(t, 'DELETE', path);
    expect(await ok(t, 'GET', path)).toEqual(archived);
  });

  it('is refused (409) while an active component links it, and allowed once the component is inactive', async () => {
    const account = await t.newAccount();
    const metric = await createMetric(account, { Code: 'linked', Name: 'n', Aggregation: 'count' });
    const component = await createComponent(account, { type: 'metered' });
    const componentPath = `/v1/components/${component.componentID}`;
    const fields = editFields(component);
    await ok(account, 'PUT', componentPath, { ...fields, isActive: true, MetricCode: 'linked' }, 200);
    const refused = await account.request('DELETE', `/v1/billable-metrics/${metric.billableMetricID}`);
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe('billable_metric_in_use');
    expect(
      (await ok(account, 'GET', `/v1/billable-metrics/${metric.billableMetricID}`)).ArchivedAt,
    ).toBeNull();
    await ok(account, 'PUT', componentPath, { ...fields, isActive: false }, 200);
    await ok(account, 'DELETE', `/v1/billable-metrics/${metric.billableMetricID}`);
  });

  it('is refused (409) while an inactive component that a subscription carries links it', async () => {
    const account = await t.newAccount();
    const metric = await createMetric(account, { Code: 'carried', Name: 'n', Aggregation: 'count' });
    const component = await createComponent(account, { type: 'metered' });
    await ok(
      account,
      'PUT',
      `/v1/components/${component.componentID}`,
      { ...editFields(component), MetricCode: 'carried' },
      200,
    );
    const customer = await createCustomer(account);
    await subscribe(account, customer, await createPlan(account), {
      componentUsage: [{ componentID: component.componentID }],
    });
    const refused = await account.request('DELETE', `/v1/billable-metrics/${metric.billableMetricID}`);
    expect(refused.status).toBe(409);
  });
});

/** The fields a component PUT replaces, as the component has them. */
function editFields(component: any) {
  return {
    ComponentCode: component.ComponentCode,
    Name: component.Name,
    Type: component.Type,
    Scheme: component.Scheme,
    UnitName: component.UnitName,
    packageGroupID: component.packageGroupID,
    Term: component.Term,
    TermType: component.TermType,
    isActive: component.isActive,
  };
}

describe('another account', () => {
  it('cannot read, edit or archive a metric it does not own (404), nor list it', async () => {
    const metric = await createMetric(t, { Code: 'mine', Name: 'Mine', Aggregation: 'count' });
    const other = await t.newAccount();
    const path = `/v1/billable-metrics/${metric.billableMetricID}`;
    expect((await other.request('GET', path)).status).toBe(404);
    expect((await other.request('PUT', path, { body: { Name: 'Theirs' } })).status).toBe(404);
    expect((await other.request('DELETE', path)).status).toBe(404);
    expect(await ok(other, 'GET', '/v1/billable-metrics')).toEqual([]);
    expect(await ok(t, 'GET', path)).toEqual(metric);
  });

  it('answers 422 naming the parameter for a path id that is not a positive integer', async () => {
    for (const id of ['abc', '0', '-1']) {
      const res = await t.request('GET', `/v1/billable-metrics/${id}`);
      expect(res.status).toBe(422);
      expect(res.body.fields[0].field).toBe('billableMetricID');
    }
  });
});

describe('billable metric events', () => {
  it('announce creation, a rename and archiving; an edit changing nothing writes none, nor a refusal', async () => {
    const account = await t.newAccount();
    const metric = await createMetric(account, { Code: 'evented', Name: 'Calls', Aggregation: 'count' });
    const path = `/v1/billable-metrics/${metric.billableMetricID}`;
    await ok(account, 'PUT', path, { Name: 'Requests' }, 200);
    const renamed = await ok(account, 'GET', path);
    await ok(account, 'PUT', path, { Name: 'Requests' }, 200);
    expect((await account.request('PUT', path, { body: { Name: 'x', Aggregation: 'sum' } })).status).toBe(
      422,
    );
    await ok(account, 'DELETE', path);
    const archived = await ok(account, 'GET', path);
    await ok(account, 'DELETE', path);
    const events = await expectEvents(account, 'billable_metric', metric.billableMetricID, [
      'billable_metric.created',
      'billable_metric.updated',
      'billable_metric.archived',
    ]);
    expect(events[0]!.data).toEqual({ object: metric });
    expect(events[1]!.data).toEqual({ object: renamed, previous: { Name: 'Calls' } });
    expect(events[2]!.data).toEqual({ object: archived, previous: { ArchivedAt: null } });
  });
});
