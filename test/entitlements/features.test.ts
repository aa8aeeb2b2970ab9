import { describe, expect, it } from 'vitest';
import { ok } from '../helpers/billing.ts';
import { expectEvents } from '../helpers/resourceEvents.ts';
import {
  createFeature,
  customerOnPlan,
  nextCode,
  other,
  refused,
  setValue,
  t,
  useEntitlementService,
} from './entitlements.fixtures.ts';

useEntitlementService();

describe('features', () => {
  it('creates, reads, lists, edits and deletes a feature, in the wire shape', async () => {
    const code = nextCode();
    const created = await createFeature({
      Code: code,
      Name: 'API calls',
      Type: 'limit',
      MetricCode: 'api_calls',
    });
    expect(created).toEqual({
      featureID: expect.any(Number),
      Code: code,
      Name: 'API calls',
      Descrip: null,
      Type: 'limit',
      MetricCode: 'api_calls',
      CreatedAt: expect.any(String),
      UpdatedAt: expect.any(String),
    });
    const path = `/v1/features/${created.featureID}`;
    expect(await ok(t, 'GET', path)).toEqual(created);
    await ok(t, 'PUT', path, {
      Code: `${code}-v2`,
      Name: 'Calls',
      Descrip: 'Calls a month',
      Type: 'limit',
      MetricCode: 'logins',
    });
    const edited = await ok(t, 'GET', path);
    expect(edited).toMatchObject({
      Code: `${code}-v2`,
      Name: 'Calls',
      Descrip: 'Calls a month',
      MetricCode: 'logins',
    });
    expect((await ok(t, 'GET', '/v1/features?page_size=200')).map((f: any) => f.featureID)).toContain(
      created.featureID,
    );
    await ok(t, 'DELETE', path);
    expect((await t.request('GET', path)).status).toBe(404);
  });

  it('pages the list as other lists do', async () => {
    for (let i = 0; i < 3; i += 1) await createFeature({ Code: nextCode('page'), Type: 'boolean' });
    const all = await ok(t, 'GET', '/v1/features?page_size=200');
    const second = await ok(t, 'GET', '/v1/features?page=2&page_size=2');
    expect(second).toEqual(all.slice(2, 4));
  });

  it('emits feature.created, feature.updated and feature.deleted', async () => {
    const feature = await createFeature({ Code: nextCode(), Type: 'boolean' });
    const path = `/v1/features/${feature.featureID}`;
    await ok(t, 'PUT', path, { Code: feature.Code, Name: 'Renamed', Type: 'boolean' });
    await ok(t, 'DELETE', path);
    const events = await expectEvents(t, 'feature', feature.featureID, [
      'feature.created',
      'feature.updated',
      'feature.deleted',
    ]);
    expect(events[0]!.data.object).toEqual(feature);
    expect(events[1]!.data.previous).toMatchObject({ Name: 'A feature' });
  });

  it.each([
    [{ Type: 'limit' }, 'MetricCode', 'must name a metric'],
    [{ Type: 'boolean', MetricCode: 'api_calls' }, 'MetricCode', 'only a limit feature'],
    [{ Type: 'limit', MetricCode: 'nope' }, 'MetricCode', 'no active metric'],
    [{ Type: 'limit', MetricCode: 'retired' }, 'MetricCode', 'no active metric'],
    [{ Type: 'limit', MetricCode: 'peak_seats' }, 'MetricCode', 'count or sum'],
    [{ Type: 'switch' }, 'Type', ''],
    [{ Type: 'boolean', Code: 'has space' }, 'Code', ''],
    [{ Type: 'boolean', Name: '  ' }, 'Name', 'blank'],
  ])('refuses %j with a 422 naming %s', async (body, field, message) => {
    const problem = await refused('POST', '/v1/features', { Code: nextCode(), Name: 'F', ...body });
    expect(problem.fields?.map((f) => f.field)).toContain(field);
    expect(problem.fields?.find((f) => f.field === field)?.message).toContain(message);
  });

  it('refuses a taken Code with a 409 naming Code, and a changed Type with a 422', async () => {
    const feature = await createFeature({ Code: nextCode(), Type: 'boolean' });
    const taken = await refused(
      'POST',
      '/v1/features',
      { Code: feature.Code, Name: 'F', Type: 'config' },
      409,
    );
    expect(taken.code).toBe('feature_code_taken');
    expect(taken.fields).toEqual([{ field: 'Code', message: expect.stringContaining(feature.Code) }]);
    const path = `/v1/features/${feature.featureID}`;
    const typed = await refused('PUT', path, { Code: feature.Code, Name: 'F', Type: 'config' });
    expect(typed.fields?.[0]?.field).toBe('Type');
    expect(await ok(t, 'GET', path)).toEqual(feature);
  });

  it('refuses to delete a feature a package gives (409), and deletes it once the value is removed', async () => {
    const feature = await createFeature({ Code: nextCode(), Type: 'boolean' });
    const { plan } = await customerOnPlan();
    const valuePath = `/v1/packages/${plan.packageId}/features/${feature.Code}`;
    await setValue(valuePath, { Enabled: true });
    expect((await refused('DELETE', `/v1/features/${feature.featureID}`, undefined, 409)).code).toBe(
      'feature_in_use',
    );
    await ok(t, 'DELETE', valuePath);
    await ok(t, 'DELETE', `/v1/features/${feature.featureID}`);
  });

  it("answers 404 for another account's feature, and lets each account use a code of its own", async () => {
    const feature = await createFeature({ Code: nextCode(), Type: 'boolean' });
    const path = `/v1/features/${feature.featureID}`;
    expect((await other.request('GET', path)).status).toBe(404);
    expect(
      (await other.request('PUT', path, { body: { Code: 'x', Name: 'x', Type: 'boolean' } })).status,
    ).toBe(404);
    expect((await other.request('DELETE', path)).status).toBe(404);
    await createFeature({ Code: feature.Code, Type: 'limit', MetricCode: 'api_calls' }, other);
    expect(await ok(t, 'GET', path)).toEqual(feature);
  });
});

