import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keptCataloguePages } from '../../src/modules/catalogue/index.ts';
import { startAnotherInstance } from '../helpers/service.ts';
import type { ApiResponse, ServiceInstance } from '../helpers/service.ts';
import {
  clock,
  createComponent,
  createCustomer,
  createPackage,
  groupId,
  other,
  rate,
  setToday,
  subscribe,
  t,
  termOf,
  useSubscriptionService,
  versionBody,
} from '../subscriptions/subscriptions.fixtures.ts';

// The catalogue's list pages kept in the process (docs/architecture.md, "Catalogue pages kept in the process"):
// `t` keeps them, `elsewhere` is a second process keeping its own, `uncached` keeps none and answers as the routes
// always did. After every kind of write, made by any of them, each page must be the same bytes from all three.

useSubscriptionService();

let uncached: ServiceInstance;
let elsewhere: ServiceInstance;

beforeAll(async () => {
  uncached = await startAnotherInstance(t, { clock, env: { CATALOGUE_PAGE_CACHE_MB: '0' } });
  elsewhere = await startAnotherInstance(t, { clock });
});

afterAll(async () => {
  await uncached?.close();
  await elsewhere?.close();
});

/** The tables a catalogue page is made from, which a kept page does not read. */
const CATALOGUE_ROWS =
  /"(package_groups|packages|package_versions|package_version_rates|package_rate_terms|components|component_versions|component_version_currencies|component_brackets)"/;

const PAGES = [
  '/v1/packages',
  '/v1/packages?page_size=2',
  '/v1/packages?page=2&page_size=2',
  '/v1/components',
  '/v1/components?page=2&page_size=1',
];

function expectSameResponse(served: ApiResponse, expected: ApiResponse, what: string) {
  expect(served.status, what).toBe(200);
  expect(served.headers.get('content-type'), what).toBe(expected.headers.get('content-type'));
  expect(served.headers.get('content-length'), what).toBe(expected.headers.get('content-length'));
  expect(served.text, what).toBe(expected.text);
}

/** Every page, twice from `t` (the second kept), once from `elsewhere`, byte for byte as `uncached` sends it. */
async function expectPagesAsUncached(after: string) {
  for (const path of PAGES) {
    const expected = await uncached.request('GET', path);
    expect(expected.status).toBe(200);
    expectSameResponse(await t.request('GET', path), expected, `${after}: ${path}, read`);
    expectSameResponse(await t.request('GET', path), expected, `${after}: ${path}, kept`);
    expectSameResponse(await elsewhere.request('GET', path), expected, `${after}: ${path}, elsewhere`);
  }
}

/** Text the kept page is cut at, in every string field that takes it, to show the cut is only ever the key. */
const AWKWARD = 'Plan "SubscriptionCount":0, \\"SubscriptionCount\\":0 é ✓ \u2028 </script>';

const catalogueRevision = async (accountId: number) =>
  Number(
    (
      await t.service.storage.db
        .selectFrom('catalogue_revisions')
        .select('revision')
        .where('account_id', '=', accountId)
        .executeTakeFirst()
    )?.revision ?? 0,
  );

