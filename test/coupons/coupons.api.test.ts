import { describe, expect, it } from 'vitest';
import { createCustomer, createPlan, ok, subscribe } from '../helpers/billing.ts';
import { createCoupon, eventsOf, fieldsOf, refused, t, useCouponService } from './coupons.fixtures.ts';

// docs/credits.md, "Coupons": making, reading, changing and archiving coupons; redeeming them on customers and
// subscriptions, counted exactly; what is refused (a problem naming the field, nothing made); another account's
// coupons, customers and subscriptions are 404.
useCouponService();

describe('coupons through the API', () => {
  it('are made, listed, replaced and archived, each with its event', async () => {
    const as = await t.newAccount('Crud shop', { isTest: true });
    const spring = await createCoupon(as, {
      Code: 'spring25',
      Name: 'Spring',
      PercentOff: '25.00',
      Duration: 'repeating',
      DurationPeriods: 3,
      RedeemBy: '2026-03-31',
      MaxRedemptions: 100,
    });
    expect(spring).toMatchObject({
      Code: 'SPRING25',
      Kind: 'percent',
      PercentOff: '25',
      AmountOff: null,
      Duration: 'repeating',
      DurationPeriods: 3,
      // Through the end of 31 March in the account's zone (UTC).
      RedeemBy: '2026-03-31T23:59:59.999Z',
      RedemptionCount: 0,
      AppliesTo: null,
      Archived: false,
    });
    const welcome = await createCoupon(as, {
      Code: 'WELCOME',
      AmountOff: 10,
      CurrencyCode: 'usd',
      Duration: 'forever',
    });
    expect(welcome).toMatchObject({
      Kind: 'fixed',
      AmountOff: '10.00',
      CurrencyCode: 'USD',
      PercentOff: null,
    });

    expect((await ok(as, 'GET', '/v1/coupons?page=2&page_size=1')).map((c: any) => c.Code)).toEqual([
      'WELCOME',
    ]);
    expect(await ok(as, 'GET', `/v1/coupons/${spring.couponID}`)).toEqual(spring);

    const replaced = await ok(
      as,
      'PUT',
      `/v1/coupons/${spring.couponID}`,
      { Name: 'Spring sale', MaxRedemptions: 5 },
      200,
    );
    expect(replaced).toMatchObject({
      Name: 'Spring sale',
      MaxRedemptions: 5,
      RedeemBy: null,
      PercentOff: '25',
    });

    const archived = await ok(as, 'DELETE', `/v1/coupons/${welcome.couponID}`, undefined, 200);
    expect(archived).toMatchObject({ Archived: true, ArchivedAt: expect.any(String) });
    expect((await ok(as, 'GET', '/v1/coupons?archived=false')).map((c: any) => c.Code)).toEqual(['SPRING25']);
    expect((await ok(as, 'GET', '/v1/coupons?archived=true')).map((c: any) => c.Code)).toEqual(['WELCOME']);

    expect((await eventsOf(as, 'coupon.created')).map((e) => e.data.object.Code)).toEqual([
      'SPRING25',
      'WELCOME',
    ]);
    expect((await eventsOf(as, 'coupon.updated'))[0]!.data).toMatchObject({
      object: { Name: 'Spring sale' },
      previous: { Name: 'Spring' },
    });
    expect((await eventsOf(as, 'coupon.archived'))[0]!.data.object).toMatchObject({
      Code: 'WELCOME',
      Archived: true,
    });
    // Archiving again changes nothing and tells nobody.
    await ok(as, 'DELETE', `/v1/coupons/${welcome.couponID}`, undefined, 200);
    expect(await eventsOf(as, 'coupon.archived')).toHaveLength(1);
  });

  it('refuses what cannot be a coupon, naming the field, and makes nothing', async () => {
    const as = await t.newAccount('Refusing shop', { isTest: true });
    const base = { Code: 'OK', Name: 'Ok', Duration: 'once', PercentOff: 10 };
    const cases: [Record<string, unknown>, string][] = [
      [{ ...base, Code: 'has space' }, 'Code'],
      [{ ...base, Name: '   ' }, 'Name'],
      [{ ...base, PercentOff: 0 }, 'PercentOff'],
      [{ ...base, PercentOff: 100.5 }, 'PercentOff'],
      [{ ...base, PercentOff: '12.345' }, 'PercentOff'],
      [{ ...base, PercentOff: undefined }, 'PercentOff'],
      [{ ...base, AmountOff: 5, CurrencyCode: 'USD' }, 'PercentOff'],
      [{ ...base, PercentOff: undefined, AmountOff: 5 }, 'CurrencyCode'],
      [{ ...base, PercentOff: undefined, AmountOff: 5, CurrencyCode: 'EUR' }, 'CurrencyCode'],
      [{ ...base, PercentOff: undefined, AmountOff: '5.001', CurrencyCode: 'USD' }, 'AmountOff'],
      [{ ...base, PercentOff: undefined, AmountOff: -5, CurrencyCode: 'USD' }, 'AmountOff'],
      [{ ...base, Duration: 'repeating' }, 'DurationPeriods'],
      [{ ...base, Duration: 'repeating', DurationPeriods: 0 }, 'DurationPeriods'],
      [{ ...base, DurationPeriods: 2 }, 'DurationPeriods'],
      [{ ...base, MaxRedemptions: 0 }, 'MaxRedemptions'],
      [{ ...base, MaxRedemptions: 2_147_483_648 }, 'MaxRedemptions'],
      [{ ...base, RedeemBy: 'someday' }, 'RedeemBy'],
      [{ ...base, AppliesTo: { PackageIDs: [999999] } }, 'AppliesTo.PackageIDs'],
      [{ ...base, AppliesTo: { ComponentIDs: [999999] } }, 'AppliesTo.ComponentIDs'],
      [{ ...base, Duration: 'weekly' }, 'Duration'],
    ];
    for (const [body, field] of cases) {
      const problem = await refused(as, 'POST', '/v1/coupons', body);
      expect(fieldsOf(problem), JSON.stringify(body)).toContain(field);
    }
    expect(await ok(as, 'GET', '/v1/coupons')).toEqual([]);
    expect(await eventsOf(as, 'coupon.created')).toEqual([]);

    await createCoupon(as, base);
    expect((await refused(as, 'POST', '/v1/coupons', { ...base, Code: 'ok' }, 409)).code).toBe(
      'coupon_code_taken',
    );
  });

  it('redeems on customers and subscriptions, ends redemptions, and refuses what cannot be redeemed', async () => {
    const as = await t.newAccount('Redeeming shop', { isTest: true });
    const plan = await createPlan(as, { chargePrice: 30 });
    const other = await createPlan(as, { chargePrice: 60 });
    const customerId = await createCustomer(as);
    const sub = await subscribe(as, customerId, plan);
    const subPath = `/v1/subscriptions/${sub.subscriptionID}/coupons`;
    const custPath = `/v1/customers/${customerId}/coupons`;
    await createCoupon(as, { Code: 'TEN', PercentOff: 10, Duration: 'repeating', DurationPeriods: 2 });
    await createCoupon(as, { Code: 'TWO', PercentOff: 10, MaxRedemptions: 1 });
    await createCoupon(as, { Code: 'ZAR', AmountOff: 5, CurrencyCode: 'USD' });
    await createCoupon(as, {
      Code: 'GOLDONLY',
      PercentOff: 10,
      AppliesTo: { PackageIDs: [other.packageId] },
    });
    await createCoupon(as, { Code: 'OLD', PercentOff: 10, RedeemBy: '2026-02-28T00:00:00Z' });
    const gone = await createCoupon(as, { Code: 'GONE', PercentOff: 10 });
    await ok(as, 'DELETE', `/v1/coupons/${gone.couponID}`, undefined, 200);

    const onSub = await ok(as, 'POST', subPath, { Code: 'ten' });
    expect(onSub).toMatchObject({
      Code: 'TEN',
      customerID: customerId,
      subscriptionID: sub.subscriptionID,
      RedeemedOn: '2026-03-01',
      PeriodsUsed: 0,
      PeriodsLeft: 2,
      Ended: false,
    });
    const onCustomer = await ok(as, 'POST', custPath, { Code: 'TWO' });
    expect(onCustomer).toMatchObject({ subscriptionID: null, PeriodsLeft: 1 });

    const conflicts: [string, string, string][] = [
      [subPath, 'TEN', 'coupon_already_redeemed'],
      [subPath, 'TWO', 'coupon_exhausted'],
      [subPath, 'GOLDONLY', 'coupon_not_applicable'],
      [subPath, 'OLD', 'coupon_expired'],
      [custPath, 'GONE', 'coupon_archived'],
    ];
    for (const [path, Code, code] of conflicts) {
      expect((await refused(as, 'POST', path, { Code }, 409)).code, Code).toBe(code);
    }
    expect(fieldsOf(await refused(as, 'POST', custPath, { Code: 'NOPE' }))).toEqual(['Code']);
    // A coupon redeemed here stays at its count: the refused ones counted nothing.
    expect((await ok(as, 'GET', '/v1/coupons')).map((c: any) => [c.Code, c.RedemptionCount])).toEqual([
      ['TEN', 1],
      ['TWO', 1],
      ['ZAR', 0],
      ['GOLDONLY', 0],
      ['OLD', 0],
      ['GONE', 0],
    ]);

    expect((await ok(as, 'GET', subPath)).map((r: any) => r.Code)).toEqual(['TEN']);
    expect((await ok(as, 'GET', custPath)).map((r: any) => r.Code)).toEqual(['TWO']);
    // Ended through the subscription only: the customer's path does not know it.
    await refused(as, 'DELETE', `${custPath}/${onSub.couponRedemptionID}`, undefined, 404);
    const ended = await ok(as, 'DELETE', `${subPath}/${onSub.couponRedemptionID}`, undefined, 200);
    expect(ended).toMatchObject({ Ended: true, EndedAt: expect.any(String) });
    // Ended, it may be redeemed again.
    await ok(as, 'POST', subPath, { Code: 'TEN' });

    expect((await eventsOf(as, 'coupon.redeemed')).map((e) => e.data.object.Code)).toEqual([
      'TEN',
      'TWO',
      'TEN',
    ]);
    expect((await eventsOf(as, 'coupon.ended'))[0]!.data.object).toMatchObject({ Code: 'TEN', Ended: true });
  });

  it('refuses a fixed coupon in another currency', async () => {
    const as = await t.newAccount('Two currencies', { isTest: true });
    await ok(as, 'POST', '/v1/currencies', { CurrencyCode: 'EUR' });
    const customerId = await createCustomer(as, { CurrencyCode: 'EUR' });
    await createCoupon(as, { Code: 'FIVE', AmountOff: 5, CurrencyCode: 'USD' });
    const problem = await refused(as, 'POST', `/v1/customers/${customerId}/coupons`, { Code: 'FIVE' }, 409);
    expect(problem.code).toBe('coupon_currency_mismatch');
  });

  it('counts exactly 10 of 50 parallel redemptions of a coupon limited to 10', async () => {
    const as = await t.newAccount('Rush shop', { isTest: true });
    const coupon = await createCoupon(as, { Code: 'RUSH', PercentOff: 50, MaxRedemptions: 10 });
    const customers: number[] = [];
    for (let i = 0; i < 50; i += 1) customers.push(await createCustomer(as, { Email: `c${i}@rush.example` }));
    const results = await Promise.all(
      customers.map((id) => as.request('POST', `/v1/customers/${id}/coupons`, { body: { Code: 'RUSH' } })),
    );
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(10);
    expect(statuses.filter((s) => s === 409)).toHaveLength(40);
    expect(results.filter((r) => r.status === 409).every((r) => r.body.code === 'coupon_exhausted')).toBe(
      true,
    );
    expect((await ok(as, 'GET', `/v1/coupons/${coupon.couponID}`)).RedemptionCount).toBe(10);
    expect(await eventsOf(as, 'coupon.redeemed')).toHaveLength(10);
  });

  it('never lets a lowered MaxRedemptions fall below redemptions made at the same time', async () => {
    const as = await t.newAccount('Lowering shop', { isTest: true });
    const coupon = await createCoupon(as, { Code: 'LOWER', PercentOff: 5 });
    const customers: number[] = [];
    for (let i = 0; i < 20; i += 1)
      customers.push(await createCustomer(as, { Email: `l${i}@lower.example` }));
    const redeeming = customers.map((id) =>
      as.request('POST', `/v1/customers/${id}/coupons`, { body: { Code: 'LOWER' } }),
    );
    const lowering = as.request('PUT', `/v1/coupons/${coupon.couponID}`, {
      body: { Name: 'Lowered', MaxRedemptions: 10 },
    });
    const [edit, ...results] = await Promise.all([lowering, ...redeeming]);
    const made = results.filter((r) => r.status === 201).length;
    const after = await ok(as, 'GET', `/v1/coupons/${coupon.couponID}`);
    expect(after.RedemptionCount).toBe(made);
    // Either the limit came first and held the rest back, or the redemptions did and the edit was refused.
    if (edit!.status === 200) {
      expect(after.MaxRedemptions).toBe(10);
      expect(made).toBeLessThanOrEqual(10);
    } else {
      expect(edit!.status).toBe(422);
      expect(after.MaxRedemptions).toBeNull();
      expect(made).toBeGreaterThan(10);
    }
  });

  it('redeems one coupon once on a customer that 10 parallel requests redeem it on', async () => {
    const as = await t.newAccount('Twice shop', { isTest: true });
    const coupon = await createCoupon(as, { Code: 'ONCE', PercentOff: 10 });
    const customerId = await createCustomer(as);
    const results = await Promise.all(
      Array.from({ length: 10 }, () =>
        as.request('POST', `/v1/customers/${customerId}/coupons`, { body: { Code: 'ONCE' } }),
      ),
    );
    expect(results.map((r) => r.status).sort()).toEqual([201, ...Array<number>(9).fill(409)]);
    expect(
      results.filter((r) => r.status === 409).every((r) => r.body.code === 'coupon_already_redeemed'),
    ).toBe(true);
    expect(await ok(as, 'GET', `/v1/customers/${customerId}/coupons`)).toHaveLength(1);
    expect((await ok(as, 'GET', `/v1/coupons/${coupon.couponID}`)).RedemptionCount).toBe(1);
  });

  it('answers 404 for another account’s coupons, customers, subscriptions and redemptions', async () => {
    const owner = await t.newAccount('Owner', { isTest: true });
    const stranger = await t.newAccount('Stranger', { isTest: true });
    const plan = await createPlan(owner);
    const customerId = await createCustomer(owner);
    const sub = await subscribe(owner, customerId, plan);
    const coupon = await createCoupon(owner, { Code: 'MINE', PercentOff: 5, Duration: 'forever' });
    const redemption = await ok(owner, 'POST', `/v1/customers/${customerId}/coupons`, { Code: 'MINE' });
    await createCoupon(stranger, { Code: 'MINE', PercentOff: 50, Duration: 'forever' });

    await refused(stranger, 'GET', `/v1/coupons/${coupon.couponID}`, undefined, 404);
    await refused(stranger, 'PUT', `/v1/coupons/${coupon.couponID}`, { Name: 'x' }, 404);
    await refused(stranger, 'DELETE', `/v1/coupons/${coupon.couponID}`, undefined, 404);
    await refused(stranger, 'POST', `/v1/customers/${customerId}/coupons`, { Code: 'MINE' }, 404);
    await refused(stranger, 'GET', `/v1/customers/${customerId}/coupons`, undefined, 404);
    await refused(stranger, 'POST', `/v1/subscriptions/${sub.subscriptionID}/coupons`, { Code: 'MINE' }, 404);
    await refused(stranger, 'GET', `/v1/subscriptions/${sub.subscriptionID}/coupons`, undefined, 404);
    await refused(
      stranger,
      'DELETE',
      `/v1/customers/${customerId}/coupons/${redemption.couponRedemptionID}`,
      undefined,
      404,
    );
    expect((await ok(stranger, 'GET', '/v1/coupons')).map((c: any) => c.PercentOff)).toEqual(['50']);
    expect((await ok(owner, 'GET', `/v1/coupons/${coupon.couponID}`)).RedemptionCount).toBe(1);
  });
});
