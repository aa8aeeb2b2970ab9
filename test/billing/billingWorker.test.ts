import { PDFParse } from 'pdf-parse';
import { beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../helpers/service.ts';
import type { TestAccount } from '../helpers/service.ts';
import { createCustomer, createPlan, invoicesOf, movableClock, ok, subscribe } from '../helpers/billing.ts';
import { useTestService } from '../helpers/testService.ts';

// The bill run inside the service: the billing worker runs every 200 ms on the service's clock (a normal account,
// not a test account), and the mail worker delivers the invoices it makes to a real SMTP receiver.
const clock = movableClock('2026-05-01T10:00:00.000Z');
let shop: TestAccount;

const t = useTestService({ clock, env: { BILLING_INTERVAL_MS: '200' }, smtp: true });
const { smtp } = t;
beforeAll(async () => {
  shop = await t.newAccount('Worker Shop');
  await ok(shop, 'POST', '/v1/tax', { Name: 'VAT', rules: [{ Perc: 0.15 }] });
});

/** Bill runs started so far: each begins by listing the accounts. */
const billRuns = () => t.queries.filter((sql) => sql.includes('from "accounts" order by "id"')).length;

/** Waits until `count` more bill runs have run from start to end. */
async function afterBillRuns(count: number): Promise<void> {
  const seen = billRuns();
  // The run in progress now may have begun before the change under test: wait for one more to begin.
  await eventually(() => (billRuns() >= seen + count + 1 ? true : undefined));
}

const mailsTo = (address: string) =>
  smtp.messages.filter((m) => m.to.map((to) => to.toLowerCase()).includes(address.toLowerCase()));

/** The PDF attached to a raw MIME message. */
function pdfAttachment(raw: string): Buffer | undefined {
  const part = raw.split(/\r?\n--/).find((p) => /content-type:\s*application\/pdf/i.test(p));
  if (!part) return undefined;
  return Buffer.from(part.slice(part.search(/\r?\n\r?\n/)).replace(/\s+/g, ''), 'base64');
}

async function pdfText(pdf: Buffer): Promise<string> {
  const parser = new PDFParse({ data: new Uint8Array(pdf) });
  try {
    return (await parser.getText()).text;
  } finally {
    await parser.destroy();
  }
}

const periodsOf = async (subscriptionId: number) =>
  ((await ok(shop, 'GET', `/v1/subscriptions/${subscriptionId}/periods`)) as any[]).map((p) => [
    p.PeriodStart.slice(0, 10),
    p.PeriodEnd.slice(0, 10),
    p.invoiceID,
  ]);

describe('billing worker', () => {
  it('invoices a subscription once its first invoice is due, once, and e-mails the invoice with its PDF', async () => {
    const plan = await createPlan(shop, { chargePrice: 25 });
    const Email = 'worker-billed@example.com';
    const customerId = await createCustomer(shop, { Name: 'Grace', Email, autoSendInvoice: true });
    const sub = await subscribe(shop, customerId, plan, { StartDate: '2026-05-05' });
    expect(sub.comp_Status).toBe('Future');

    // Not due before May 5: the worker bills nothing.
    await afterBillRuns(2);
    expect(await invoicesOf(shop, customerId)).toEqual([]);

    clock.set('2026-05-05T08:00:00.000Z');
    const [invoice] = await eventually(async () => {
      const invoices = await invoicesOf(shop, customerId);
      return invoices.length > 0 ? invoices : undefined;
    });
    // 25.00 + 15% VAT 3.75 = 28.75, for May 5 – Jun 5.
    expect(invoice).toMatchObject({
      invoiceNum: 1,
      InvoiceDate: '2026-05-05T00:00:00.000Z',
      Source: 'Auto',
      isDraft: false,
      Total: 28.75,
      DateSent: '2026-05-05T08:00:00.000Z',
    });
    expect(await periodsOf(sub.subscriptionID)).toEqual([['2026-05-05', '2026-06-05', invoice.invoiceID]]);

    // Later rounds find the period billed: still one invoice, one e-mail.
    await afterBillRuns(4);
    expect((await invoicesOf(shop, customerId)).map((i) => i.invoiceID)).toEqual([invoice.invoiceID]);
    const mail = await eventually(() => mailsTo(Email)[0]);
    expect(mail.raw).toMatch(/Subject: Invoice 1 from Worker Shop/);
    expect(mail.raw).toContain('invoice-1.pdf');
    const text = await pdfText(pdfAttachment(mail.raw)!);
    expect(text).toContain('Invoice 1');
    expect(text).toContain('Total USD 28.75');
    await afterBillRuns(2);
    expect(mailsTo(Email)).toHaveLength(1);
    expect(await ok(shop, 'GET', `/v1/subscriptions/${sub.subscriptionID}`)).toMatchObject({
      lastInvDate: '2026-05-05T00:00:00.000Z',
      nextRenewDate: '2026-06-05T00:00:00.000Z',
      comp_nextInvDate: '2026-06-05T00:00:00.000Z',
    });
  });

  it('holds a suspended customer’s due subscription until the customer is unsuspended', async () => {
    const plan = await createPlan(shop, { chargePrice: 10 });
    const Email = 'worker-held@example.com';
    const customerId = await createCustomer(shop, { Name: 'Held', Email, autoSendInvoice: true });
    const sub = await subscribe(shop, customerId, plan, { StartDate: '2026-05-10' });
    await ok(shop, 'PUT', `/v1/customers/${customerId}/suspend`);

    clock.set('2026-05-12T10:00:00.000Z');
    await afterBillRuns(3);
    expect(await invoicesOf(shop, customerId)).toEqual([]);
    expect(await periodsOf(sub.subscriptionID)).toEqual([]);
    expect(mailsTo(Email)).toEqual([]);
    // Held, not parked: nothing is wrong with the subscription itself.
    expect(await ok(shop, 'GET', `/v1/subscriptions/${sub.subscriptionID}`)).toMatchObject({
      isParked: false,
      comp_nextInvDate: '2026-05-10T00:00:00.000Z',
    });

    await ok(shop, 'PUT', `/v1/customers/${customerId}/unsuspend`);
    const [invoice] = await eventually(async () => {
      const invoices = await invoicesOf(shop, customerId);
      return invoices.length > 0 ? invoices : undefined;
    });
    // Billed from its StartDate as if never held: May 10 – Jun 10, 10.00 + 15% = 11.50.
    expect(invoice).toMatchObject({ InvoiceDate: '2026-05-10T00:00:00.000Z', Total: 11.5 });
    await afterBillRuns(3);
    expect(await periodsOf(sub.subscriptionID)).toEqual([['2026-05-10', '2026-06-10', invoice.invoiceID]]);
    expect(await invoicesOf(shop, customerId)).toHaveLength(1);
    const mail = await eventually(() => mailsTo(Email)[0]);
    expect(mail.raw).toMatch(new RegExp(`Subject: Invoice ${invoice.invoiceNum} from Worker Shop`));
    await afterBillRuns(2);
    expect(mailsTo(Email)).toHaveLength(1);
  });
});
