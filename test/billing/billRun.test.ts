import { beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.ts';
import { runBilling } from '../../src/billing/billRun.ts';
import type { TestAccount } from '../helpers/service.ts';
import { createCustomer, createPlan, invoicesOf, movableClock, ok, subscribe } from '../helpers/billing.ts';
import { useTestService } from '../helpers/testService.ts';
import { advanceClock } from '../helpers/clock.ts';
import { modulePorts } from '../../src/modulePorts.ts';

// The service's clock; test accounts start their own clocks from it and then move only through the API.
const clock = movableClock('2026-01-31T10:00:00.000Z');
let shop: TestAccount;

const t = useTestService({ clock });
beforeAll(async () => {
  shop = await t.newAccount('Test shop', { isTest: true });
  await ok(shop, 'POST', '/v1/tax', { Name: 'VAT', rules: [{ Perc: 0.15 }] });
});

function billingDeps() {
  const s = t.service;
  return {
    db: s.storage.db,
    clock,
    wallClock: systemClock,
    log: s.log,
    secrets: s.secrets,
    mailQueued: () => {},
    ports: modulePorts(),
  };
}

describe('bill run and test clock', () => {
  it('bills a monthly subscription anchored on the 31st on the last day of shorter months, once per period', async () => {
    const plan = await createPlan(shop, { chargePrice: 30 });
    const customerId = await createCustomer(shop);
    const sub = await subscribe(shop, customerId, plan);
    expect(sub.comp_Status).toBe('Active');

    // Created on Jan 31 and started at once: the first term, Jan 31 – Feb 28, is invoiced now.
    let invoices = await invoicesOf(shop, customerId);
    expect(invoices).toHaveLength(1);
    // 30.00 + 15% VAT (4.50) = 34.50.
    expect(invoices[0]).toMatchObject({ Total: 34.5, Source: 'Auto', isDraft: false, invoiceNum: 1 });

    const moved = await advanceClock(shop, '2026-04-01T00:00:00Z');
    expect(moved).toMatchObject({ Today: '2026-04-01', Billed: { invoices: 2 } });
    invoices = await invoicesOf(shop, customerId);
    expect(invoices.map((i) => i.InvoiceDate)).toEqual([
      '2026-01-31T00:00:00.000Z',
      '2026-02-28T00:00:00.000Z',
      '2026-03-31T00:00:00.000Z',
    ]);
    expect(invoices.map((i) => i.invoiceNum)).toEqual([1, 2, 3]);

    const periods = await ok(shop, 'GET', `/v1/subscriptions/${sub.subscriptionID}/periods`);
    expect(periods.map((p: any) => [p.PeriodStart.slice(0, 10), p.PeriodEnd.slice(0, 10), p.Amount])).toEqual(
      [
        ['2026-01-31', '2026-02-28', 30],
        ['2026-02-28', '2026-03-31', 30],
        ['2026-03-31', '2026-04-30', 30],
      ],
    );

    const again = await runBilling(billingDeps(), { accountId: shop.accountId });
    expect(again.invoices).toBe(0);
    expect(await invoicesOf(shop, customerId)).toHaveLength(3);

    const fetched = await ok(shop, 'GET', `/v1/subscriptions/${sub.subscriptionID}`);
    expect(fetched).toMatchObject({
      lastInvDate: '2026-03-31T00:00:00.000Z',
      lastRenewDate: '2026-03-31T00:00:00.000Z',
      nextRenewDate: '2026-04-30T00:00:00.000Z',
      comp_nextInvDate: '2026-04-30T00:00:00.000Z',
    });
  });

  it('previews the next invoice with the code that will make it', async () => {
    const plan = await createPlan(shop, { chargePrice: 12.34 });
    const customerId = await createCustomer(shop);
    const sub = await subscribe(shop, customerId, plan);
    const upcoming = await ok(shop, 'GET', `/v1/subscriptions/${sub.subscriptionID}/upcoming-invoice`);
    expect(upcoming).toMatchObject({ invoiceID: null, invoiceNum: null });
    // 12.34 + 15% (1.851 → 1.85) = 14.19.
    expect(upcoming.Total).toBe(14.19);

    const clockNow = (await ok(shop, 'GET', '/v1/test-clock')).Now as string;
    const next = new Date(Date.parse(upcoming.InvoiceDate) + 3_600_000).toISOString();
    expect(next > clockNow).toBe(true);
    await advanceClock(shop, next);
    const invoices = await invoicesOf(shop, customerId);
    const made = invoices.at(-1);
    expect(made.InvoiceDate).toBe(upcoming.InvoiceDate);
    expect(made.Total).toBe(upcoming.Total);
    expect(made.Charges.map((c: any) => [c.Descrip, c.AmountEx, c.AmountInc])).toEqual(
      upcoming.Charges.map((c: any) => [c.Descrip, c.AmountEx, c.AmountInc]),
    );
  });

  it('parks a subscription whose record breaks an invariant instead of billing it', async () => {
    const plan = await createPlan(shop, { chargePrice: 5 });
    const customerId = await createCustomer(shop);
    const sub = await subscribe(shop, customerId, plan, { StartDate: '2026-06-01' });
    await t.service.storage.db
      .updateTable('subscriptions')
      .set({ term_type: 'weeks' })
      .where('id', '=', sub.subscriptionID)
      .execute();
    await advanceClock(shop, '2026-06-02T00:00:00Z');
    const parked = await ok(shop, 'GET', `/v1/subscriptions/${sub.subscriptionID}`);
    expect(parked.isParked).toBe(true);
    expect(parked.ParkedReason).toMatch(/invalid term 1 weeks/);
    expect(await invoicesOf(shop, customerId)).toHaveLength(0);
    expect((await shop.request('PUT', `/v1/subscriptions/${sub.subscriptionID}/reactivate`)).status).toBe(
      409,
    );

    // Unparked while still broken: parked again, nothing billed.
    await ok(shop, 'PUT', `/v1/subscriptions/${sub.subscriptionID}/unpark`);
    expect((await ok(shop, 'GET', `/v1/subscriptions/${sub.subscriptionID}`)).isParked).toBe(true);

    // Mended and unparked: billed at once for the period due.
    await t.service.storage.db
      .updateTable('subscriptions')
      .set({ term_type: 'months' })
      .where('id', '=', sub.subscriptionID)
      .execute();
    await ok(shop, 'PUT', `/v1/subscriptions/${sub.subscriptionID}/unpark`);
    expect(await ok(shop, 'GET', `/v1/subscriptions/${sub.subscriptionID}`)).toMatchObject({
      isParked: false,
      ParkedReason: null,
    });
    expect((await invoicesOf(shop, customerId)).map((i) => i.Total)).toEqual([5.75]);
    expect((await shop.request('PUT', `/v1/subscriptions/${sub.subscriptionID}/unpark`)).status).toBe(409);
  });

  it('parks a recurring invoice whose record breaks an invariant, and bills it once mended and unparked', async () => {
    const customerId = await createCustomer(shop);
    const recurring = await ok(shop, 'POST', '/v1/recurring-invoices', {
      customerID: customerId,
      StartDate: '2026-07-01',
      RecurInvoiceCharges: [{ Descrip: 'Retainer', Qty: 1, UnitCostEx: 100 }],
    });
    const path = `/v1/recurring-invoices/${recurring.recurInvoiceID}`;
    const setTermType = (termType: string) =>
      t.service.storage.db
        .updateTable('recurring_invoices')
        .set({ term_type: termType })
        .where('id', '=', recurring.recurInvoiceID)
        .execute();
    await setTermType('fortnights');
    await advanceClock(shop, '2026-07-02T00:00:00Z');
    expect(await ok(shop, 'GET', path)).toMatchObject({ isParked: true, ParkedReason: expect.any(String) });
    expect(await invoicesOf(shop, customerId)).toHaveLength(0);

    await setTermType('months');
    await ok(shop, 'PUT', `${path}/unpark`);
    expect((await ok(shop, 'GET', path)).isParked).toBe(false);
    await advanceClock(shop, '2026-07-03T00:00:00Z');
    expect((await invoicesOf(shop, customerId)).map((i) => i.Total)).toEqual([100]);
    expect((await shop.request('PUT', `${path}/unpark`)).status).toBe(409);
  });

  it('refuses to move the clock of an account that is not a test account, or backwards', async () => {
    const res = await t.request('POST', '/v1/test-clock/advance', { body: { To: '2027-01-01' } });
    expect(res.status).toBe(403);
    // The refusal says how to get an account whose clock moves, as every not_a_test_account answer does.
    expect(res.body).toMatchObject({ code: 'not_a_test_account' });
    expect(res.body.detail).toBe(
      'Only test accounts have a clock that can be moved; this account is live ' +
        '(make a test account with `billing account create --test`)',
    );
    const back = await shop.request('POST', '/v1/test-clock/advance', { body: { To: '2020-01-01' } });
    expect(back.status).toBe(422);
    expect(back.body.fields[0].field).toBe('To');
    const real = await ok(t, 'GET', '/v1/test-clock');
    expect(real).toMatchObject({ isTest: false, Now: clock.now().toISOString() });
  });
});
