import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createPlan, ok, subscribe } from '../helpers/billing.ts';
import { fetchInvoicePdf } from '../helpers/invoices.ts';
import type { TestAccount } from '../helpers/service.ts';
import { clock, createInvoice, newCustomer, t, useInvoiceService } from './invoices.fixtures.ts';
import { jpegLogo, pngLogo, pngSize, renderPdf } from './pdf.fixtures.ts';
import type { Rendered } from './pdf.fixtures.ts';

useInvoiceService();

/**
 * Every variant of the invoice PDF rendered to PNG (test-output/pdf/, for a person to look at) and read back with
 * poppler: each block a tax invoice needs must be there, in the embedded fonts, on the right page.
 */
const SELLER = {
  LegalName: 'Acme Billing (Pty) Ltd',
  AddressLine1: '12 Loop Street',
  AddressLine2: 'Suite 4',
  City: 'Cape Town',
  PostalCode: '8001',
  countryID: 710,
  TaxNumber: '4123456789',
  CompanyNumber: '2019/123456/07',
  ContactEmail: 'accounts@acme.example',
  ContactPhone: '+27 21 555 0100',
  PaymentInstructions: 'Bank: First National Bank\nAccount: 62812345678\nBranch code: 250655',
};

async function pdfOf(invoiceID: number, as: TestAccount = t): Promise<Buffer> {
  const pdf = await fetchInvoicePdf(t.url, as, invoiceID);
  expect(pdf.status).toBe(200);
  return pdf.body;
}

async function sellerAccount(name: string, logo?: Buffer): Promise<TestAccount> {
  const account = await t.newAccount(name);
  await ok(
    account,
    'PUT',
    '/v1/account',
    { ...SELLER, ...(logo ? { Logo: logo.toString('base64') } : {}) },
    204,
  );
  return account;
}

function expectBlocks(rendered: Rendered, blocks: string[]): void {
  // pdftotext keeps each cell's words together but may space columns apart: compare with runs of spaces as one.
  const text = rendered.text.replace(/[ \t]+/g, ' ');
  for (const block of blocks) expect(text, `"${block}" in:\n${rendered.text}`).toContain(block);
}

function expectA4Pages(rendered: Rendered, count: number): void {
  expect(rendered.pages).toHaveLength(count);
  for (const page of rendered.pages) {
    // A4 at 100 dpi: 8.27 × 11.69 in.
    expect(pngSize(page)).toEqual({ width: 827, height: 1170 });
    expect(fs.statSync(page).size).toBeGreaterThan(10_000);
  }
}

const SELLER_BLOCK = [
  'Acme Billing (Pty) Ltd',
  '12 Loop Street',
  'Suite 4',
  '8001 Cape Town',
  'South Africa',
  'Tax number: 4123456789',
  'Company number: 2019/123456/07',
  'accounts@acme.example',
  '+27 21 555 0100',
];
const PAYMENT_BLOCK = [
  'Payment instructions',
  'Bank: First National Bank',
  'Account: 62812345678',
  'Branch code: 250655',
];

