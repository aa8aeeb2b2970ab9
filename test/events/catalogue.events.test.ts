import { describe, expect, it } from 'vitest';
import type { TestAccount } from '../helpers/service.ts';
import { auditOf, expectEvents, ok, read } from '../helpers/resourceEvents.ts';
import { useTestService } from '../helpers/testService.ts';

// Every catalogue event, triggered through the API and read back through GET /v1/events: objects as the single
// GETs show them right after the change, `previous` for updates, one version per event, nothing for refusals.

const t = useTestService();

async function newGroup(account: TestAccount): Promise<number> {
  return (await ok(account, 'POST', '/v1/packagegroups', { GroupName: 'Plans' })).packageGroupID;
}

const versionBody = (overrides: Record<string, unknown> = {}) => ({
  VersionName: 'Standard',
  isActive: true,
  isDefault: true,
  packageVersionRates: [
    {
      CurrencyCode: 'USD',
      SetupFee: 10,
      TrialFee: 0,
      TrialPeriod: 0,
      TrialPeriodType: 'days',
      PackageRateTerms: [{ ChargePrice: 99.99, ChargeTerm: 1, ChargeTermType: 'months' }],
    },
  ],
  ...overrides,
});

const componentBody = (groupId: number, code: string) => ({
  ComponentCode: code,
  Name: 'SMS bundle',
  Type: 'quantity',
  Scheme: 'unit',
  UnitName: 'per sms',
  packageGroupID: groupId,
  Term: 1,
  TermType: 'months',
  ComponentVersion: {
    VersionName: 'Launch prices',
    ComponentVersionCurrencies: [
      { CurrencyCode: 'USD', ComponentBracketPrices: [{ Price: 1, QtyFrom: 1, QtyTill: null }] },
    ],
  },
});

describe('package group events', () => {
  it('announce creation, renaming and deletion; a rename to the same name writes none', async () => {
    const account = await t.newAccount('Group events');
    const id = await newGroup(account);
    const created = await read(account, `/v1/packagegroups/${id}`);
    await ok(account, 'PUT', `/v1/packagegroups/${id}`, { GroupName: 'Usage' });
    const renamed = await read(account, `/v1/packagegroups/${id}`);
    await ok(account, 'PUT', `/v1/packagegroups/${id}`, { GroupName: 'Usage' });
    await ok(account, 'DELETE', `/v1/packagegroups/${id}`);
    const events = await expectEvents(account, 'package_group', id, [
      'package_group.created',
      'package_group.updated',
      'package_group.deleted',
    ]);
    expect(events[0]!.data).toEqual({ object: created });
    expect(events[1]!.data).toEqual({ object: renamed, previous: { GroupName: 'Plans' } });
    expect(events[2]!.data).toEqual({ object: renamed });
    expect((await auditOf(account, events[2]!.id)).Operation).toBe(
      'DELETE /v1/packagegroups/:packageGroupID',
    );
  });

  it('write nothing when a group in use is refused', async () => {
    const account = await t.newAccount('Group in use');
    const id = await newGroup(account);
    await ok(account, 'POST', '/v1/packages', {
      packageGroupID: id,
      packageCode: 'P-1',
      Name: 'Gold',
      isActive: true,
      PackageVersion: versionBody(),
    });
    expect((await account.request('DELETE', `/v1/packagegroups/${id}`)).status).toBe(409);
    await expectEvents(account, 'package_group', id, ['package_group.created']);
  });
});

