import { describe, expect, it } from 'vitest';
import { fixedClock } from '../../src/clock.ts';
import { collectDueInvoices } from '../../src/modules/collections/index.ts';
import { createPlan, ok, subscribe } from '../helpers/billing.ts';
import { accountContext } from '../helpers/context.ts';
import type { TestAccount } from '../helpers/service.ts';
import { useTestService } from '../helpers/testService.ts';
import { addCard } from '../collections/cards.ts';
import { deliveredTo } from '../collections/notices.fixtures.ts';
import { clock } from './credits.fixtures.ts';
import { advanceClock } from '../helpers/clock.ts';

/**
 * A year of a prepaid customer whose documents carry VAT exactly once: docs/tax.md, "Prepaid credit", its table "A
 * year of it", on a test account's clock. A South-African vendor (ZAR, 15 % VAT, VAT number, Johannesburg) bills a
 * plan of 299.00 + 15 % = 343.85 a month (VAT 299.00 × 0.15 = 44.85) by a subscription started on 1 January 2026; the
 * customer, at home and paying by card, buys 2,000.00 of credit on that day, before subscribing. The credit pays
 * January to May (5 × 343.85 = 1,719.25, 280.75 left), 280.75 of June, and the card the rest; a second top-up of
 * 1,000.00 on 1 January 2027 pays February 2027. Every figure below is computed by hand. The customer gets its
 * invoices by e-mail, read from a real SMTP receiver as it reads them.
 */
const t = useTestService({ clock, smtp: true });
const { smtp } = t;

const MONTHS = [
  '2026-01',
  '2026-02',
  '2026-03',
  '2026-04',
  '2026-05',
  '2026-06',
  '2026-07',
  '2026-08',
  '2026-09',
  '2026-10',
  '2026-11',
  '2026-12',
  '2027-01',
  '2027-02',
] as const;
type Month = (typeof MONTHS)[number];

const lastDay = (month: Month) =>
  new Date(Date.UTC(Number(month.slice(0, 4)), Number(month.slice(5, 7)), 0)).toISOString().slice(0, 10);

/** Noon in Johannesburg (10:00 UTC) on the 1st of the month: the bill run of the 1st has run. */
const noonOnThe1st = (month: Month) => `${month}-01T10:00:00.000Z`;

/** The vendor, its customer (at home, paying by card) and the customer's ZAR wallet, on 1 January 2026. */
async function vendor(treatment: 'when_sold' | 'when_used') {
  clock.set('2026-01-01T06:00:00.000Z');
  const as = await t.newAccount(`Year ${treatment}`, {
    isTest: true,
    timeZone: 'Africa/Johannesburg',
    currencyCode: 'ZAR',
  });
  await ok(as, 'PUT', '/v1/account', {
    InvoiceDueDays: 0,
    countryID: 710,
    TaxNumber: '4123456789',
    LegalName: 'Karoo Hosting (Pty) Ltd',
    PrepaidCreditVat: treatment,
  });
  await ok(as, 'POST', '/v1/tax', { Name: 'VAT', rules: [{ Perc: 0.15 }] });
  const customer = await ok(as, 'POST', '/v1/customers', {
    Name: 'Thandi',
    Company: 'Veld Analytics CC',
    VatNo: '4987654321',
    countryID: 710,
    CurrencyCode: 'ZAR',
    Email: `thandi.${treatment}@veld.example`,
    PaymentMethod: 'credit_card',
    autoSendInvoice: true,
  });
  const customerId = customer.customerID as number;
  await addCard(as, customerId, '4242424242424242');
  const wallet = await ok(as, 'POST', `/v1/customers/${customerId}/wallets`, { CurrencyCode: 'ZAR' });
  return { as, customerId, email: customer.Email as string, walletId: wallet.walletID as number };
}

