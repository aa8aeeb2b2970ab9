import { describe, expect, it } from 'vitest';
import { createPlan, movableClock, ok } from '../helpers/billing.ts';
import type { TestAccount } from '../helpers/service.ts';
import { useTestService } from '../helpers/testService.ts';

// docs/portal.md, "Cancel with a way to stay": an account's cancel reasons and their offers through the API
// (GET and PUT /v1/account/retention), the coupons it may offer (IsRetention), what is refused (a problem naming
// the field, nothing saved), and another account's coupons and packages as unknown as missing ones.

const clock = movableClock('2026-03-01T10:00:00.000Z');
const t = useTestService({ clock });

async function refused(as: TestAccount, body: unknown) {
  const res = await as.request('PUT', '/v1/account/retention', { body });
  expect(res.status, res.text).toBe(422);
  return (res.body as { fields: { field: string; message: string }[] }).fields;
}

const coupon = (as: TestAccount, body: Record<string, unknown>) =>
  ok(as, 'POST', '/v1/coupons', { Name: 'Stay with us', Duration: 'once', PercentOff: 50, ...body });

describe('retention rules through the API', () => {
  it('start as the default reasons with no offers', async () => {
    const as = await t.newAccount('Defaults');
    const rules = await ok(as, 'GET', '/v1/account/retention');
    expect(rules.UpdatedAt).toBeNull();
    expect(rules.Reasons.map((r: any) => r.Code)).toEqual([
      'too_expensive',
      'not_using',
      'missing_features',
      'switching',
      'service',
      'other',
    ]);
    expect(rules.Reasons.every((r: any) => r.Offers.length === 0)).toBe(true);
  });

  it('are replaced with coupons marked IsRetention, packages and pauses, and read back', async () => {
    const as = await t.newAccount('Rules');
    const stay = await coupon(as, { Code: 'STAY50', IsRetention: true });
    expect(stay.IsRetention).toBe(true);
    const cheaper = await createPlan(as, { chargePrice: 10 });
    const body = {
      Reasons: [
        {
          Code: 'too_expensive',
          Label: 'It costs too much',
          Offers: [
            { Kind: 'coupon', couponID: stay.couponID },
            { Kind: 'package', packageID: cheaper.packageId, packageRateTermID: cheaper.rateTermId },
          ],
        },
        { Code: 'on_holiday', Label: 'We are away for a while', Offers: [{ Kind: 'pause' }] },
        { Code: 'other', Label: 'Another reason' },
      ],
    };
    const saved = await ok(as, 'PUT', '/v1/account/retention', body, 200);
    expect(saved.UpdatedAt).toBe('2026-03-01T10:00:00.000Z');
    expect(saved.Reasons).toEqual([
      {
        Code: 'too_expensive',
        Label: 'It costs too much',
        Offers: [
          { Kind: 'coupon', couponID: stay.couponID, packageID: null, packageRateTermID: null },
          {
            Kind: 'package',
            couponID: null,
            packageID: cheaper.packageId,
            packageRateTermID: cheaper.rateTermId,
          },
        ],
      },
      {
        Code: 'on_holiday',
        Label: 'We are away for a while',
        Offers: [{ Kind: 'pause', couponID: null, packageID: null, packageRateTermID: null }],
      },
      { Code: 'other', Label: 'Another reason', Offers: [] },
    ]);
    expect(await ok(as, 'GET', '/v1/account/retention')).toEqual(saved);
    // The flag is a coupon's field like PortalRedeemable: a PUT of the coupon without it clears it.
    const edited = await ok(as, 'PUT', `/v1/coupons/${stay.couponID}`, { Name: 'Stay' }, 200);
    expect(edited.IsRetention).toBe(false);
  });

  it('refuse what they cannot offer, naming each field, and save nothing', async () => {
    const as = await t.newAccount('Refusals');
    const plain = await coupon(as, { Code: 'PLAIN' });
    const archived = await coupon(as, { Code: 'OLD', IsRetention: true });
    await ok(as, 'DELETE', `/v1/coupons/${archived.couponID}`, undefined, 200);
    const plan = await createPlan(as);
    const other = await createPlan(as);
    const fields = await refused(as, {
      Reasons: [
        {
          Code: 'Too Expensive',
          Label: ' ',
          Offers: [
            { Kind: 'coupon', couponID: plain.couponID },
            { Kind: 'coupon', couponID: archived.couponID },
            { Kind: 'coupon' },
            { Kind: 'package', packageID: plan.packageId, packageRateTermID: other.rateTermId },
            { Kind: 'gift' },
          ],
        },
        { Code: 'late', Label: 'Late', Offers: [{ Kind: 'pause', couponID: plain.couponID }] },
        { Code: 'late', Label: 'Late again' },
      ],
    });
    expect(fields.map((f) => f.field)).toEqual([
      'Reasons[0].Code',
      'Reasons[0].Label',
      'Reasons[0].Offers[2].couponID',
      'Reasons[0].Offers[4].Kind',
      'Reasons[1].Offers[0].couponID',
      'Reasons[2].Code',
      'Reasons',
      'Reasons[0].Offers[0].couponID',
      'Reasons[0].Offers[1].couponID',
      'Reasons[0].Offers[3].packageRateTermID',
    ]);
    expect(fields.find((f) => f.field === 'Reasons')?.message).toBe('must include the reason other');
    expect(fields.find((f) => f.field === 'Reasons[0].Offers[0].couponID')?.message).toBe(
      'coupon PLAIN is not marked IsRetention',
    );
    expect(fields.find((f) => f.field === 'Reasons[0].Offers[1].couponID')?.message).toBe(
      'coupon OLD is archived',
    );
    expect((await ok(as, 'GET', '/v1/account/retention')).UpdatedAt).toBeNull();
  });

  it("treat another account's coupons and packages as unknown", async () => {
    const owner = await t.newAccount('Owner');
    const stay = await coupon(owner, { Code: 'MINE', IsRetention: true });
    const plan = await createPlan(owner);
    const stranger = await t.newAccount('Stranger');
    const fields = await refused(stranger, {
      Reasons: [
        {
          Code: 'other',
          Label: 'Another reason',
          Offers: [
            { Kind: 'coupon', couponID: stay.couponID },
            { Kind: 'package', packageID: plan.packageId, packageRateTermID: plan.rateTermId },
          ],
        },
      ],
    });
    expect(fields).toEqual([
      { field: 'Reasons[0].Offers[0].couponID', message: `no coupon ${stay.couponID}` },
      { field: 'Reasons[0].Offers[1].packageID', message: `no package ${plan.packageId}` },
    ]);
    expect(await ok(stranger, 'GET', '/v1/account/retention')).toMatchObject({ UpdatedAt: null });
  });
});
