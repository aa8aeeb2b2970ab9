import { describe, expect, it } from 'vitest';
import { billRecurringInvoice, listDueRecurringInvoiceIds } from '../../src/modules/invoicing/index.ts';
import { accountContext } from '../helpers/context.ts';
import type { TestAccount } from '../helpers/service.ts';
import {
  clock,
  create,
  day,
  other,
  otherCustomerID,
  read,
  setToday,
  t,
  useRecurringInvoiceService,
} from './recurringInvoices.fixtures.ts';

useRecurringInvoiceService();

describe('billRecurringInvoice (the bill run’s call)', () => {
  const invoicesOf = async (as: TestAccount, ids: number[]) =>
    Promise.all(ids.map(async (id) => (await as.request('GET', `/v1/invoices/${id}`)).body));

  async function billingAccount(name: string) {
    const account = await t.newAccount(name);
    const c = (
      await account.request('POST', '/v1/customers', { body: { Name: 'Bill', autoSendInvoice: false } })
    ).body.customerID;
    return { account, customerID: c, ctx: await accountContext(t, account.accountId, clock) };
  }

  it('makes one invoice per period with exact amounts, catches up missed periods, and never twice', async () => {
    setToday('2026-01-15');
    const { account, customerID: c, ctx } = await billingAccount('Billing');
    const ri = await create(
      {
        customerID: c,
        StartDate: '2026-01-31',
        InvoiceNotes: 'Monthly hosting',
        InvoiceTerms: 'Net 7',
        CollectionMethod: 'eft',
        Taxes: [{ Name: 'VAT', Perc: 0.15 }],
      },
      account,
    );
    const id = ri.recurInvoiceID;
    expect(await billRecurringInvoice(ctx, id)).toEqual([]);
    expect(await listDueRecurringInvoiceIds(ctx, '2026-01-30', 10)).toEqual([]);
    expect(await listDueRecurringInvoiceIds(ctx, '2026-01-31', 10)).toEqual([id]);

    setToday('2026-01-31');
    const first = await billRecurringInvoice(ctx, id);
    expect(first).toHaveLength(1);
    expect(await billRecurringInvoice(ctx, id)).toEqual([]);

    // Three months later: Feb 28 (clamped), Mar 31 and Apr 30, one invoice each, dated on the period's start.
    setToday('2026-04-30');
    const later = await billRecurringInvoice(ctx, id);
    expect(later).toHaveLength(3);
    expect(await billRecurringInvoice(ctx, id)).toEqual([]);
    expect(await listDueRecurringInvoiceIds(ctx, '2026-04-30', 10)).toEqual([]);

    const invoices = await invoicesOf(account, [...first, ...later]);
    expect(invoices.map((i: any) => i.InvoiceDate)).toEqual(
      ['2026-01-31', '2026-02-28', '2026-03-31', '2026-04-30'].map(day),
    );
    for (const invoice of invoices) {
      // 3 × 3.333 = 9.999 → 10.00 + VAT 1.50 = 11.50; 1 × 0.05 + VAT 0.0075 → 0.01 = 0.06; Total 11.56.
      expect(invoice).toMatchObject({
        customerID: c,
        CurrencyCode: 'USD',
        Source: 'Auto',
        isDraft: false,
        isCancelled: false,
        Notes: 'Monthly hosting',
        Terms: 'Net 7',
        CollectionMethod: 'eft',
        Total: 11.56,
        Taxes: [expect.objectContaining({ Name: 'VAT', Perc: 0.15 })],
      });
      expect(
        invoice.Charges.map((ch: any) => [ch.Descrip, ch.Qty, ch.UnitCostEx, ch.AmountEx, ch.AmountInc]),
      ).toEqual([
        ['Hosting', 3, 3.333, 10, 11.5],
        ['Support', 1, 0.05, 0.05, 0.06],
      ]);
    }
    expect(new Set(invoices.map((i: any) => i.invoiceNum)).size).toBe(4);

    expect(await read(id, account)).toMatchObject({
      lastInvDate: day('2026-04-30'),
      lastRenewDate: day('2026-04-30'),
      nextRenewDate: day('2026-05-31'),
      comp_Status: 'Active',
    });
    const periods = await t.service.storage.db
      .selectFrom('recurring_invoice_periods')
      .select(['period_no', 'period_start', 'period_end', 'invoice_id'])
      .where('recurring_invoice_id', '=', id)
      .orderBy('period_no')
      .execute();
    expect(periods).toEqual([
      { period_no: 1, period_start: '2026-01-31', period_end: '2026-02-28', invoice_id: first[0] },
      { period_no: 2, period_start: '2026-02-28', period_end: '2026-03-31', invoice_id: later[0] },
      { period_no: 3, period_start: '2026-03-31', period_end: '2026-04-30', invoice_id: later[1] },
      { period_no: 4, period_start: '2026-04-30', period_end: '2026-05-31', invoice_id: later[2] },
    ]);

    // Once it has made invoices: its schedule is fixed, it cannot be deleted; the same values sent back pass.
    const path = `/v1/recurring-invoices/${id}`;
    const moved = await account.request('PUT', path, { body: { StartDate: '2026-02-01' } });
    expect(moved.status).toBe(409);
    expect(moved.body.code).toBe('recurring_invoice_schedule_fixed');
    expect((await account.request('PUT', path, { body: { Term: 2 } })).status).toBe(409);
    expect(
      (
        await account.request('PUT', path, {
          body: { StartDate: '31 Jan 2026', Term: 1, TermType: 'months' },
        })
      ).status,
    ).toBe(204);
    expect((await account.request('PUT', path, { body: { EndDate: '2026-12-31' } })).status).toBe(204);
    const deleted = await account.request('DELETE', path);
    expect(deleted.status).toBe(409);
    expect(deleted.body.code).toBe('recurring_invoice_has_invoices');
  });

  it('bills the last period cut by the EndDate in full, then nothing more', async () => {
    setToday('2026-01-01');
    const { account, customerID: c, ctx } = await billingAccount('EndDate');
    const ri = await create(
      {
        customerID: c,
        StartDate: '2026-01-01',
        EndDate: '2026-02-15',
        RecurInvoiceCharges: [{ Descrip: 'Fee', Qty: 1, UnitCostEx: 100 }],
      },
      account,
    );
    setToday('2026-06-01');
    const ids = await billRecurringInvoice(ctx, ri.recurInvoiceID);
    const invoices = await invoicesOf(account, ids);
    expect(invoices.map((i: any) => [i.InvoiceDate, i.Total])).toEqual([
      [day('2026-01-01'), 100],
      [day('2026-02-01'), 100],
    ]);
    expect(await read(ri.recurInvoiceID, account)).toMatchObject({
      comp_Status: 'Expired',
      isExpired: true,
      nextRenewDate: null,
      lastRenewDate: day('2026-02-01'),
    });
    expect(await billRecurringInvoice(ctx, ri.recurInvoiceID)).toEqual([]);
  });

  it('dates invoices numDaysBeforeToInv ahead of their period', async () => {
    setToday('2026-01-01');
    const { account, customerID: c, ctx } = await billingAccount('Ahead');
    const ri = await create({ customerID: c, StartDate: '2026-02-01', numDaysBeforeToInv: 10 }, account);
    setToday('2026-01-21');
    expect(await billRecurringInvoice(ctx, ri.recurInvoiceID)).toEqual([]);
    setToday('2026-01-22');
    const ids = await billRecurringInvoice(ctx, ri.recurInvoiceID);
    expect((await invoicesOf(account, ids)).map((i: any) => i.InvoiceDate)).toEqual([day('2026-01-22')]);
    // The next period starts Mar 1; its invoice is due 10 days before, Feb 19.
    expect(await listDueRecurringInvoiceIds(ctx, '2026-02-18', 10)).toEqual([]);
    expect(await listDueRecurringInvoiceIds(ctx, '2026-02-19', 10)).toEqual([ri.recurInvoiceID]);
  });

  it('makes nothing while cancelled, or while the customer is suspended or archived, and skips the time cancelled', async () => {
    setToday('2026-01-01');
    const { account, customerID: c, ctx } = await billingAccount('Stops');
    const ri = await create({ customerID: c, StartDate: '2026-01-01' }, account);
    const id = ri.recurInvoiceID;
    const path = `/v1/recurring-invoices/${id}`;
    expect(await billRecurringInvoice(ctx, id)).toHaveLength(1);

    setToday('2026-02-01');
    await account.request('PUT', `/v1/customers/${c}/suspend`);
    expect(await listDueRecurringInvoiceIds(ctx, '2026-02-01', 10)).toEqual([]);
    expect(await billRecurringInvoice(ctx, id)).toEqual([]);
    await account.request('PUT', `/v1/customers/${c}/unsuspend`);
    await account.request('PUT', `/v1/customers/${c}/archive`);
    expect(await listDueRecurringInvoiceIds(ctx, '2026-02-01', 10)).toEqual([]);
    expect(await billRecurringInvoice(ctx, id)).toEqual([]);
    await account.request('PUT', `/v1/customers/${c}/reopen`);
    expect(await listDueRecurringInvoiceIds(ctx, '2026-02-01', 10)).toEqual([id]);

    await account.request('PUT', `${path}/cancel`);
    expect(await listDueRecurringInvoiceIds(ctx, '2026-02-01', 10)).toEqual([]);
    expect(await billRecurringInvoice(ctx, id)).toEqual([]);

    // Reactivated on Apr 15: Feb 1, Mar 1 and Apr 1 fell due while cancelled and are not billed; May 1 is next.
    setToday('2026-04-15');
    await account.request('PUT', `${path}/reactivate`);
    expect(await read(id, account)).toMatchObject({
      nextRenewDate: day('2026-05-01'),
      comp_Status: 'Active',
    });
    expect(await billRecurringInvoice(ctx, id)).toEqual([]);
    setToday('2026-05-01');
    const ids = await billRecurringInvoice(ctx, id);
    expect((await invoicesOf(account, ids)).map((i: any) => i.InvoiceDate)).toEqual([day('2026-05-01')]);
    const periodNos = await t.service.storage.db
      .selectFrom('recurring_invoice_periods')
      .select('period_no')
      .where('recurring_invoice_id', '=', id)
      .orderBy('period_no')
      .execute();
    expect(periodNos.map((p) => p.period_no)).toEqual([1, 5]);
  });

  it('bills each period once when called concurrently', async () => {
    setToday('2026-01-01');
    const { account, customerID: c, ctx } = await billingAccount('Concurrent');
    const ri = await create({ customerID: c, StartDate: '2026-01-01' }, account);
    setToday('2026-06-15');
    const results = await Promise.all(
      Array.from({ length: 4 }, () => billRecurringInvoice(ctx, ri.recurInvoiceID)),
    );
    expect(results.flat()).toHaveLength(6);
    expect(results.filter((ids) => ids.length > 0)).toHaveLength(1);
    const all = (await account.request('GET', `/v1/customers/${c}/invoices`)).body;
    expect(all.map((i: any) => i.InvoiceDate)).toEqual(
      ['2026-01-01', '2026-02-01', '2026-03-01', '2026-04-01', '2026-05-01', '2026-06-01'].map(day),
    );
  });

  it("answers not found for another account's recurring invoice", async () => {
    const theirs = await create({ customerID: otherCustomerID }, other);
    const ctx = await accountContext(t, t.accountId, clock);
    await expect(billRecurringInvoice(ctx, theirs.recurInvoiceID)).rejects.toMatchObject({
      code: 'recurring_invoice_not_found',
    });
  });
});