describe('package events', () => {
  it('announce a package with its first version, edits, versions, a default that moves, and deletions', async () => {
    const account = await t.newAccount('Package events');
    const groupId = await newGroup(account);
    const body = { packageGroupID: groupId, packageCode: 'GOLD', Name: 'Gold', isActive: true };
    const pkg = await ok(account, 'POST', '/v1/packages', { ...body, PackageVersion: versionBody() });
    const id = pkg.packageID as number;
    const v1 = pkg.PackageVersions[0];

    await ok(account, 'PUT', `/v1/packages/${id}`, { ...body, Name: 'Gold plus' });
    const edited = await read(account, `/v1/packages/${id}`);
    await ok(account, 'PUT', `/v1/packages/${id}`, { ...body, Name: 'Gold plus' });
    const taken = await account.request('POST', '/v1/packages', {
      body: { ...body, PackageVersion: versionBody() },
    });
    expect(taken.status).toBe(409);

    const v2 = await ok(account, 'POST', `/v1/packages/${id}/versions`, versionBody({ VersionName: 'Next' }));
    const v1After = await read(account, `/v1/packages/${id}/versions/1`);
    const withV2 = await read(account, `/v1/packages/${id}`);
    await ok(account, 'PUT', `/v1/packages/${id}/versions/2`, versionBody({ VersionName: 'Next, renamed' }));
    const v2Edited = await read(account, `/v1/packages/${id}/versions/2`);
    expect((await account.request('DELETE', `/v1/packages/${id}/versions/2`)).status).toBe(409);
    await ok(account, 'DELETE', `/v1/packages/${id}/versions/1`);
    const beforeDelete = await read(account, `/v1/packages/${id}`);
    await ok(account, 'DELETE', `/v1/packages/${id}`);

    const events = await expectEvents(account, 'package', id, [
      'package.created',
      'package.updated',
      'package.updated',
      'package.deleted',
    ]);
    expect(events[0]!.data).toEqual({ object: pkg });
    expect(events[1]!.data).toEqual({ object: edited, previous: { Name: 'Gold' } });
    expect(events[2]!.data).toEqual({
      object: withV2,
      previous: { PackageVersions: edited.PackageVersions },
    });
    expect(events[3]!.data).toEqual({ object: beforeDelete });

    const first = await expectEvents(account, 'package_version', v1.packageVersionID, [
      'package_version.created',
      'package_version.updated',
      'package_version.deleted',
    ]);
    expect(first[0]!.data).toEqual({ object: v1 });
    expect(first[1]!.data).toEqual({ object: v1After, previous: { isDefault: true } });
    expect(first[2]!.data).toEqual({ object: v1After });

    const second = await expectEvents(account, 'package_version', v2.packageVersionID, [
      'package_version.created',
      'package_version.updated',
      'package_version.deleted',
    ]);
    expect(second[0]!.data).toEqual({ object: v2 });
    expect(second[1]!.data.object).toEqual(v2Edited);
    expect(second[1]!.data.previous).toMatchObject({ VersionName: 'Next' });
    expect(second[2]!.data).toEqual({ object: v2Edited });
  });
});

describe('component events', () => {
  it('announce a component with its first version, edits, versions, a default that moves, and deletions', async () => {
    const account = await t.newAccount('Component events');
    const groupId = await newGroup(account);
    const component = await ok(account, 'POST', '/v1/components', componentBody(groupId, 'SMS'));
    const id = component.componentID as number;
    const v1 = component.ComponentVersions[0];
    const { ComponentVersion: _, ...fields } = componentBody(groupId, 'SMS');

    await ok(account, 'PUT', `/v1/components/${id}`, { ...fields, Name: 'SMS pack' });
    const edited = await read(account, `/v1/components/${id}`);
    await ok(account, 'PUT', `/v1/components/${id}`, { ...fields, Name: 'SMS pack' });
    expect(
      (await account.request('POST', '/v1/components', { body: componentBody(groupId, 'SMS') })).status,
    ).toBe(409);
    const prices = component.ComponentVersions[0].ComponentVersionCurrencies.map((c: any) => ({
      CurrencyCode: c.CurrencyCode,
      ComponentBracketPrices: c.ComponentBracketPrices.map((b: any) => ({
        Price: b.Price,
        QtyFrom: b.QtyFrom,
        QtyTill: b.QtyTill,
      })),
    }));
    const v2 = await ok(account, 'POST', `/v1/components/${id}/versions`, {
      VersionName: 'Next',
      isActive: true,
      isDefault: true,
      ComponentVersionCurrencies: prices,
    });
    const v1After = await read(account, `/v1/components/${id}/versions/1`);
    const withV2 = await read(account, `/v1/components/${id}`);
    await ok(account, 'PUT', `/v1/components/${id}/versions/2`, {
      VersionName: 'Next, renamed',
      isActive: true,
    });
    const v2Edited = await read(account, `/v1/components/${id}/versions/2`);
    await ok(account, 'DELETE', `/v1/components/${id}/versions/1`);
    const beforeDelete = await read(account, `/v1/components/${id}`);
    await ok(account, 'DELETE', `/v1/components/${id}`);

    const events = await expectEvents(account, 'component', id, [
      'component.created',
      'component.updated',
      'component.updated',
      'component.deleted',
    ]);
    expect(events[0]!.data).toEqual({ object: component });
    expect(events[1]!.data).toEqual({ object: edited, previous: { Name: 'SMS bundle' } });
    expect(events[2]!.data).toEqual({
      object: withV2,
      previous: { ComponentVersions: edited.ComponentVersions },
    });
    expect(events[3]!.data).toEqual({ object: beforeDelete });

    const first = await expectEvents(account, 'component_version', v1.componentVersionID, [
      'component_version.created',
      'component_version.updated',
      'component_version.deleted',
    ]);
    expect(first[0]!.data).toEqual({ object: v1 });
    expect(first[1]!.data).toEqual({ object: v1After, previous: { isDefault: true } });
    expect(first[2]!.data).toEqual({ object: v1After });
    const second = await expectEvents(account, 'component_version', v2.componentVersionID, [
      'component_version.created',
      'component_version.updated',
      'component_version.deleted',
    ]);
    expect(second[0]!.data).toEqual({ object: v2 });
    expect(second[1]!.data).toEqual({ object: v2Edited, previous: { VersionName: 'Next' } });
    expect(second[2]!.data).toEqual({ object: v2Edited });
  });
});

