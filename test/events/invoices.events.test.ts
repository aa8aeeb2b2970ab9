import { describe, expect, it } from 'vitest';
import type { TestAccount } from '../helpers/service.ts';
import { eventsOf, expectEvents, ok, read } from '../helpers/resourceEvents.ts';
import { useTestService } from '../helpers/testService.ts';

// Invoice and recurring-invoice events, triggered through the API and the bill run (a test account's clock), read
// back through GET /v1/events: the object as the API's GET shows it right after the change, `previous` for
// updates and status moves, versions counting up by one, timestamps on the account's clock.

const t = useTestService();

async function testAccount(name: string): Promise<{ account: TestAccount; clock: string }> {
  const account = await t.newAccount(name, { isTest: true });
  return { account, clock: (await read(account, '/v1/account')).TestClockDate as string };
}

async function newCustomer(account: TestAccount): Promise<number> {
  return (await ok(account, 'POST', '/v1/customers', { Name: 'Ada', Email: 'ada@example.com' })).customerID;
}

const invoiceBody = (customerID: number, extra: Record<string, unknown> = {}) => ({
  customerID,
  // 2 × 50.00 = 100.00, no tax.
  Charges: [{ Descrip: 'Consulting', Qty: 2, UnitCostEx: 50 }],
  ...extra,
});

const payment = (customerID: number, invoiceID: number, amount: number) => ({
  customerID,
  Amount: amount,
  CurrencyCode: 'USD',
  Date: '2026-03-05',
  Method: 'cash',
  allocations: [{ invoiceID, amountApplied: amount }],
});