describe('catalogue pages kept in the process', () => {
  it('sends every page byte for byte as the uncached read, after every kind of write from any process', async () => {
    await expectPagesAsUncached('at first');
    expect(keptCataloguePages(t.service.memory).pages).toBe(PAGES.length);

    const awkward = await createPackage({ Name: AWKWARD, Descrip: AWKWARD });
    await expectPagesAsUncached('a package created');

    const edited = await elsewhere.request('PUT', `/v1/packages/${awkward.packageID}`, {
      body: { packageGroupID: groupId, packageCode: awkward.packageCode, Name: 'Renamed', isActive: false },
    });
    expect(edited.status, JSON.stringify(edited.body)).toBe(200);
    await expectPagesAsUncached('a package edited elsewhere');

    const added = await elsewhere.request('POST', `/v1/packages/${awkward.packageID}/versions`, {
      body: versionBody({ VersionName: AWKWARD, isDefault: false }),
    });
    expect(added.status, JSON.stringify(added.body)).toBe(201);
    await expectPagesAsUncached('a version added elsewhere');

    const repriced = await uncached.request('PUT', `/v1/packages/${awkward.packageID}/versions/2`, {
      body: versionBody({
        isDefault: true,
        packageVersionRates: [rate('USD', { SetupFee: 12.3456, isTaxInclusive: true }), rate('ZAR')],
      }),
    });
    expect(repriced.status, JSON.stringify(repriced.body)).toBe(204);
    await expectPagesAsUncached('a version re-priced and made the default by a process keeping nothing');

    const deleted = await t.request('DELETE', `/v1/packages/${awkward.packageID}/versions/1`);
    expect(deleted.status, JSON.stringify(deleted.body)).toBe(204);
    await expectPagesAsUncached('a version deleted');

    const component = await createComponent();
    await expectPagesAsUncached('a component created');
    const componentEdited = await elsewhere.request('PUT', `/v1/components/${component.componentID}`, {
      body: {
        Name: AWKWARD,
        Descrip: AWKWARD,
        Type: 'quantity',
        Scheme: 'volume',
        UnitName: 'per sms',
        packageGroupID: groupId,
        Term: 1,
        TermType: 'months',
      },
    });
    expect(componentEdited.status, JSON.stringify(componentEdited.body)).toBe(200);
    await expectPagesAsUncached('a component edited elsewhere');

    const componentVersion = await elsewhere.request(
      'POST',
      `/v1/components/${component.componentID}/versions`,
      {
        body: {
          VersionName: 'v2',
          isActive: true,
          isDefault: false,
          ComponentVersionCurrencies: [
            { CurrencyCode: 'USD', ComponentBracketPrices: [{ Price: 0.0001, QtyFrom: 1, FlatPrice: 3 }] },
          ],
        },
      },
    );
    expect(componentVersion.status, JSON.stringify(componentVersion.body)).toBe(201);
    await expectPagesAsUncached('a component version added elsewhere');

    const componentRepriced = await uncached.request(
      'PUT',
      `/v1/components/${component.componentID}/versions/2`,
      {
        body: {
          VersionName: 'v2 again',
          isActive: true,
          isDefault: true,
          ComponentVersionCurrencies: [
            {
              CurrencyCode: 'ZAR',
              isTaxInclusive: false,
              ComponentBracketPrices: [{ Price: 9.99, QtyFrom: 1 }],
            },
          ],
        },
      },
    );
    expect(componentRepriced.status, JSON.stringify(componentRepriced.body)).toBe(204);
    await expectPagesAsUncached('a component version re-priced by a process keeping nothing');

    const componentVersionDeleted = await t.request(
      'DELETE',
      `/v1/components/${component.componentID}/versions/1`,
    );
    expect(componentVersionDeleted.status, JSON.stringify(componentVersionDeleted.body)).toBe(204);
    await expectPagesAsUncached('a component version deleted');

    expect((await elsewhere.request('DELETE', `/v1/components/${component.componentID}`)).status).toBe(204);
    await expectPagesAsUncached('a component deleted elsewhere');
    expect((await elsewhere.request('DELETE', `/v1/packages/${awkward.packageID}`)).status).toBe(204);
    await expectPagesAsUncached('a package deleted elsewhere');
  });

  it('shows SubscriptionCount as it is now: new subscriptions and the date move it without a catalogue write', async () => {
    const pkg = await createPackage();
    const term = termOf(pkg.PackageVersions[0], 'USD');
    await expectPagesAsUncached('a package to subscribe to');
    const revision = await catalogueRevision(t.accountId);

    const customer = await createCustomer({ LastName: 'Counted' });
    await subscribe({ customerID: customer, packageID: pkg.packageID, packageRateTermID: term });
    await subscribe({
      customerID: customer,
      packageID: pkg.packageID,
      packageRateTermID: term,
      EndDate: '2026-03-12',
    });
    await expectPagesAsUncached('two subscriptions');
    const countOf = async (instance: { request: typeof t.request }) =>
      (await instance.request('GET', '/v1/packages')).body.find((p: any) => p.packageID === pkg.packageID)
        .PackageVersions[0].SubscriptionCount;
    expect(await countOf(t)).toBe(2);

    setToday('2026-03-12');
    await expectPagesAsUncached('the date past one subscription’s end');
    expect(await countOf(t)).toBe(1);
    expect(await countOf(elsewhere)).toBe(1);
    // The pages were kept throughout: subscriptions are no catalogue write.
    expect(await catalogueRevision(t.accountId)).toBe(revision);
  });

  it('serves a kept page without reading the catalogue rows, and reads them again after a write', async () => {
    await t.request('GET', '/v1/packages');
    t.queries.length = 0;
    await t.request('GET', '/v1/packages');
    // The revision, then the counts, what every request reads, and none of the catalogue's rows. Only those are
    // counted: the key's lookup and the background workers' polls (every 100 ms here) may fall in the same window.
    const reads = t.queries.filter(
      (sql) =>
        sql.includes('"catalogue_revisions"') ||
        sql.includes('from "subscriptions"') ||
        CATALOGUE_ROWS.test(sql),
    );
    expect(reads).toHaveLength(2);
    expect(reads[0]).toContain('"catalogue_revisions"');
    expect(reads[1]).toContain('from "subscriptions"');

    await createPackage();
    t.queries.length = 0;
    await t.request('GET', '/v1/packages');
    expect(t.queries.filter((sql) => sql.includes('package_rate_terms'))).toHaveLength(1);
  });

  it("moves only the writing account's revision, and never shows one account another's page", async () => {
    const before = {
      mine: await catalogueRevision(t.accountId),
      theirs: await catalogueRevision(other.accountId),
    };
    const theirGroup = (await other.request('POST', '/v1/packagegroups', { body: { GroupName: 'Theirs' } }))
      .body.packageGroupID;
    const theirs = await createPackage(
      { Name: 'Their plan', PackageVersion: versionBody({ packageVersionRates: [rate('USD')] }) },
      other,
      theirGroup,
    );
    const theirComponent = await createComponent(['USD'], other, theirGroup);
    expect(await catalogueRevision(t.accountId)).toBe(before.mine);
    expect(await catalogueRevision(other.accountId)).toBeGreaterThan(before.theirs);

    for (const path of PAGES) {
      const mine = await t.request('GET', path);
      const theirPage = await other.request('GET', path);
      expect(theirPage.text, path).not.toBe(mine.text);
    }
    const theirPackages = (await other.request('GET', '/v1/packages')).body;
    expect(theirPackages.map((p: any) => p.packageID)).toEqual([theirs.packageID]);
    const theirComponents = (await other.request('GET', '/v1/components')).body;
    expect(theirComponents.map((c: any) => c.componentID)).toEqual([theirComponent.componentID]);
    const mine = (await t.request('GET', '/v1/packages')).body.map((p: any) => p.packageID);
    expect(mine).not.toContain(theirs.packageID);
  });
});
