import { describe, expect, it } from 'vitest';
import {
  createComponent,
  createCustomer,
  createPackage,
  rate,
  setToday,
  subscribe,
  subscribeFuture,
  t,
  termOf,
  useSubscriptionService,
  versionBody,
} from './subscriptions.fixtures.ts';

useSubscriptionService();

describe('what other records show and refuse', () => {
  it('counts SubscriptionCount per package version: future and active, not expired', async () => {
    const pkg = await createPackage();
    const term = termOf(pkg.PackageVersions[0], 'USD');
    const on = (o: Record<string, unknown> = {}) =>
      subscribe({ packageID: pkg.packageID, packageRateTermID: term, ...o });
    await on();
    await on({ StartDate: '2026-06-01' });
    await on({ EndDate: '2026-03-12' });
    const count = async () =>
      (await t.request('GET', `/v1/packages/${pkg.packageID}`)).body.PackageVersions[0].SubscriptionCount;
    expect(await count()).toBe(3);
    setToday('2026-03-12');
    expect(await count()).toBe(2);
  });

  it('refuses to delete a package or version with subscriptions, or to re-price a version that has them', async () => {
    const pkg = await createPackage();
    const v2 = (await t.request('POST', `/v1/packages/${pkg.packageID}/versions`, { body: versionBody() }))
      .body;
    await subscribeFuture({
      packageID: pkg.packageID,
      packageVersionNumber: 2,
      packageRateTermID: termOf(v2, 'USD'),
    });
    const version = await t.request('DELETE', `/v1/packages/${pkg.packageID}/versions/2`);
    expect(version.status).toBe(409);
    expect(version.body.code).toBe('version_in_use');
    const whole = await t.request('DELETE', `/v1/packages/${pkg.packageID}`);
    expect(whole.status).toBe(409);
    expect(whole.body.code).toBe('package_in_use');
    // The same prices (renamed, made inactive) are taken and keep their ids; new prices are refused.
    const same = await t.request('PUT', `/v1/packages/${pkg.packageID}/versions/2`, {
      body: versionBody({ VersionName: 'Renamed', isActive: false }),
    });
    expect(same.status, JSON.stringify(same.body)).toBe(204);
    const after = (await t.request('GET', `/v1/packages/${pkg.packageID}/versions/2`)).body;
    expect(after).toMatchObject({ VersionName: 'Renamed', isActive: false });
    expect(termOf(after, 'USD')).toBe(termOf(v2, 'USD'));
    const repriced = await t.request('PUT', `/v1/packages/${pkg.packageID}/versions/2`, {
      body: versionBody({ packageVersionRates: [rate('USD', { SetupFee: 11 }), rate('ZAR')] }),
    });
    expect(repriced.status).toBe(409);
    expect(repriced.body.code).toBe('version_in_use');
    // A version nobody subscribes to is re-priced as before.
    const free = await t.request('PUT', `/v1/packages/${pkg.packageID}/versions/1`, {
      body: versionBody({ isDefault: true, packageVersionRates: [rate('USD', { SetupFee: 11 })] }),
    });
    expect(free.status, JSON.stringify(free.body)).toBe(204);
  });

  it('refuses to delete a component or a component version that subscriptions carry', async () => {
    const component = await createComponent();
    const v2 = (
      await t.request('POST', `/v1/components/${component.componentID}/versions`, {
        body: {
          VersionName: 'v2',
          isActive: true,
          isDefault: false,
          ComponentVersionCurrencies: [
            { CurrencyCode: 'USD', ComponentBracketPrices: [{ Price: 2, QtyFrom: 1 }] },
          ],
        },
      })
    ).body;
    await subscribeFuture({
      componentUsage: [{ componentID: component.componentID, componentVersionID: v2.componentVersionID }],
    });
    const version = await t.request('DELETE', `/v1/components/${component.componentID}/versions/2`);
    expect(version.status).toBe(409);
    expect(version.body.code).toBe('component_version_in_use');
    const whole = await t.request('DELETE', `/v1/components/${component.componentID}`);
    expect(whole.status).toBe(409);
    expect(whole.body.code).toBe('component_in_use');
    expect((await t.request('DELETE', `/v1/components/${component.componentID}/versions/1`)).status).toBe(
      409,
    );
  });

  it('counts a customer’s ActiveSubs (future and active, not expired) and refuses to delete a customer with subscriptions', async () => {
    const customer = await createCustomer({ Name: 'Counted' });
    const activeSubs = async () => (await t.request('GET', `/v1/customers/${customer}`)).body.ActiveSubs;
    expect(await activeSubs()).toBe(0);
    await subscribeFuture({ customerID: customer });
    await subscribeFuture({ customerID: customer, EndDate: '2026-04-05' });
    expect(await activeSubs()).toBe(2);
    setToday('2026-04-05');
    expect(await activeSubs()).toBe(1);
    const res = await t.request('DELETE', `/v1/customers/${customer}`);
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('customer_has_subscriptions');
  });
});