describe('invoice events', () => {
  it('follow a draft through edit, finalize, send, a part payment and the payment that settles it', async () => {
    const { account, clock } = await testAccount('Invoice lifecycle');
    const customerID = await newCustomer(account);
    const created = await ok(account, 'POST', '/v1/invoices', invoiceBody(customerID, { isDraft: true }));
    const id = created.invoiceID as number;
    const path = `/v1/invoices/${id}`;
    const afterCreate = await read(account, path);
    await ok(account, 'PUT', path, { poNumber: 'PO-7' });
    const afterEdit = await read(account, path);
    await ok(account, 'PUT', `${path}/finalize`);
    const afterFinalize = await read(account, path);
    await ok(account, 'PUT', `${path}/send`);
    const afterSend = await read(account, path);
    await ok(account, 'POST', '/v1/payments', payment(customerID, id, 40));
    const afterPart = await read(account, path);
    const rest = await ok(account, 'POST', '/v1/payments', payment(customerID, id, 60));
    const afterPaid = await read(account, path);

    const events = await expectEvents(account, 'invoice', id, [
      'invoice.created',
      'invoice.updated',
      'invoice.finalized',
      'invoice.sent',
      'invoice.partially_paid',
      'invoice.paid',
    ]);
    const [create, edit, finalize, send, part, paid] = events;
    expect(create!.data).toEqual({ object: afterCreate });
    expect(edit!.data.object).toEqual(afterEdit);
    expect(edit!.data.previous).toMatchObject({ poNumber: null });
    expect(finalize!.data.object).toEqual(afterFinalize);
    expect(finalize!.data.previous).toMatchObject({ isDraft: true, invoiceNum: null, Status: 'Draft' });
    expect(send!.data).toEqual({ object: afterSend, previous: { DateSent: null } });
    expect(part!.data.object).toEqual(afterPart);
    // Money that only came in is told by the object alone (the invoice is not rendered before: docs/webhooks.md).
    expect(part!.data.previous).toBeUndefined();
    expect(paid!.data.object).toEqual(afterPaid);
    expect(paid!.data.previous).toBeUndefined();
    for (const event of events) expect(event.timestamp).toBe(clock);

    // The payment that paid it has its own event, written in the same change.
    const [paymentCreated] = await expectEvents(account, 'payment', rest.paymentID, ['payment.created']);
    expect(paymentCreated!.data).toEqual({ object: await read(account, `/v1/payments/${rest.paymentID}`) });
  });

  it('issue a draft edited with isDraft false as updated and finalized from one previous', async () => {
    const { account } = await testAccount('Invoice issued by edit');
    const customerID = await newCustomer(account);
    const { invoiceID } = await ok(
      account,
      'POST',
      '/v1/invoices',
      invoiceBody(customerID, { isDraft: true }),
    );
    await ok(account, 'PUT', `/v1/invoices/${invoiceID}`, { isDraft: false, Notes: 'Thanks' });
    const after = await read(account, `/v1/invoices/${invoiceID}`);
    const [, updated, finalized] = await expectEvents(account, 'invoice', invoiceID, [
      'invoice.created',
      'invoice.updated',
      'invoice.finalized',
    ]);
    expect(updated!.data.object).toEqual(after);
    expect(finalized!.data.object).toEqual(after);
    expect(updated!.data.previous).toEqual(finalized!.data.previous);
    expect(finalized!.data.previous).toMatchObject({ isDraft: true, Status: 'Draft' });
  });

  it('announce a cancelled invoice and a deleted draft, whose object is the draft as it was', async () => {
    const { account } = await testAccount('Invoice cancel and delete');
    const customerID = await newCustomer(account);
    const issued = await ok(account, 'POST', '/v1/invoices', invoiceBody(customerID));
    await ok(account, 'DELETE', `/v1/invoices/${issued.invoiceID}`);
    const cancelled = await read(account, `/v1/invoices/${issued.invoiceID}`);
    const [, cancel] = await expectEvents(account, 'invoice', issued.invoiceID, [
      'invoice.created',
      'invoice.cancelled',
    ]);
    expect(cancel!.data.object).toEqual(cancelled);
    expect(cancel!.data.previous).toMatchObject({ isCancelled: false, Status: 'Due' });

    const draft = await ok(account, 'POST', '/v1/invoices', invoiceBody(customerID, { isDraft: true }));
    const asItWas = await read(account, `/v1/invoices/${draft.invoiceID}`);
    await ok(account, 'DELETE', `/v1/invoices/${draft.invoiceID}`);
    const [, deleted] = await expectEvents(account, 'invoice', draft.invoiceID, [
      'invoice.created',
      'invoice.deleted',
    ]);
    expect(deleted!.data).toEqual({ object: asItWas });
  });

  it('are not written by a change that fails', async () => {
    const { account } = await testAccount('Invoice refusals');
    const customerID = await newCustomer(account);
    const issued = await ok(account, 'POST', '/v1/invoices', invoiceBody(customerID));
    expect((await account.request('PUT', `/v1/invoices/${issued.invoiceID}/finalize`)).status).toBe(409);
    expect(
      (await account.request('PUT', `/v1/invoices/${issued.invoiceID}`, { body: { Notes: 'x' } })).status,
    ).toBe(409);
    // Over-allocating is refused: neither the payment nor the invoice has an event of it.
    const over = await account.request('POST', '/v1/payments', {
      body: payment(customerID, issued.invoiceID, 500),
    });
    expect(over.status).toBe(422);
    await expectEvents(account, 'invoice', issued.invoiceID, ['invoice.created']);
    expect(await read(account, '/v1/events?type=payment.*')).toEqual([]);
    const refused = await account.request('POST', '/v1/invoices', {
      body: invoiceBody(customerID, { CurrencyCode: 'XXX' }),
    });
    expect(refused.status).toBe(422);
    expect(await read(account, '/v1/events?type=invoice.created')).toHaveLength(1);
  });

  it('of another account are not listed', async () => {
    const { account } = await testAccount('Invoice owner');
    const other = await t.newAccount('Invoice stranger');
    const customerID = await newCustomer(account);
    const { invoiceID } = await ok(account, 'POST', '/v1/invoices', invoiceBody(customerID));
    expect(await eventsOf(other, 'invoice', invoiceID)).toEqual([]);
  });
});