describe('invoice PDF variants, rendered and read back', () => {
  it('an open subscription invoice: seller with logo, customer with VAT number and country from countryID, service period', async () => {
    clock.set('2026-12-01T09:00:00.000Z');
    const account = await sellerAccount('Acme', pngLogo());
    await ok(account, 'POST', '/v1/tax', { Name: 'VAT', rules: [{ Perc: 0.15 }] });
    const customer = await newCustomer(account, {
      Name: 'Zażółć',
      LastName: 'Gęślą-Jaźń',
      Company: 'Łódź Widgets sp. z o.o.',
      VatNo: 'PL5260250995',
      Address1: 'ul. Świętokrzyska 12',
      City: 'Warszawa',
      ZipCode: '00-916',
      countryID: 616,
      Email: 'biuro@lodz.example',
    });
    const plan = await createPlan(account, { chargePrice: 25 });
    await subscribe(account, customer.customerID, plan);
    const [invoice] = (await ok(account, 'GET', `/v1/customers/${customer.customerID}/invoices`)) as any[];
    // 25.00 + 15% VAT 3.75 = 28.75, nothing paid, due today: open, no mark.
    expect(invoice).toMatchObject({ Total: 28.75 });

    const rendered = renderPdf(await pdfOf(invoice.invoiceID, account), 'open-subscription');
    expectA4Pages(rendered, 1);
    expectBlocks(rendered, [
      ...SELLER_BLOCK,
      'TAX INVOICE',
      `Invoice ${invoice.invoiceNum}`,
      'Invoice date: 1 Dec 2026',
      'Bill to',
      'Łódź Widgets sp. z o.o.',
      'Attn: Zażółć Gęślą-Jaźń',
      'Tax number: PL5260250995',
      'ul. Świętokrzyska 12',
      'Warszawa, 00-916',
      'Poland',
      // The monthly term [1 Dec, 1 Jan) names its last day.
      '1 Dec 2026 – 31 Dec 2026',
      'Subtotal (excl. tax) 25.00',
      'VAT (15%) 3.75',
      'Total USD 28.75',
      'Balance due USD 28.75',
      ...PAYMENT_BLOCK,
      'Page 1 of 1',
    ]);
    for (const mark of ['PAID', 'OVERDUE', 'CANCELLED', 'DRAFT']) expect(rendered.text).not.toContain(mark);
    expect(rendered.images).toEqual([{ width: 240, height: 80 }]);
    expect(rendered.fonts.every((font) => /^[A-Z]{6}\+DejaVuSans(-Bold)?$/.test(font))).toBe(true);
  });

  it('paid, overdue, cancelled and draft invoices carry their mark; credit lines and several tax rates add up', async () => {
    clock.set('2026-12-01T09:00:00.000Z');
    const account = await sellerAccount(
      'Acme marks',
      jpegLogo(await pdfOf((await firstInvoice()).invoiceID)),
    );
    const { customerID } = await newCustomer(account, {
      Name: 'Olga',
      Company: 'Ромашка ООО',
      countryID: 643,
    });
    const twoRates = {
      customerID,
      InvoiceDate: '2026-11-01',
      DueDate: '2026-11-15',
      // 2 × 50.00 = 100.00 (VAT 15.00, Levy 1.00); credit −10.00 (VAT −1.50, Levy −0.10).
      // VAT 13.50, Levy 0.90; Total 90.00 + 14.40 = 104.40.
      Charges: [
        { Descrip: 'Consulting', Qty: 2, UnitCostEx: 50 },
        { Descrip: 'Loyalty credit', Qty: 1, UnitCostEx: -10 },
      ],
      Taxes: [
        { Name: 'VAT', Perc: 0.15 },
        { Name: 'Levy', Perc: 0.01 },
      ],
      Notes: 'Thank you for your business.',
      Terms: 'Payable within 14 days.',
    };
    const overdue = await createInvoice(twoRates, account);
    expect(overdue.Total).toBe(104.4);
    const paid = await createInvoice(twoRates, account);
    await ok(account, 'POST', '/v1/payments', {
      customerID,
      Amount: 104.4,
      CurrencyCode: 'USD',
      Date: '2026-11-10',
      Method: 'eft',
      allocations: [{ invoiceID: paid.invoiceID, amountApplied: 104.4 }],
    });
    const cancelled = await createInvoice(twoRates, account);
    await ok(account, 'DELETE', `/v1/invoices/${cancelled.invoiceID}`, undefined, 204);
    const draft = await createInvoice({ ...twoRates, isDraft: true }, account);

    const common = [
      ...SELLER_BLOCK,
      'Ромашка ООО',
      'Olga',
      'Russian Federation',
      'Consulting 2 50.00 100.00 116.00',
      'Loyalty credit 1 -10.00 -10.00 -11.60',
      'Subtotal (excl. tax) 90.00',
      'VAT (15%) 13.50',
      'Levy (1%) 0.90',
      'Total USD 104.40',
      'Notes',
      'Thank you for your business.',
      'Terms',
      'Payable within 14 days.',
      ...PAYMENT_BLOCK,
    ];
    const variants = [
      ['overdue', overdue, 'OVERDUE', ['Balance due USD 104.40']],
      ['paid', paid, 'PAID', ['Paid \u2212104.40', 'Balance due USD 0.00']],
      ['cancelled', cancelled, 'CANCELLED', []],
      ['draft', draft, 'DRAFT', ['Draft invoice']],
    ] as const;
    for (const [name, invoice, mark, extra] of variants) {
      const rendered = renderPdf(await pdfOf(invoice.invoiceID, account), name);
      expectA4Pages(rendered, 1);
      expectBlocks(rendered, [...common, ...extra]);
      const marks = ['PAID', 'OVERDUE', 'CANCELLED', 'DRAFT'].filter((m) =>
        new RegExp(`\\b${m}\\b`).test(rendered.text),
      );
      expect(marks, name).toEqual([mark]);
      // The JPEG logo: a page that poppler scaled to 200 pixels high.
      expect(rendered.images).toHaveLength(1);
      expect(rendered.images[0]!.height).toBe(200);
    }
  });

  it('without seller details or logo: the account name heads the invoice and nothing is left blank', async () => {
    const account = await t.newAccount('Bare Account');
    const { customerID } = await newCustomer(account, { Name: 'Ada' });
    const invoice = await createInvoice(
      { customerID, InvoiceDate: '2026-12-01', DueDate: '2026-12-31' },
      account,
    );
    const rendered = renderPdf(await pdfOf(invoice.invoiceID, account), 'no-seller-details');
    expectA4Pages(rendered, 1);
    expectBlocks(rendered, [
      'Bare Account',
      'INVOICE',
      `Invoice ${invoice.invoiceNum}`,
      'Bill to',
      'Ada',
      'Consulting 2 50.00 100.00 100.00',
    ]);
    expect(rendered.text).not.toMatch(/TAX INVOICE|Tax number|Payment instructions|undefined|null/);
    expect(rendered.images).toEqual([]);
  });

  it('the longest values the API takes wrap inside their blocks without overlapping the next', async () => {
    const account = await t.newAccount('Long values');
    const longWords = (n: number) => Array.from({ length: n }, (_, i) => `word${i}`).join(' ');
    await ok(
      account,
      'PUT',
      '/v1/account',
      {
        ...SELLER,
        LegalName: longWords(30).slice(0, 200),
        AddressLine1: longWords(30).slice(0, 200),
        Logo: pngLogo(2000, 200).toString('base64'),
      },
      204,
    );
    const { customerID } = await newCustomer(account, {
      Name: 'N'.repeat(60),
      Company: longWords(20).slice(0, 100),
    });
    const reference = 'R'.repeat(100);
    const descrip = longWords(150).slice(0, 1000);
    const invoice = await createInvoice(
      { customerID, Reference: reference, Charges: [{ Descrip: descrip, Qty: 1, UnitCostEx: 1 }] },
      account,
    );
    const rendered = renderPdf(await pdfOf(invoice.invoiceID, account), 'long-values');
    // The header blocks fill most of page 1, so the table starts on page 2 whole: no header left alone.
    expectA4Pages(rendered, 2);
    const [first, second] = rendered.text.split('\f');
    expect(first).not.toContain('Description');
    expect(second).toMatch(/Description\s+Qty[^\n]*\n\s*word0 word1/);
    // Every word of the description is printed once, in order.
    const printed = rendered.text.match(/word\d+/g)!.join(' ');
    expect(printed).toContain(descrip.split(' ').slice(0, -1).join(' '));
    // The unbroken reference is cut over lines of its column, none of it lost.
    expect((rendered.text.match(/R{5,}/g) ?? []).join('')).toBe(reference);
    expectBlocks(rendered, ['Total USD 1.00', 'Bill to']);
  });

  it('a long invoice flows over pages: the header repeats, every line is there once, the totals end it', async () => {
    const account = await sellerAccount('Acme long', pngLogo());
    const { customerID } = await newCustomer(account, { Name: 'Long', LastName: 'Customer' });
    const charges = Array.from({ length: 70 }, (_, i) => ({
      Descrip: `Line ${i + 1}: ${i % 7 === 0 ? 'a long description that has to wrap over more than one line of its column so rows grow taller' : 'Widget'}`,
      Qty: i + 1,
      UnitCostEx: 1.25,
    }));
    const invoice = await createInvoice({ customerID, Charges: charges }, account);
    // Σ (i × 1.25) for i = 1..70 = 1.25 × 2485 = 3106.25.
    expect(invoice.Total).toBe(3106.25);
    const rendered = renderPdf(await pdfOf(invoice.invoiceID, account), 'long');
    const pages = rendered.text
      .split('\f')
      .filter((page) => page.trim() !== '')
      .map((page) => page.replace(/[ \t]+/g, ' '));
    expect(pages.length).toBeGreaterThanOrEqual(3);
    expectA4Pages(rendered, pages.length);
    pages.forEach((page, i) => {
      expect(page, `page ${i + 1}`).toContain('Description');
      expect(page).toContain(`Page ${i + 1} of ${pages.length}`);
    });
    const text = rendered.text.replace(/[ \t]+/g, ' ');
    for (let i = 1; i <= 70; i += 1)
      expect(text.match(new RegExp(`Line ${i}:`, 'g')), `Line ${i}`).toHaveLength(1);
    expect(pages.at(-1)).toContain('Total USD 3,106.25');
    expectBlocks(rendered, ['Line 70: Widget 70 1.25 87.50 87.50', ...PAYMENT_BLOCK]);
  });
});

async function firstInvoice() {
  const { customerID } = await newCustomer();
  return createInvoice({ customerID });
}
