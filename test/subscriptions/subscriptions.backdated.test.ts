import { describe, expect, it } from 'vitest';
import { createCustomer, createPlan, ok } from '../helpers/billing.ts';
import type { TestAccount } from '../helpers/service.ts';
import { useTestService } from '../helpers/testService.ts';

// A subscription starting more than one period ago is billed for every period up to today at once: its preview and
// its 201 warn of the catch-up, and subscription.backdated tells integrations (docs/spec-decisions.md,
// "Backdated subscriptions").

const t = useTestService();

const monthsBefore = (date: string, months: number) => {
  const d = new Date(`${date}T00:00:00.000Z`);
  d.setUTCMonth(d.getUTCMonth() - months);
  return d.toISOString().slice(0, 10);
};

/** A test account in UTC whose clock stands at noon on the first of next month, with a monthly plan and a customer. */
async function scene(): Promise<{ as: TestAccount; today: string; body: Record<string, unknown> }> {
  const as = await t.newAccount('Backdated', { isTest: true, timeZone: 'UTC' });
  const clock = ((await ok(as, 'GET', '/v1/account')).TestClockDate as string).slice(0, 10);
  const next = new Date(`${clock}T00:00:00.000Z`);
  next.setUTCMonth(next.getUTCMonth() + 1, 1);
  const today = next.toISOString().slice(0, 10);
  await ok(as, 'POST', '/v1/test-clock/advance', { To: `${today}T12:00:00.000Z` }, 200);
  const plan = await createPlan(as, { chargePrice: 30 });
  const customerId = await createCustomer(as, { Name: 'Late' });
  return {
    as,
    today,
    body: { customerID: customerId, packageID: plan.packageId, packageRateTermID: plan.rateTermId },
  };
}

const eventsOf = async (as: TestAccount, type: string) =>
  (await ok(as, 'GET', `/v1/events?type=${type}`)) as { data: { object: { subscriptionID: number } } }[];

describe('a subscription starting more than one period ago', () => {
  it('warns of the catch-up on its preview and its 201, and emits subscription.backdated', async () => {
    const { as, today, body } = await scene();
    const start = monthsBefore(today, 12);
    const warning = {
      code: 'catch_up',
      // The twelve missed months and the current one: 13 periods.
      message: `starts ${start}, more than one period ago: 13 periods will be billed now`,
    };
    const preview = await ok(
      as,
      'POST',
      '/v1/subscriptions?preview=true',
      { ...body, StartDate: start },
      200,
    );
    expect(preview.Warnings).toEqual([warning]);
    expect(preview.Invoices[0].Charges).toHaveLength(13);
    expect(await eventsOf(as, 'subscription.backdated')).toEqual([]);

    const created = await ok(as, 'POST', '/v1/subscriptions', { ...body, StartDate: start }, 201);
    expect(created.Warnings).toEqual([warning]);
    const events = await eventsOf(as, 'subscription.backdated');
    expect(events.map((event) => event.data.object.subscriptionID)).toEqual([created.subscriptionID]);
  });

  it('warns of nothing for a start within one period, answering exactly the spec fields', async () => {
    const { as, today, body } = await scene();
    const created = await ok(
      as,
      'POST',
      '/v1/subscriptions',
      { ...body, StartDate: monthsBefore(today, 1) },
      201,
    );
    expect(created).not.toHaveProperty('Warnings');
    const read = await ok(as, 'GET', `/v1/subscriptions/${created.subscriptionID}`);
    expect(Object.keys(created).sort()).toEqual(Object.keys(read).sort());
    const preview = await ok(
      as,
      'POST',
      '/v1/subscriptions?preview=true',
      { ...body, StartDate: today },
      200,
    );
    expect(preview).not.toHaveProperty('Warnings');
    expect(await eventsOf(as, 'subscription.backdated')).toEqual([]);
  });
});