describe('recurring invoice events', () => {
  it('announce create, edit, cancel, reactivate and delete', async () => {
    const { account } = await testAccount('Recurring lifecycle');
    const customerID = await newCustomer(account);
    const clock = (await read(account, '/v1/account')).TestClockDate as string;
    const start = new Date(Date.parse(clock) + 40 * 86_400_000).toISOString().slice(0, 10);
    const created = await ok(account, 'POST', '/v1/recurring-invoices', {
      customerID,
      StartDate: start,
      Term: 1,
      TermType: 'months',
      RecurInvoiceCharges: [{ Descrip: 'Hosting', Qty: 1, UnitCostEx: 10 }],
    });
    const id = created.recurInvoiceID as number;
    const path = `/v1/recurring-invoices/${id}`;
    const afterCreate = await read(account, path);
    await ok(account, 'PUT', path, { Reference: 'HOST-1' });
    const afterEdit = await read(account, path);
    await ok(account, 'PUT', `${path}/cancel`);
    const afterCancel = await read(account, path);
    await ok(account, 'PUT', `${path}/reactivate`);
    const afterReactivate = await read(account, path);
    await ok(account, 'DELETE', path);

    const [create, edit, cancel, reactivate, deleted] = await expectEvents(account, 'recurring_invoice', id, [
      'recurring_invoice.created',
      'recurring_invoice.updated',
      'recurring_invoice.cancelled',
      'recurring_invoice.reactivated',
      'recurring_invoice.deleted',
    ]);
    expect(create!.data).toEqual({ object: afterCreate });
    expect(edit!.data.object).toEqual(afterEdit);
    expect(edit!.data.previous).toMatchObject({ Reference: null });
    expect(cancel!.data.object).toEqual(afterCancel);
    expect(cancel!.data.previous).toMatchObject({ comp_Status: 'Future', isCancelled: false });
    expect(reactivate!.data.object).toEqual(afterReactivate);
    expect(reactivate!.data.previous).toMatchObject({ comp_Status: 'Cancelled' });
    expect(deleted!.data).toEqual({ object: afterReactivate });
  });

  it('announce each invoice the bill run makes from it as renewed, with the invoice created', async () => {
    const { account, clock } = await testAccount('Recurring renewals');
    const customerID = await newCustomer(account);
    const today = clock.slice(0, 10);
    const { recurInvoiceID } = await ok(account, 'POST', '/v1/recurring-invoices', {
      customerID,
      StartDate: today,
      Term: 1,
      TermType: 'months',
      RecurInvoiceCharges: [{ Descrip: 'Hosting', Qty: 1, UnitCostEx: 10 }],
    });
    // An hour on, but never past the end of the day: the next day would make the invoice past due as well.
    const endOfDay = Date.parse(`${today}T23:59:59.000Z`);
    const to = new Date(
      Math.min(Date.parse(clock) + 3_600_000, Math.max(endOfDay, Date.parse(clock) + 1)),
    ).toISOString();
    await ok(account, 'POST', '/v1/test-clock/advance', { To: to });
    const invoices = (await read(account, `/v1/customers/${customerID}/invoices`)) as any[];
    expect(invoices).toHaveLength(1);
    const [, renewed] = await expectEvents(account, 'recurring_invoice', recurInvoiceID, [
      'recurring_invoice.created',
      'recurring_invoice.renewed',
    ]);
    expect(renewed!.data.object).toEqual(await read(account, `/v1/recurring-invoices/${recurInvoiceID}`));
    expect(renewed!.data.previous).toMatchObject({ lastInvDate: null });
    // The customer has autoSendInvoice and an e-mail: the bill run sent it too.
    const [made, sent] = await expectEvents(account, 'invoice', invoices[0].invoiceID, [
      'invoice.created',
      'invoice.sent',
    ]);
    // Created before it was sent: the sending is the next event's.
    expect(made!.data.object).toEqual({ ...invoices[0], DateSent: null });
    expect(sent!.data.object).toEqual(invoices[0]);
    expect(made!.timestamp).toBe(to);
  });
});