/** A top-up charged to the card by the collection run at the account's clock: its invoice, paid, and its grant. */
async function topUp(as: TestAccount, walletId: number, amount: number) {
  const made = await ok(as, 'POST', `/v1/wallets/${walletId}/top-ups`, { Amount: amount });
  const at = (await ok(as, 'GET', '/v1/account')).TestClockDate as string;
  await collectDueInvoices(await accountContext(t, as.accountId, fixedClock(at)), { staleAfterMs: 0 });
  const grants = (await ok(as, 'GET', `/v1/wallets/${walletId}/grants`)) as any[];
  return {
    invoiceId: made.invoiceID as number,
    grant: grants.find((g) => g.TopUpInvoiceID === made.invoiceID),
  };
}

/** The month's invoices of the account (GET /v1/invoices with the month's bounds), oldest first. */
const invoicesIn = async (as: TestAccount, month: Month) =>
  (await ok(
    as,
    'GET',
    `/v1/invoices?startDate=${month}-01&endDate=${lastDay(month)}&page_size=100`,
  )) as any[];

/** The month's VAT report (invoice basis): its only currency, ZAR. */
async function reportOf(as: TestAccount, month: Month) {
  const report = await ok(as, 'GET', `/v1/reports/vat?from=${month}-01&to=${lastDay(month)}`);
  expect(
    report.Currencies.map((c: any) => c.CurrencyCode),
    month,
  ).toEqual(['ZAR']);
  return report.Currencies[0];
}

/** What the customer's money (the card) paid on an invoice. */
async function moneyOn(as: TestAccount, customerId: number, invoiceId: number) {
  const payments = (await ok(as, 'GET', `/v1/customers/${customerId}/payments?page_size=100`)) as any[];
  return (
    payments
      .flatMap((p) => p.Allocations as any[])
      .filter((a) => a.invoiceID === invoiceId)
      .reduce((sum, a) => sum + Math.round(a.amountApplied * 100), 0) / 100
  );
}

/** The plan's monthly invoice, as each month's expectation reads it. */
const plan = { Total: 343.85, TotalTax: 44.85, Status: 'Paid', Balance: 0, BalanceTax: 0 };

/**
 * Subscribes the customer on 1 January (after the first top-up) and moves the clock month by month to February
 * 2027, buying the second top-up on 1 January 2027 after that day's bill run; `month` checks each month's
 * documents as the clock stands at noon on its 1st (February 2027 last).
 */
async function aYear(
  treatment: 'when_sold' | 'when_used',
  month: (
    m: Month,
    ctx: Awaited<ReturnType<typeof vendor>> & { firstTopUp: number; secondTopUp?: number },
  ) => Promise<void>,
) {
  const world = await vendor(treatment);
  const { as, customerId, walletId } = world;
  const first = await topUp(as, walletId, 2000);
  expect(first.grant).toMatchObject({ Kind: 'paid', Amount: 2000, Remaining: 2000 });
  await subscribe(as, customerId, await createPlan(as, { chargePrice: 299, currency: 'ZAR' }));
  // What the first top-up's credit holds after each month's invoice: 2,000.00 − 343.85 = 1,656.15, then 1,312.30,
  // 968.45, 624.60 and 280.75 after May; June takes the 280.75, and nothing is left. The second holds 1,000.00 after
  // January 2027 and 1,000.00 − 343.85 = 656.15 after February.
  const held: Record<Month, [number, number | null]> = {
    '2026-01': [1656.15, null],
    '2026-02': [1312.3, null],
    '2026-03': [968.45, null],
    '2026-04': [624.6, null],
    '2026-05': [280.75, null],
    '2026-06': [0, null],
    '2026-07': [0, null],
    '2026-08': [0, null],
    '2026-09': [0, null],
    '2026-10': [0, null],
    '2026-11': [0, null],
    '2026-12': [0, null],
    '2027-01': [0, 1000],
    '2027-02': [0, 656.15],
  };
  let secondTopUp: number | undefined;
  for (const m of MONTHS) {
    if (m !== '2026-01') await advanceClock(as, noonOnThe1st(m));
    if (m === '2027-01') secondTopUp = (await topUp(as, walletId, 1000)).invoiceId;
    const grants = (await ok(as, 'GET', `/v1/wallets/${walletId}/grants`)) as any[];
    const second = grants.find((g) => g.TopUpInvoiceID === secondTopUp);
    expect(
      [grants.find((g) => g.TopUpInvoiceID === first.invoiceId).Remaining, second?.Remaining ?? null],
      m,
    ).toEqual(held[m]);
    await month(m, { ...world, firstTopUp: first.invoiceId, ...(secondTopUp ? { secondTopUp } : {}) });
  }
  // No invoice needed a tax credit note: every credit paid as the invoice was issued.
  expect(await ok(as, 'GET', `/v1/tax-credit-notes?customerID=${customerId}`)).toEqual([]);
  return world;
}