describe('tax setting events', () => {
  it('announce creation, edits and deletion; an edit that changes nothing writes none', async () => {
    const account = await t.newAccount('Tax events');
    const setting = await ok(account, 'POST', '/v1/tax', { Name: 'VAT', rules: [{ Perc: 0.15 }] });
    const id = setting.taxSettingID as number;
    const rule = setting.rules[0];
    await ok(account, 'PUT', `/v1/tax/${id}`, {
      Name: 'VAT',
      rules: [{ taxRuleID: rule.taxRuleID, Perc: 0.16 }],
    });
    const edited = await read(account, `/v1/tax/${id}`);
    await ok(account, 'PUT', `/v1/tax/${id}`, { Name: 'VAT' });
    expect((await account.request('POST', '/v1/tax', { body: { Name: 'vat' } })).status).toBe(409);
    await ok(account, 'DELETE', `/v1/tax/${id}`);
    const events = await expectEvents(account, 'tax_setting', id, [
      'tax_setting.created',
      'tax_setting.updated',
      'tax_setting.deleted',
    ]);
    expect(events[0]!.data).toEqual({ object: setting });
    expect(events[1]!.data).toEqual({ object: edited, previous: { rules: setting.rules } });
    expect(events[2]!.data).toEqual({ object: edited });
  });
});

describe('currency events', () => {
  it('announce a currency added and removed, named by its code; refusals write nothing', async () => {
    const account = await t.newAccount('Currency events');
    expect((await account.request('POST', '/v1/currencies', { body: { CurrencyCode: 'eur' } })).status).toBe(
      201,
    );
    const listed = ((await read(account, '/v1/currencies')) as any[]).find((c) => c.CurrencyCode === 'EUR');
    expect((await account.request('POST', '/v1/currencies', { body: { CurrencyCode: 'EUR' } })).status).toBe(
      409,
    );
    expect((await account.request('DELETE', '/v1/currencies?CurrencyCode=USD')).status).toBe(409);
    await ok(account, 'DELETE', '/v1/currencies?CurrencyCode=EUR');
    const events = await expectEvents(account, 'currency', 'EUR', ['currency.added', 'currency.removed']);
    expect(listed).toEqual({ CurrencyCode: 'EUR', Name: 'Euro' });
    expect(events[0]!.data).toEqual({ object: listed });
    expect(events[1]!.data).toEqual({ object: listed });
    await expectEvents(account, 'currency', 'USD', ['currency.added']);
  });
});
