import { describe, expect, it } from 'vitest';
import { createCustomer, createPlan, ok, subscribe } from '../helpers/billing.ts';
import {
  createFeature,
  customerOnPlan,
  nextCode,
  other,
  setValue,
  t,
  useEntitlementService,
} from './entitlements.fixtures.ts';

useEntitlementService();

describe("a customer's entitlements", () => {
  it('lists what the package gives: on/off, a limit and a config value, by feature code', async () => {
    const flag = await createFeature({ Code: nextCode('b'), Name: 'SSO', Type: 'boolean' });
    const limit = await createFeature({
      Code: nextCode('l'),
      Name: 'Calls',
      Type: 'limit',
      MetricCode: 'api_calls',
    });
    const config = await createFeature({ Code: nextCode('c'), Name: 'Support', Type: 'config' });
    const { plan, customerId, subscriptionId } = await customerOnPlan();
    const values = `/v1/packages/${plan.packageId}/features`;
    await setValue(`${values}/${flag.Code}`, { Enabled: true });
    await setValue(`${values}/${limit.Code}`, { Limit: 1000 });
    await setValue(`${values}/${config.Code}`, { Value: 'priority' });

    const list = await ok(t, 'GET', `/v1/customers/${customerId}/entitlements`);
    const grant = (fields: object) => ({
      subscriptionID: subscriptionId,
      Source: 'package',
      Enabled: true,
      Limit: null,
      Value: null,
      ...fields,
    });
    expect(list).toEqual(
      [
        {
          featureID: flag.featureID,
          FeatureCode: flag.Code,
          Name: 'SSO',
          Type: 'boolean',
          MetricCode: null,
          Allowed: true,
          subscriptionID: subscriptionId,
          Limit: null,
          Value: null,
          Subscriptions: [grant({})],
        },
        {
          featureID: config.featureID,
          FeatureCode: config.Code,
          Name: 'Support',
          Type: 'config',
          MetricCode: null,
          Allowed: true,
          subscriptionID: subscriptionId,
          Limit: null,
          Value: 'priority',
          Subscriptions: [grant({ Value: 'priority' })],
        },
        {
          featureID: limit.featureID,
          FeatureCode: limit.Code,
          Name: 'Calls',
          Type: 'limit',
          MetricCode: 'api_calls',
          Allowed: true,
          subscriptionID: subscriptionId,
          Limit: '1000',
          Value: null,
          Subscriptions: [grant({ Limit: '1000' })],
        },
      ].sort((a, b) => (a.FeatureCode < b.FeatureCode ? -1 : 1)),
    );
  });

  it('checks one boolean or config feature: allowed with its value, no usage figures', async () => {
    const flag = await createFeature({ Code: nextCode('b'), Type: 'boolean' });
    const config = await createFeature({ Code: nextCode('c'), Type: 'config' });
    const { plan, customerId } = await customerOnPlan();
    await setValue(`/v1/packages/${plan.packageId}/features/${flag.Code}`, { Enabled: false });
    await setValue(`/v1/packages/${plan.packageId}/features/${config.Code}`, { Value: 'eu-west' });
    const base = `/v1/customers/${customerId}/entitlements`;
    expect(await ok(t, 'GET', `${base}/${flag.Code}`)).toMatchObject({
      Allowed: false,
      subscriptionID: null,
      Used: null,
      Remaining: null,
      PeriodStart: null,
    });
    expect(await ok(t, 'GET', `${base}/${config.Code}`)).toMatchObject({
      Allowed: true,
      Value: 'eu-west',
      Used: null,
    });
  });

  it('lets a subscription override its package: another limit, or the feature turned off', async () => {
    const limit = await createFeature({ Code: nextCode('l'), Type: 'limit', MetricCode: 'api_calls' });
    const { plan, customerId, subscriptionId } = await customerOnPlan();
    await setValue(`/v1/packages/${plan.packageId}/features/${limit.Code}`, { Limit: 100 });
    const check = `/v1/customers/${customerId}/entitlements/${limit.Code}`;
    expect(await ok(t, 'GET', check)).toMatchObject({
      Allowed: true,
      Limit: '100',
      Used: '0',
      Remaining: '100',
    });

    const override = `/v1/subscriptions/${subscriptionId}/features/${limit.Code}`;
    await setValue(override, { Limit: 250 });
    expect(await ok(t, 'GET', check)).toMatchObject({
      Limit: '250',
      Remaining: '250',
      Subscriptions: [{ Source: 'override', Limit: '250' }],
    });
    await setValue(override, { Limit: 100, Enabled: false });
    expect(await ok(t, 'GET', check)).toMatchObject({
      Allowed: false,
      Limit: null,
      Subscriptions: [{ Source: 'override', Enabled: false }],
    });
    await ok(t, 'DELETE', override);
    expect(await ok(t, 'GET', check)).toMatchObject({ Allowed: true, Limit: '100' });
  });

  it('combines several subscriptions: the first created that gives a feature enabled governs it, each listed', async () => {
    const limit = await createFeature({ Code: nextCode('l'), Type: 'limit', MetricCode: 'api_calls' });
    const flag = await createFeature({ Code: nextCode('b'), Type: 'boolean' });
    const basic = await createPlan(t);
    const addOn = await createPlan(t);
    await setValue(`/v1/packages/${basic.packageId}/features/${limit.Code}`, { Limit: 10 });
    await setValue(`/v1/packages/${basic.packageId}/features/${flag.Code}`, { Enabled: false });
    await setValue(`/v1/packages/${addOn.packageId}/features/${limit.Code}`, { Limit: 500 });
    await setValue(`/v1/packages/${addOn.packageId}/features/${flag.Code}`, { Enabled: true });
    const customerId = await createCustomer(t);
    const first = (await subscribe(t, customerId, basic)).subscriptionID;
    const second = (await subscribe(t, customerId, addOn)).subscriptionID;

    const list = await ok(t, 'GET', `/v1/customers/${customerId}/entitlements`);
    const byCode = new Map(list.map((e: any) => [e.FeatureCode, e]));
    expect(byCode.get(limit.Code)).toMatchObject({
      Allowed: true,
      subscriptionID: first,
      Limit: '10',
      Subscriptions: [
        { subscriptionID: first, Limit: '10' },
        { subscriptionID: second, Limit: '500' },
      ],
    });
    // The first subscription withholds the flag; the add-on gives it.
    expect(byCode.get(flag.Code)).toMatchObject({ Allowed: true, subscriptionID: second });
  });

  it('gives nothing from a subscription not yet started, nor from a package without values', async () => {
    const flag = await createFeature({ Code: nextCode('b'), Type: 'boolean' });
    const plan = await createPlan(t);
    await setValue(`/v1/packages/${plan.packageId}/features/${flag.Code}`, { Enabled: true });
    const customerId = await createCustomer(t);
    await subscribe(t, customerId, plan, { StartDate: '2099-01-01' });
    expect(await ok(t, 'GET', `/v1/customers/${customerId}/entitlements`)).toEqual([]);
    expect(await ok(t, 'GET', `/v1/customers/${customerId}/entitlements/${flag.Code}`)).toMatchObject({
      Allowed: false,
      Subscriptions: [],
    });
    const { customerId: bare } = await customerOnPlan();
    expect(await ok(t, 'GET', `/v1/customers/${bare}/entitlements`)).toEqual([]);
  });

  it("answers 404 for another account's customer and for an unknown feature code", async () => {
    const flag = await createFeature({ Code: nextCode('b'), Type: 'boolean' });
    const { customerId } = await customerOnPlan();
    expect((await other.request('GET', `/v1/customers/${customerId}/entitlements`)).status).toBe(404);
    expect((await other.request('GET', `/v1/customers/${customerId}/entitlements/${flag.Code}`)).status).toBe(
      404,
    );
    const unknown = await t.request('GET', `/v1/customers/${customerId}/entitlements/nope`);
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe('feature_not_found');
  });
});