describe('feature values', () => {
  it('sets, replaces, lists and removes a package value and a subscription override, with their events', async () => {
    const feature = await createFeature({ Code: nextCode(), Type: 'limit', MetricCode: 'api_calls' });
    const { plan, subscriptionId } = await customerOnPlan();
    const packagePath = `/v1/packages/${plan.packageId}/features`;
    const set = await setValue(`${packagePath}/${feature.Code}`, { Limit: '1000' });
    expect(set).toEqual({
      featureValueID: expect.any(Number),
      featureID: feature.featureID,
      FeatureCode: feature.Code,
      Type: 'limit',
      packageID: plan.packageId,
      subscriptionID: null,
      Enabled: true,
      Limit: '1000',
      Value: null,
      UpdatedAt: expect.any(String),
    });
    const replaced = await setValue(`${packagePath}/${feature.Code}`, { Limit: null });
    expect(replaced).toMatchObject({ featureValueID: set.featureValueID, Limit: null });
    expect(await ok(t, 'GET', packagePath)).toEqual([replaced]);

    const subscriptionPath = `/v1/subscriptions/${subscriptionId}/features`;
    const override = await setValue(`${subscriptionPath}/${feature.Code}`, { Limit: 5.25, Enabled: true });
    expect(override).toMatchObject({ packageID: null, subscriptionID: subscriptionId, Limit: '5.25' });
    expect(await ok(t, 'GET', subscriptionPath)).toEqual([override]);
    await ok(t, 'DELETE', `${subscriptionPath}/${feature.Code}`);
    expect(await ok(t, 'GET', subscriptionPath)).toEqual([]);
    expect((await t.request('DELETE', `${subscriptionPath}/${feature.Code}`)).status).toBe(404);

    const events = await expectEvents(t, 'feature_value', set.featureValueID, [
      'feature_value.set',
      'feature_value.set',
    ]);
    expect(events[1]!.data.previous).toEqual({ Limit: '1000', UpdatedAt: expect.any(String) });
    await expectEvents(t, 'feature_value', override.featureValueID, [
      'feature_value.set',
      'feature_value.removed',
    ]);
  });

  it.each([
    ['boolean', {}, 'Enabled', 'required'],
    ['boolean', { Enabled: true, Limit: 3 }, 'Limit', 'not a field'],
    ['limit', { Enabled: true }, 'Limit', 'required'],
    ['limit', { Limit: -1 }, 'Limit', 'negative'],
    ['limit', { Limit: '1.23456' }, 'Limit', '4 decimal'],
    ['limit', { Limit: 'ten' }, 'Limit', 'decimal'],
    ['limit', { Limit: 5, Value: 'x' }, 'Value', 'not a field'],
    ['config', { Enabled: true }, 'Value', 'required'],
  ])('refuses a %s value %j naming %s, and changes nothing', async (type, body, field, message) => {
    const feature = await createFeature({
      Code: nextCode(),
      Type: type,
      ...(type === 'limit' ? { MetricCode: 'api_calls' } : {}),
    });
    const { plan } = await customerOnPlan();
    const problem = await refused('PUT', `/v1/packages/${plan.packageId}/features/${feature.Code}`, body);
    expect(problem.fields?.find((f) => f.field === field)?.message).toContain(message);
    expect(await ok(t, 'GET', `/v1/packages/${plan.packageId}/features`)).toEqual([]);
  });

  it("answers 404 for an unknown feature code and for another account's package or subscription", async () => {
    const feature = await createFeature({ Code: nextCode(), Type: 'boolean' });
    const { plan, subscriptionId } = await customerOnPlan();
    expect(
      (await t.request('PUT', `/v1/packages/${plan.packageId}/features/nope`, { body: { Enabled: true } }))
        .status,
    ).toBe(404);
    const body = { body: { Enabled: true } };
    expect(
      (await other.request('PUT', `/v1/packages/${plan.packageId}/features/${feature.Code}`, body)).status,
    ).toBe(404);
    expect((await other.request('GET', `/v1/packages/${plan.packageId}/features`)).status).toBe(404);
    expect(
      (await other.request('PUT', `/v1/subscriptions/${subscriptionId}/features/${feature.Code}`, body))
        .status,
    ).toBe(404);
    expect((await other.request('GET', `/v1/subscriptions/${subscriptionId}/features`)).status).toBe(404);
  });
});
