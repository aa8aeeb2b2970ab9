import { describe, expect, it } from 'vitest';
import { createCustomer, createPlan, invoicesOf, ok, subscribe } from '../helpers/billing.ts';
import type { TestAccount } from '../helpers/service.ts';
import { useTestService } from '../helpers/testService.ts';

// A subscription created with a start in the past bills the periods it missed on one invoice, a line per period
// with its service period, and sends one e-mail (docs/spec-decisions.md, "Subscription lifecycle and billing").

const t = useTestService();

/** The same day `months` earlier (the tests start on the 1st of a month, which every month has). */
const monthsBefore = (date: string, months: number) => {
  const d = new Date(`${date}T00:00:00.000Z`);
  d.setUTCMonth(d.getUTCMonth() - months);
  return d.toISOString().slice(0, 10);
};

/** A test account in UTC whose clock stands at noon on the first of next month. */
async function account(): Promise<{ as: TestAccount; today: string }> {
  const as = await t.newAccount('Catch-up', { isTest: true, timeZone: 'UTC' });
  const clock = ((await ok(as, 'GET', '/v1/account')).TestClockDate as string).slice(0, 10);
  const next = new Date(`${clock}T00:00:00.000Z`);
  next.setUTCMonth(next.getUTCMonth() + 1, 1);
  const today = next.toISOString().slice(0, 10);
  await ok(as, 'POST', '/v1/test-clock/advance', { To: `${today}T12:00:00.000Z` }, 200);
  return { as, today };
}

async function outboxCount(accountId: number): Promise<number> {
  const rows = await t.service.storage.db
    .selectFrom('mail_outbox')
    .select('id')
    .where('account_id', '=', accountId)
    .execute();
  return rows.length;
}

describe('a subscription started six months ago', () => {
  it('bills the six missed months and the current one on one invoice, a line per period, one e-mail', async () => {
    const { as, today } = await account();
    const plan = await createPlan(as, { chargePrice: 30 });
    const customerId = await createCustomer(as, { autoSendInvoice: true, Email: 'late@example.com' });
    const start = monthsBefore(today, 6);
    const before = await outboxCount(as.accountId);
    const subscription = await subscribe(as, customerId, plan, { StartDate: start });

    const invoices = await invoicesOf(as, customerId);
    expect(invoices).toHaveLength(1);
    const [invoice] = invoices;
    // Seven periods of 30.00: 210.00.
    expect(invoice.Total).toBe(210);
    expect(invoice.Charges).toHaveLength(7);
    // Each line's service period (printed on the PDF under the line; kept with the line).
    const lines = await t.service.storage.db
      .selectFrom('invoice_charges')
      .select(['period_start', 'period_end'])
      .where('invoice_id', '=', invoice.invoiceID)
      .orderBy('line')
      .execute();
    expect(lines.map((line) => [line.period_start, line.period_end])).toEqual(
      [6, 5, 4, 3, 2, 1, 0].map((back) => [monthsBefore(today, back), monthsBefore(today, back - 1)]),
    );
    expect(invoice.InvoiceDate.slice(0, 10)).toBe(today);
    expect(await outboxCount(as.accountId)).toBe(before + 1);

    // Each period keeps its own record: the next renewal bills the next month only.
    const read = await ok(as, 'GET', `/v1/subscriptions/${subscription.subscriptionID}`);
    expect(read.nextRenewDate.slice(0, 10)).toBe(monthsBefore(today, -1));
    await ok(as, 'POST', '/v1/test-clock/advance', { To: `${monthsBefore(today, -1)}T12:00:00.000Z` }, 200);
    const after = await invoicesOf(as, customerId);
    expect(after).toHaveLength(2);
    expect(after[1].Total).toBe(30);
  });

  it('?preview=true answers what creating it would bill, and creates nothing', async () => {
    const { as, today } = await account();
    const plan = await createPlan(as, { chargePrice: 30 });
    const customerId = await createCustomer(as);
    const preview = await ok(
      as,
      'POST',
      '/v1/subscriptions?preview=true',
      {
        customerID: customerId,
        packageID: plan.packageId,
        packageRateTermID: plan.rateTermId,
        StartDate: monthsBefore(today, 2),
      },
      200,
    );
    expect(preview.Subscription).toMatchObject({ customerID: customerId, comp_Status: 'Active' });
    expect(preview.Invoices).toHaveLength(1);
    expect(preview.Invoices[0]).toMatchObject({ Total: 90 });
    expect(preview.Invoices[0].Charges).toHaveLength(3);
    expect(await ok(as, 'GET', '/v1/subscriptions')).toHaveLength(0);
    expect(await invoicesOf(as, customerId)).toHaveLength(0);
    // A bad request is refused as the create would refuse it.
    const bad = await as.request('POST', '/v1/subscriptions?preview=true', {
      body: { customerID: customerId, packageID: plan.packageId, packageRateTermID: 999999 },
    });
    expect(bad.status).toBe(422);
  });
});
