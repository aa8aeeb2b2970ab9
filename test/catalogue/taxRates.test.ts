import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { movableClock, ok } from '../helpers/billing.ts';
import type { TestAccount } from '../helpers/service.ts';
import { useTestService } from '../helpers/testService.ts';

// Rates that change on a date (docs/tax.md, "Rates that change on a date"): South Africa's VAT rise to 15.5 % from
// 1 May 2025, announced in March and withdrawn in April. The account is in Johannesburg (UTC+2): 1 May begins there
// at 2025-04-30T22:00:00Z.
const MARCH = '2025-03-12T08:00:00.000Z';
const clock = movableClock(MARCH);
const ZA = 710;
const MAY_FIRST = '2025-04-30T22:00:00.000Z';

let za: TestAccount;
let other: TestAccount;
const t = useTestService({ clock });
beforeAll(async () => {
  za = await t.newAccount('Vendor in Johannesburg', { timeZone: 'Africa/Johannesburg', currencyCode: 'ZAR' });
  other = await t.newAccount();
});
beforeEach(() => clock.set(MARCH));

let names = 0;
async function vat(perc = 0.15) {
  const setting = await ok(za, 'POST', '/v1/tax', {
    Name: `VAT ${++names}`,
    rules: [{ Perc: perc, countryID: ZA }],
  });
  return { settingId: setting.taxSettingID as number, ruleId: setting.rules[0].taxRuleID as number };
}

const ruleOf = async (settingId: number) => (await ok(za, 'GET', `/v1/tax/${settingId}`)).rules[0];
const schedule = (settingId: number, body: object, as: TestAccount = za) =>
  as.request('POST', `/v1/tax/${settingId}/rates`, { body });

describe('POST /v1/tax/{taxSettingID}/rates', () => {
  it('schedules 15.5 % from 1 May in March: Perc stays 15 % and the rate is listed as scheduled', async () => {
    const { settingId, ruleId } = await vat();
    const res = await schedule(settingId, { taxRuleID: ruleId, Perc: 0.155, EffectiveFrom: '2025-05-01' });
    expect(res.status, res.text).toBe(201);
    expect(res.body).toEqual({
      taxRateID: expect.any(Number),
      taxRuleID: ruleId,
      Perc: 0.155,
      EffectiveFrom: MAY_FIRST,
    });
    expect(await ruleOf(settingId)).toMatchObject({ Perc: 0.15, ScheduledRates: [res.body] });
  });

  it('puts the rate in force at midnight in the account time zone, and then lists it no more', async () => {
    const { settingId, ruleId } = await vat();
    await ok(za, 'POST', `/v1/tax/${settingId}/rates`, {
      taxRuleID: ruleId,
      Perc: 0.155,
      EffectiveFrom: '01 May 2025',
    });
    clock.set('2025-04-30T21:59:59.000Z');
    expect(await ruleOf(settingId)).toMatchObject({ Perc: 0.15 });
    clock.set(MAY_FIRST);
    expect(await ruleOf(settingId)).toMatchObject({ Perc: 0.155, ScheduledRates: [] });
  });

  it('refuses a date of today or earlier with 422 naming EffectiveFrom (PUT changes the rate from now)', async () => {
    const { settingId, ruleId } = await vat();
    for (const EffectiveFrom of ['2025-03-12', '2025-03-01', 'tomorrow']) {
      const res = await schedule(settingId, { taxRuleID: ruleId, Perc: 0.155, EffectiveFrom });
      expect(res.status, EffectiveFrom).toBe(422);
      expect(res.body.fields.map((f: { field: string }) => f.field)).toEqual(['EffectiveFrom']);
    }
    expect((await ruleOf(settingId)).ScheduledRates).toEqual([]);
  });

  it('refuses a percentage for a fraction and a rule of another setting with 422 naming the field', async () => {
    const { settingId, ruleId } = await vat();
    const another = await vat();
    const percentage = await schedule(settingId, {
      taxRuleID: ruleId,
      Perc: 15.5,
      EffectiveFrom: '2025-05-01',
    });
    expect(percentage.status).toBe(422);
    expect(percentage.body.fields).toEqual([{ field: 'Perc', message: expect.stringContaining('0.155') }]);
    const foreignRule = await schedule(settingId, {
      taxRuleID: another.ruleId,
      Perc: 0.155,
      EffectiveFrom: '2025-05-01',
    });
    expect(foreignRule.status).toBe(422);
    expect(foreignRule.body.fields.map((f: { field: string }) => f.field)).toEqual(['taxRuleID']);
  });

  it('answers 409 for a second rate of the rule on the same day', async () => {
    const { settingId, ruleId } = await vat();
    await ok(za, 'POST', `/v1/tax/${settingId}/rates`, {
      taxRuleID: ruleId,
      Perc: 0.155,
      EffectiveFrom: '2025-05-01',
    });
    const res = await schedule(settingId, {
      taxRuleID: ruleId,
      Perc: 0.16,
      EffectiveFrom: '2025-05-01T10:00',
    });
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('tax_rate_date_taken');
  });

  it("answers 404 for another account's setting", async () => {
    const { settingId, ruleId } = await vat();
    const res = await schedule(
      settingId,
      { taxRuleID: ruleId, Perc: 0.155, EffectiveFrom: '2025-05-01' },
      other,
    );
    expect(res.status).toBe(404);
    expect((await ruleOf(settingId)).ScheduledRates).toEqual([]);
  });
});