describe('a year of prepaid credit sold with VAT (when_sold)', () => {
  it("declares the top-up's VAT when sold, none again on what its credit pays, and the card's", async () => {
    const field1: number[] = [];
    const field4: number[] = [];
    const supplies = new Map<Month, number>();
    const world = await aYear('when_sold', async (m, { as, customerId, firstTopUp, secondTopUp }) => {
      const invoices = await invoicesIn(as, m);
      const supply = invoices.find((i) => i.invoiceID !== firstTopUp && i.invoiceID !== secondTopUp);
      supplies.set(m, supply.invoiceNum);
      const report = await reportOf(as, m);
      field1.push(report.Vat201.Field1);
      field4.push(report.Vat201.Field4);
      expect(report.Vat201.Field3, m).toBe(0);
      expect(report.CreditNotes, m).toEqual({ AmountEx: 0, Tax: 0, AmountInc: 0 });
      if (m === '2026-01' || m === '2027-01') {
        // The top-up is a tax invoice of its price, VAT inside: 2,000.00 × 15 / 115 = 260.869… → 260.87 (1,739.13
        // ex); 1,000.00 × 15 / 115 = 130.434… → 130.43 (869.57 ex).
        const [price, vat] = m === '2026-01' ? [2000, 260.87] : [1000, 130.43];
        const sold = invoices.find((i) => i.invoiceID === (m === '2026-01' ? firstTopUp : secondTopUp));
        expect(sold, m).toMatchObject({ Total: price, TotalTax: vat, CreditedTax: 0, Status: 'Paid' });
        expect(await moneyOn(as, customerId, sold.invoiceID), m).toBe(price);
      }
      expect(invoices, m).toHaveLength(m === '2026-01' || m === '2027-01' ? 2 : 1);
      if (m <= '2026-05' || m === '2027-02') {
        // Paid from the credit as it was issued: the credit's share of its VAT, 343.85 × 44.85 / 343.85 = 44.85, is
        // all of it, paid when the credit was sold; it carries 0.00, and the report counts it at 343.85 − 343.85 =
        // 0.00 with 44.85 − 44.85 = 0.00 of VAT.
        expect(supply, m).toMatchObject({ ...plan, CreditedTotal: 343.85, CreditedTax: 44.85 });
        expect(await moneyOn(as, customerId, supply.invoiceID), m).toBe(0);
      } else if (m === '2026-06') {
        // 2,000.00 − 5 × 343.85 = 280.75 of credit left pays 280.75; its VAT, 280.75 × 44.85 / 343.85 =
        // 12,591.6375 / 343.85 = 36.619… → 36.62, was paid when the credit was sold. The card pays 343.85 − 280.75 =
        // 63.10, and the invoice carries 44.85 − 36.62 = 8.23 (63.10 × 15 / 115 = 8.230…).
        expect(supply, m).toMatchObject({ ...plan, CreditedTotal: 280.75, CreditedTax: 36.62 });
        expect(await moneyOn(as, customerId, supply.invoiceID), m).toBe(63.1);
      } else {
        // July to December, and January 2027 (bought after that day's invoice): the card pays 343.85, VAT 44.85.
        expect(supply, m).toMatchObject({ ...plan, CreditedTotal: 0, CreditedTax: 0 });
        expect(await moneyOn(as, customerId, supply.invoiceID), m).toBe(343.85);
      }
      // Field 1 is the consideration of the month's supplies, VAT included; field 4 the VAT in it:
      // January 2,000.00 (the top-up) + 0.00 (January, credit paid) and 260.87 + 0.00; February to May and
      // February 2027 0.00; June 63.10 and 8.23; July to December 343.85 and 44.85; January 2027 343.85 + 1,000.00
      // = 1,343.85 and 44.85 + 130.43 = 175.28.
      const expected: Record<Month, [number, number]> = {
        '2026-01': [2000, 260.87],
        '2026-02': [0, 0],
        '2026-03': [0, 0],
        '2026-04': [0, 0],
        '2026-05': [0, 0],
        '2026-06': [63.1, 8.23],
        '2026-07': [343.85, 44.85],
        '2026-08': [343.85, 44.85],
        '2026-09': [343.85, 44.85],
        '2026-10': [343.85, 44.85],
        '2026-11': [343.85, 44.85],
        '2026-12': [343.85, 44.85],
        '2027-01': [1343.85, 175.28],
        '2027-02': [0, 0],
      };
      expect([report.Vat201.Field1, report.Vat201.Field4], m).toEqual(expected[m]);
      expect(report.StandardRated, m).toEqual({
        AmountEx: Math.round((expected[m][0] - expected[m][1]) * 100) / 100,
        Tax: expected[m][1],
        AmountInc: expected[m][0],
      });
      // The report lists the month's documents, each as the invoice shows it after the credit at its issue.
      expect(
        report.Documents.map((d: any) => [d.invoiceID, d.Kind, d.Category, d.AmountInc, d.Tax]),
        m,
      ).toEqual(
        invoices.map((i) => [
          i.invoiceID,
          'invoice',
          'standard',
          Math.round((i.Total - i.CreditedTotal) * 100) / 100,
          Math.round((i.TotalTax - i.CreditedTax) * 100) / 100,
        ]),
      );
    });
    // The year 2026: 260.87 + 8.23 + 6 × 44.85 = 538.20 declared, 15 / 115 of what the customer paid in it,
    // 2,000.00 + 63.10 + 6 × 343.85 = 4,126.20 (4,126.20 × 15 / 115 = 538.20), and never twice.
    const sum = (figures: number[]) => Math.round(figures.reduce((a, b) => a + b * 100, 0)) / 100;
    expect(sum(field4.slice(0, 12))).toBe(538.2);
    expect(sum(field1.slice(0, 12))).toBe(4126.2);

    // The year's e-mails as the customer reads them: each month's invoice says what is owed after the credit, and
    // a receipt follows each card payment.
    const mails = await deliveredTo(t, smtp, world.as.accountId, world.email);
    for (const [m, num] of supplies) {
      const text = mails.find((mail) => mail.subject === `Invoice ${num} from Karoo Hosting (Pty) Ltd`)?.text;
      if (m <= '2026-05' || m === '2027-02') {
        expect(text, m).toContain(
          'It is paid in full: ZAR 343.85 from your prepaid credit. There is nothing to pay.',
        );
        expect(text, m).not.toContain('will be charged');
      } else if (m === '2026-06') {
        expect(text, m).toContain(
          'Already paid: ZAR 280.75 from your prepaid credit. Still owed: ZAR 63.10, due on 2026-06-01.',
        );
        expect(text, m).toContain('This amount will be charged to Visa ending 4242');
      } else {
        expect(text, m).toContain(`for ZAR 343.85, due on ${m}-01.`);
        expect(text, m).not.toContain('prepaid credit');
        expect(text, m).toContain('This amount will be charged to Visa ending 4242');
      }
    }
    // The top-ups are e-mailed as the invoices they are, for what they cost.
    expect(
      mails.filter((mail) => mail.subject.startsWith('Prepaid credit: invoice')).map((mail) => mail.text),
    ).toEqual([
      expect.stringContaining('(prepaid credit) of 2026-01-01 for ZAR 2000.00, due on 2026-01-01.'),
      expect.stringContaining('(prepaid credit) of 2027-01-01 for ZAR 1000.00, due on 2027-01-01.'),
    ]);
    // What the card paid: the two top-ups, 63.10 of June and 343.85 from July to January 2027 (7 months).
    expect(
      mails
        .filter((mail) => mail.subject.startsWith('Receipt from Karoo Hosting (Pty) Ltd: '))
        .map((mail) => mail.subject.split(': ')[1]),
    ).toEqual([
      'ZAR 2000.00 received',
      'ZAR 63.10 received',
      ...Array<string>(7).fill('ZAR 343.85 received'),
      'ZAR 1000.00 received',
    ]);
  }, 120_000);
});

