import { describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.ts';
import type { ServiceContext } from '../../src/context.ts';
import { serviceMemory } from '../../src/context.ts';
import { getAccount } from '../../src/modules/auth/index.ts';
import { insertInvoices, queueInvoiceMails } from '../../src/modules/invoicing/index.ts';
import type { NewInvoice } from '../../src/modules/invoicing/index.ts';
import { eventually } from '../helpers/service.ts';
import type { TestAccount } from '../helpers/service.ts';
import {
  clock,
  createInvoice,
  db,
  mailsTo,
  newCustomer,
  pdfAttachment,
  pdfText,
  read,
  setAccount,
  t,
  uniqueEmail,
  useInvoiceService,
} from './invoices.fixtures.ts';
import { modulePorts } from '../../src/modulePorts.ts';

useInvoiceService();

describe('PUT /v1/invoices/{invoiceID}/send', () => {
  it('e-mails the invoice with its PDF to Email and EmailCC and sets DateSent', async () => {
    const Email = uniqueEmail('send');
    const EmailCC = uniqueEmail('cc');
    const customer = await newCustomer(t, { Name: 'Alan', Email, EmailCC });
    const invoice = await createInvoice({
      customerID: customer.customerID,
      // 3 × 3.333 = 10.00, VAT 1.50: Total 11.50.
      Charges: [{ Descrip: 'Widgets', Qty: 3, UnitCostEx: 3.333 }],
      Taxes: [{ Name: 'VAT', Perc: 0.15 }],
    });
    const res = await t.request('PUT', `/v1/invoices/${invoice.invoiceID}/send`);
    expect(res.status).toBe(204);
    expect((await read(invoice.invoiceID)).DateSent).toBe('2026-03-10T10:00:00.000Z');

    const mail = await eventually(() => mailsTo(Email)[0]);
    expect(mail.to.map((a) => a.toLowerCase()).sort()).toEqual(
      [Email, EmailCC].map((a) => a.toLowerCase()).sort(),
    );
    expect(mail.raw).toMatch(new RegExp(`Subject: Invoice ${invoice.invoiceNum} from Test Account`));
    const pdf = pdfAttachment(mail.raw);
    expect(pdf, 'a PDF attachment').toBeDefined();
    expect(mail.raw).toContain(`invoice-${invoice.invoiceNum}.pdf`);
    const text = await pdfText(new Uint8Array(pdf!));
    expect(text).toContain(`Invoice ${invoice.invoiceNum}`);
    expect(text).toContain('Total USD 11.50');
  });

  it('answers 409 for a draft or a cancelled invoice and 422 when the customer has no e-mail', async () => {
    const withEmail = await newCustomer(t, { Email: uniqueEmail('nosend') });
    const draft = await createInvoice({ customerID: withEmail.customerID, isDraft: true });
    const toDraft = await t.request('PUT', `/v1/invoices/${draft.invoiceID}/send`);
    expect(toDraft.status).toBe(409);
    expect(toDraft.body.code).toBe('invoice_draft');
    const cancelled = await createInvoice({ customerID: withEmail.customerID });
    await t.request('DELETE', `/v1/invoices/${cancelled.invoiceID}`);
    expect((await t.request('PUT', `/v1/invoices/${cancelled.invoiceID}/send`)).status).toBe(409);

    const without = await newCustomer();
    const invoice = await createInvoice({ customerID: without.customerID });
    const res = await t.request('PUT', `/v1/invoices/${invoice.invoiceID}/send`);
    expect(res.status).toBe(422);
    expect(res.body.fields).toEqual([
      {
        field: 'Customer.Email',
        message: `customer ${without.customerID} has no e-mail address to send the invoice to`,
      },
    ]);
    expect((await read(invoice.invoiceID)).DateSent).toBeNull();
    expect((await t.request('PUT', '/v1/invoices/987654321/send')).status).toBe(404);
  });
});

describe('internal API for the bill run', () => {
  async function contextOf(account: TestAccount): Promise<ServiceContext> {
    return {
      ports: modulePorts(),
      account: await getAccount(db(), account.accountId),
      db: db(),
      clock,
      wallClock: systemClock,
      log: t.service.log,
      secrets: t.service.secrets,
      mailQueued: () => {},
      memory: serviceMemory(),
    };
  }

  it('inserts invoices in one go, numbers the issued ones, and queues the e-mails of customers who want them', async () => {
    const account = await t.newAccount('Bill Run');
    await setAccount(account, { invoice_due_days: 14, invoice_terms: 'Pay in 14 days' });
    const wantsMail = await newCustomer(account, { Email: uniqueEmail('auto'), autoSendInvoice: true });
    const noMail = await newCustomer(account, { Email: uniqueEmail('manual'), autoSendInvoice: false });
    const noAddress = await newCustomer(account, { autoSendInvoice: true });
    const ctx = await contextOf(account);
    const make = (customerId: number, isDraft: boolean): NewInvoice => ({
      customerId,
      currencyCode: 'USD',
      invoiceDate: '2026-03-10',
      source: 'Auto',
      isDraft,
      charges: [
        {
          descrip: 'Plan, March',
          qty: '1',
          unitCostEx: '19.99',
          periodStart: '2026-03-01',
          periodEnd: '2026-03-31',
        },
        { descrip: 'Seats', qty: '2.5', unitCostEx: '4' },
      ],
      taxes: [{ name: 'VAT', perc: '0.15' }],
    });
    const input = [
      make(wantsMail.customerID, false),
      make(noMail.customerID, false),
      make(wantsMail.customerID, true),
      make(noAddress.customerID, false),
    ];
    let ids: number[] = [];
    await db()
      .transaction()
      .execute(async (trx) => {
        const inTrx = { ...ctx, db: trx };
        ids = await insertInvoices(inTrx, input);
        await queueInvoiceMails(inTrx, ids);
      });
    const invoices = await Promise.all(ids.map((id) => read(id, account)));
    expect(invoices.map((i) => [i.customerID, i.invoiceNum, i.isDraft, i.Source])).toEqual([
      [wantsMail.customerID, 1, false, 'Auto'],
      [noMail.customerID, 2, false, 'Auto'],
      [wantsMail.customerID, null, true, 'Auto'],
      [noAddress.customerID, 3, false, 'Auto'],
    ]);
    // 19.99 + 10.00 = 29.99; VAT 3.00 + 1.50 = 4.50 (19.99 × 0.15 = 2.9985 → 3.00); Total 34.49.
    expect(invoices[0]).toMatchObject({
      Total: 34.49,
      DueDate: '2026-03-24T00:00:00.000Z',
      Terms: 'Pay in 14 days',
      DateSent: '2026-03-10T10:00:00.000Z',
    });
    expect(invoices.slice(1).map((i) => i.DateSent)).toEqual([null, null, null]);

    const mail = await eventually(() => mailsTo(wantsMail.Email)[0]);
    const text = await pdfText(new Uint8Array(pdfAttachment(mail.raw)!));
    expect(text).toContain('Invoice 1');
    expect(text).toContain('Total USD 34.49');
    expect(mailsTo(noMail.Email)).toEqual([]);
  });
});