describe('DELETE /v1/tax/{taxSettingID}/rates/{taxRateID}', () => {
  it('withdraws in April the rise scheduled in March: Perc stays 15 % after 1 May', async () => {
    const { settingId, ruleId } = await vat();
    const rate = await ok(za, 'POST', `/v1/tax/${settingId}/rates`, {
      taxRuleID: ruleId,
      Perc: 0.155,
      EffectiveFrom: '2025-05-01',
    });
    clock.set('2025-04-24T10:00:00.000Z');
    await ok(za, 'DELETE', `/v1/tax/${settingId}/rates/${rate.taxRateID}`);
    expect((await ruleOf(settingId)).ScheduledRates).toEqual([]);
    clock.set('2025-05-02T10:00:00.000Z');
    expect((await ruleOf(settingId)).Perc).toBe(0.15);
  });

  it('refuses with 409 to withdraw a rate in force, and keeps it', async () => {
    const { settingId, ruleId } = await vat();
    const rate = await ok(za, 'POST', `/v1/tax/${settingId}/rates`, {
      taxRuleID: ruleId,
      Perc: 0.155,
      EffectiveFrom: '2025-05-01',
    });
    clock.set(MAY_FIRST);
    const res = await za.request('DELETE', `/v1/tax/${settingId}/rates/${rate.taxRateID}`);
    expect(res.status).toBe(409);
    expect(res.headers.get('content-type')).toContain('application/problem+json');
    expect(res.body).toMatchObject({
      status: 409,
      code: 'tax_rate_in_force',
      detail: expect.stringContaining('in force since 2025-05-01'),
    });
    expect((await ruleOf(settingId)).Perc).toBe(0.155);
  });

  it("answers 404 for an unknown rate and for another account's", async () => {
    const { settingId, ruleId } = await vat();
    const rate = await ok(za, 'POST', `/v1/tax/${settingId}/rates`, {
      taxRuleID: ruleId,
      Perc: 0.155,
      EffectiveFrom: '2025-05-01',
    });
    expect((await za.request('DELETE', `/v1/tax/${settingId}/rates/${rate.taxRateID + 1000}`)).status).toBe(
      404,
    );
    expect((await other.request('DELETE', `/v1/tax/${settingId}/rates/${rate.taxRateID}`)).status).toBe(404);
    expect((await ruleOf(settingId)).ScheduledRates).toHaveLength(1);
  });
});

describe('PUT /v1/tax/{taxSettingID} beside dated rates', () => {
  it('changes Perc at once as before, and keeps the scheduled rates', async () => {
    const { settingId, ruleId } = await vat();
    const rate = await ok(za, 'POST', `/v1/tax/${settingId}/rates`, {
      taxRuleID: ruleId,
      Perc: 0.155,
      EffectiveFrom: '2025-05-01',
    });
    const read = await ok(za, 'GET', `/v1/tax/${settingId}`);
    // A client of the original service sends back what it read, with the Perc it changes.
    await ok(za, 'PUT', `/v1/tax/${settingId}`, { ...read, rules: [{ ...read.rules[0], Perc: 0.14 }] });
    expect(await ruleOf(settingId)).toMatchObject({ Perc: 0.14, ScheduledRates: [rate] });
    clock.set(MAY_FIRST);
    expect((await ruleOf(settingId)).Perc).toBe(0.155);
  });

  it('edits the dated rate in force once one is, not the rate before it', async () => {
    const { settingId, ruleId } = await vat();
    await ok(za, 'POST', `/v1/tax/${settingId}/rates`, {
      taxRuleID: ruleId,
      Perc: 0.155,
      EffectiveFrom: '2025-05-01',
    });
    await ok(za, 'POST', `/v1/tax/${settingId}/rates`, {
      taxRuleID: ruleId,
      Perc: 0.16,
      EffectiveFrom: '2025-07-01',
    });
    clock.set('2025-05-20T10:00:00.000Z');
    await ok(za, 'PUT', `/v1/tax/${settingId}`, {
      Name: `VAT ${names}`,
      rules: [{ taxRuleID: ruleId, Perc: 0.152, countryID: ZA }],
    });
    expect(await ruleOf(settingId)).toMatchObject({ Perc: 0.152, ScheduledRates: [{ Perc: 0.16 }] });
    clock.set('2025-07-01T10:00:00.000Z');
    expect((await ruleOf(settingId)).Perc).toBe(0.16);
  });

  it('drops the dated rates of a rule the PUT leaves out', async () => {
    const { settingId, ruleId } = await vat();
    await ok(za, 'POST', `/v1/tax/${settingId}/rates`, {
      taxRuleID: ruleId,
      Perc: 0.155,
      EffectiveFrom: '2025-05-01',
    });
    await ok(za, 'PUT', `/v1/tax/${settingId}`, {
      Name: `VAT ${names}`,
      rules: [{ Perc: 0.15, countryID: ZA }],
    });
    const rule = await ruleOf(settingId);
    expect(rule.taxRuleID).not.toBe(ruleId);
    expect(rule.ScheduledRates).toEqual([]);
    await ok(za, 'DELETE', `/v1/tax/${settingId}`);
  });
});