describe('a year of prepaid credit taxed when used (when_used)', () => {
  it('declares no VAT on the top-up, a non-supply, and every invoice its 44.85 whatever pays it', async () => {
    const field1: number[] = [];
    const field4: number[] = [];
    await aYear('when_used', async (m, { as, customerId, firstTopUp, secondTopUp }) => {
      const invoices = await invoicesIn(as, m);
      const supply = invoices.find((i) => i.invoiceID !== firstTopUp && i.invoiceID !== secondTopUp);
      const report = await reportOf(as, m);
      field1.push(report.Vat201.Field1);
      field4.push(report.Vat201.Field4);
      expect(invoices, m).toHaveLength(m === '2026-01' || m === '2027-01' ? 2 : 1);
      // Every month's invoice carries its 44.85: credit taxed when used pays as money does.
      expect(supply, m).toMatchObject({ ...plan, CreditedTotal: 0, CreditedTax: 0 });
      // The credit pays January to May and February 2027 whole, 280.75 of June; the card the rest: 343.85 −
      // 280.75 = 63.10 in June, 343.85 from July to January 2027.
      const byCard = m <= '2026-05' || m === '2027-02' ? 0 : m === '2026-06' ? 63.1 : 343.85;
      expect(await moneyOn(as, customerId, supply.invoiceID), m).toBe(byCard);
      // A top-up carries no VAT and is no supply: field 3 (non-supplies), 2,000.00 in January 2026 and 1,000.00
      // in January 2027.
      const nonSupply = m === '2026-01' ? 2000 : m === '2027-01' ? 1000 : 0;
      if (nonSupply > 0) {
        const sold = invoices.find((i) => i.invoiceID === (m === '2026-01' ? firstTopUp : secondTopUp));
        expect(sold, m).toMatchObject({ Total: nonSupply, TotalTax: 0, Status: 'Paid' });
      }
      // Field 1 is the month's invoice whole, 343.85, and field 4 its 44.85, every month.
      expect(report.Vat201, m).toEqual({
        Field1: 343.85,
        Field2: 0,
        Field2A: 0,
        Field3: nonSupply,
        Field4: 44.85,
      });
      expect(report.NonSupplies, m).toEqual({ AmountEx: nonSupply, Tax: 0, AmountInc: nonSupply });
      expect(
        report.Documents.map((d: any) => [d.invoiceID, d.Category, d.AmountInc, d.Tax]),
        m,
      ).toEqual(
        invoices.map((i) =>
          i.invoiceID === supply.invoiceID
            ? [i.invoiceID, 'standard', 343.85, 44.85]
            : [i.invoiceID, 'non_supply', nonSupply, 0],
        ),
      );
    });
    // The year 2026: 12 × 44.85 = 538.20 declared, as under when_sold, on 12 × 343.85 = 4,126.20 of supplies: the
    // same VAT on what the customer paid, declared month by month as the credit is used.
    const sum = (figures: number[]) => Math.round(figures.reduce((a, b) => a + b * 100, 0)) / 100;
    expect(sum(field4.slice(0, 12))).toBe(538.2);
    expect(sum(field1.slice(0, 12))).toBe(4126.2);
  }, 120_000);
});
