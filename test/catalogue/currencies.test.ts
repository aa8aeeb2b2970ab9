import { describe, expect, it } from 'vitest';
import type { TestAccount } from '../helpers/service.ts';
import { useTestService } from '../helpers/testService.ts';

const t = useTestService();

const codes = async (as: TestAccount = t) =>
  (await as.request('GET', '/v1/currencies')).body.map((c: { CurrencyCode: string }) => c.CurrencyCode);

describe('currencies', () => {
  it("starts with the account's default currency, named", async () => {
    const res = await t.request('GET', '/v1/currencies');
    expect(res.status).toBe(200);
    expect(res.body).toEqual([{ CurrencyCode: 'USD', Name: 'US Dollar' }]);
  });

  it('enables a currency with 201 and an empty body, case-insensitively, listed in the order enabled', async () => {
    const res = await t.request('POST', '/v1/currencies', { body: { CurrencyCode: 'zar' } });
    expect(res.status).toBe(201);
    expect(res.text).toBe('');
    await t.request('POST', '/v1/currencies', { body: { CurrencyCode: 'EUR' } });
    expect(await codes()).toEqual(['USD', 'ZAR', 'EUR']);
    const zar = (await t.request('GET', '/v1/currencies')).body[1];
    expect(zar).toEqual({ CurrencyCode: 'ZAR', Name: 'Rand' });
  });

  it('answers 409 for a currency enabled already', async () => {
    const res = await t.request('POST', '/v1/currencies', { body: { CurrencyCode: 'USD' } });
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('currency_enabled');
  });

  it.each([['ABC'], ['XAU'], ['US'], ['USDX'], [''], [12]])(
    'refuses %j with 422 naming CurrencyCode',
    async (code) => {
      const res = await t.request('POST', '/v1/currencies', { body: { CurrencyCode: code } });
      expect(res.status).toBe(422);
      expect(res.body.fields[0].field).toBe('CurrencyCode');
    },
  );

  it('removes a currency given in the body or the query string', async () => {
    await t.request('POST', '/v1/currencies', { body: { CurrencyCode: 'GBP' } });
    await t.request('POST', '/v1/currencies', { body: { CurrencyCode: 'JPY' } });
    expect((await t.request('DELETE', '/v1/currencies', { body: { CurrencyCode: 'GBP' } })).status).toBe(204);
    expect((await t.request('DELETE', '/v1/currencies?CurrencyCode=jpy')).status).toBe(204);
    expect(await codes()).not.toContain('GBP');
    expect(await codes()).not.toContain('JPY');
  });

  it('answers 404 for a currency that is not enabled, and 422 without a code', async () => {
    expect((await t.request('DELETE', '/v1/currencies', { body: { CurrencyCode: 'CHF' } })).status).toBe(404);
    const missing = await t.request('DELETE', '/v1/currencies');
    expect(missing.status).toBe(422);
    expect(missing.body.fields[0].field).toBe('CurrencyCode');
  });

  it("refuses to remove the account's default currency or one a customer is billed in", async () => {
    const fallback = await t.request('DELETE', '/v1/currencies', { body: { CurrencyCode: 'USD' } });
    expect(fallback.status).toBe(409);
    expect(fallback.body.code).toBe('currency_in_use');

    await t.request('POST', '/v1/currencies', { body: { CurrencyCode: 'CAD' } });
    const customer = await t.request('POST', '/v1/customers', {
      body: { Name: 'Maple', CurrencyCode: 'CAD' },
    });
    expect(customer.status).toBe(201);
    const inUse = await t.request('DELETE', '/v1/currencies', { body: { CurrencyCode: 'CAD' } });
    expect(inUse.status).toBe(409);
    expect(inUse.body.code).toBe('currency_in_use');
    expect(await codes()).toContain('CAD');

    await t.request('DELETE', `/v1/customers/${customer.body.customerID}`);
    expect((await t.request('DELETE', '/v1/currencies', { body: { CurrencyCode: 'CAD' } })).status).toBe(204);
  });

  it('refuses to remove a currency that package rates or component prices are in', async () => {
    const account = await t.newAccount('Priced');
    await account.request('POST', '/v1/currencies', { body: { CurrencyCode: 'EUR' } });
    await account.request('POST', '/v1/currencies', { body: { CurrencyCode: 'GBP' } });
    const group = await account.request('POST', '/v1/packagegroups', { body: { GroupName: 'G' } });
    const packageGroupID = group.body.packageGroupID;
    const rate = {
      CurrencyCode: 'EUR',
      SetupFee: 0,
      TrialFee: 0,
      TrialPeriod: 0,
      TrialPeriodType: 'days',
      PackageRateTerms: [{ ChargePrice: 10, ChargeTerm: 1, ChargeTermType: 'months' }],
    };
    const pkg = await account.request('POST', '/v1/packages', {
      body: {
        packageGroupID,
        packageCode: 'P',
        Name: 'P',
        Descrip: 'p',
        isActive: true,
        PackageVersion: { VersionName: 'v1', isActive: true, isDefault: true, packageVersionRates: [rate] },
      },
    });
    expect(pkg.status).toBe(201);
    const component = await account.request('POST', '/v1/components', {
      body: {
        ComponentCode: 'C',
        Name: 'C',
        Type: 'quantity',
        Scheme: 'unit',
        UnitName: 'per seat',
        packageGroupID,
        Term: 1,
        TermType: 'months',
        ComponentVersion: {
          VersionName: 'v1',
          ComponentVersionCurrencies: [
            { CurrencyCode: 'GBP', ComponentBracketPrices: [{ Price: 1, QtyFrom: 1, QtyTill: null }] },
          ],
        },
      },
    });
    expect(component.status).toBe(201);
    for (const code of ['EUR', 'GBP']) {
      const res = await account.request('DELETE', '/v1/currencies', { body: { CurrencyCode: code } });
      expect(res.status, code).toBe(409);
      expect(res.body.code).toBe('currency_in_use');
    }
    await account.request('DELETE', `/v1/packages/${pkg.body.packageID}`);
    await account.request('DELETE', `/v1/components/${component.body.componentID}`);
    for (const code of ['EUR', 'GBP']) {
      expect(
        (await account.request('DELETE', '/v1/currencies', { body: { CurrencyCode: code } })).status,
      ).toBe(204);
    }
  });

  it('never lets a price in a currency land while that currency is removed', async () => {
    const account = await t.newAccount('Race');
    const group = await account.request('POST', '/v1/packagegroups', { body: { GroupName: 'G' } });
    const usd = {
      CurrencyCode: 'USD',
      SetupFee: 0,
      TrialFee: 0,
      TrialPeriod: 0,
      TrialPeriodType: 'days',
      PackageRateTerms: [{ ChargePrice: 10, ChargeTerm: 1, ChargeTermType: 'months' }],
    };
    const pkg = await account.request('POST', '/v1/packages', {
      body: {
        packageGroupID: group.body.packageGroupID,
        packageCode: 'RACE',
        Name: 'Race',
        isActive: true,
        PackageVersion: { VersionName: 'v1', isActive: true, isDefault: true, packageVersionRates: [usd] },
      },
    });
    expect(pkg.status).toBe(201);
    for (const code of ['EUR', 'GBP', 'JPY', 'CHF', 'CAD', 'AUD', 'SEK', 'NOK']) {
      expect((await account.request('POST', '/v1/currencies', { body: { CurrencyCode: code } })).status).toBe(
        201,
      );
      const [added, removed] = await Promise.all([
        account.request('POST', `/v1/packages/${pkg.body.packageID}/versions`, {
          body: {
            VersionName: code,
            isActive: true,
            isDefault: false,
            packageVersionRates: [{ ...usd, CurrencyCode: code }],
          },
        }),
        account.request('DELETE', '/v1/currencies', { body: { CurrencyCode: code } }),
      ]);
      expect(
        added.status === 201 && removed.status === 204,
        `${code}: ${added.status} and ${removed.status}`,
      ).toBe(false);
      expect([201, 409, 422]).toContain(added.status);
      expect([204, 409]).toContain(removed.status);
    }
    const enabled = new Set(await codes(account));
    const versions = await account.request('GET', `/v1/packages/${pkg.body.packageID}/versions`);
    for (const version of versions.body) {
      for (const rate of version.packageVersionRates)
        expect(enabled.has(rate.CurrencyCode), rate.CurrencyCode).toBe(true);
    }
  });

  it('lets customers use only enabled currencies', async () => {
    const refused = await t.request('POST', '/v1/customers', {
      body: { Name: 'Swiss', CurrencyCode: 'CHF' },
    });
    expect(refused.status).toBe(422);
    expect(refused.body.fields[0]).toEqual({
      field: 'CurrencyCode',
      message: expect.stringContaining('not enabled'),
    });
    await t.request('POST', '/v1/currencies', { body: { CurrencyCode: 'CHF' } });
    const accepted = await t.request('POST', '/v1/customers', {
      body: { Name: 'Swiss', CurrencyCode: 'chf' },
    });
    expect(accepted.status).toBe(201);
    expect(accepted.body.CurrencyCode).toBe('CHF');
  });

  it("keeps each account's currencies apart", async () => {
    const other = await t.newAccount();
    expect(await codes(other)).toEqual(['USD']);
    expect((await other.request('DELETE', '/v1/currencies', { body: { CurrencyCode: 'ZAR' } })).status).toBe(
      404,
    );
    expect(await codes()).toContain('ZAR');
    const refused = await other.request('POST', '/v1/customers', {
      body: { Name: 'x', CurrencyCode: 'ZAR' },
    });
    expect(refused.status).toBe(422);
  });
});
