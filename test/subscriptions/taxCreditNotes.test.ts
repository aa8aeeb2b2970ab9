import { describe, expect, it } from 'vitest';
import { createCustomer, createPlan, invoicesOf, movableClock, ok, subscribe } from '../helpers/billing.ts';
import { fetchApiBytes } from '../helpers/invoices.ts';
import { useTestService } from '../helpers/testService.ts';
import { renderPdf } from '../invoicing/pdf.fixtures.ts';
import { advanceClock } from '../helpers/clock.ts';

// A subscription's credit for unused time reduces the invoice that billed that time (docs/tax.md, "Tax credit
// notes"): its tax credit note names that invoice and takes its share of the VAT, wherever the credit's money goes.
// Each test account's clock starts on Mar 1 2026; 31.00 a month + 15 % VAT = 35.65 (VAT 4.65).
const clock = movableClock('2026-03-01T10:00:00.000Z');
const t = useTestService({ clock });

async function subscribed() {
  const as = await t.newAccount('Taxed shop', { isTest: true });
  await ok(as, 'POST', '/v1/tax', { Name: 'VAT', rules: [{ Perc: 0.15 }] });
  const plan = await createPlan(as, { chargePrice: 31 });
  const customerId = await createCustomer(as);
  const sub = await subscribe(as, customerId, plan);
  return { as, customerId, path: `/v1/subscriptions/${sub.subscriptionID}` };
}

describe("a subscription's credit", () => {
  it('of a plan change is a tax credit note of the invoice that billed the unused time', async () => {
    const { as, customerId, path } = await subscribed();
    const [march] = await invoicesOf(as, customerId);
    const gold = await createPlan(as, { chargePrice: 62 });
    await advanceClock(as, '2026-03-21T10:00:00Z');
    await ok(as, 'PUT', `${path}/changePackage`, {
      packageID: gold.packageId,
      packageRateTermID: gold.rateTermId,
      resetBillingAnchor: true,
    });
    // Unused Mar 21 – Apr 1: 31.00 × 11 / 31 = 11.00 + 1.65 VAT = 12.65, whose share of March's VAT is
    // 12.65 × 4.65 / 35.65 = 1.65.
    const [credit] = await ok(as, 'GET', `${path}/credits`);
    const [document] = await ok(as, 'GET', `/v1/tax-credit-notes?customerID=${customerId}`);
    expect(document).toMatchObject({
      Kind: 'adjustment',
      adjustmentID: credit.adjustmentID,
      CreditNumber: 'CN-0001',
      Date: '2026-03-21T00:00:00.000Z',
      Reason: 'Changed: unused 2026-03-21 to 2026-04-01',
      Amount: 12.65,
      AmountEx: 11,
      Tax: 1.65,
      Unapplied: 0,
    });
    expect(document.Lines).toEqual([
      expect.objectContaining({ invoiceID: march.invoiceID, invoiceNum: march.invoiceNum, AmountInc: 12.65 }),
    ]);
    const invoices = await invoicesOf(as, customerId);
    // March carries 4.65 − 1.65 = 3.00 of VAT now; the change's invoice (62.00 + 9.30) is paid 12.65 by the
    // credit's money, which takes none of its VAT.
    expect(invoices.map((i: any) => [i.invoiceID, i.Total, i.CreditedTotal, i.CreditedTax])).toEqual([
      [march.invoiceID, 35.65, 12.65, 1.65],
      [invoices[1].invoiceID, 71.3, 0, 0],
    ]);
    // Its PDF names March's invoice and the VAT it takes off it.
    const pdf = await fetchApiBytes(t.url, as, document.PdfURL);
    expect(pdf.status).toBe(200);
    const flat = renderPdf(pdf.body, 'plan-change-credit-note').text.replace(/[ \t]+/g, ' ');
    for (const expected of [
      // "TAX" only on a registered vendor's (docs/tax.md); this seller gave no VAT number.
      'CREDIT NOTE',
      'Credit note CN-0001',
      `Tax invoice ${march.invoiceNum} of 1 Mar 2026 11.00 1.65 12.65`,
      'VAT 15%: 1.65',
      'Changed: unused 2026-03-21 to 2026-04-01',
    ])
      expect(flat, expected).toContain(expected);
  });

  it('of a cancellation names the invoice it cuts, and takes its VAT off it', async () => {
    const { as, customerId, path } = await subscribed();
    await advanceClock(as, '2026-03-21T10:00:00Z');
    await ok(as, 'PUT', `${path}/cancel/prorata`);
    const [march] = await invoicesOf(as, customerId);
    // The same 12.65, applied to the unpaid March invoice it cuts: 23.00 owed, whose VAT is 3.00.
    expect(march).toMatchObject({ Balance: 23, CreditedTotal: 12.65, CreditedTax: 1.65, BalanceTax: 3 });
    const [document] = await ok(as, 'GET', `/v1/tax-credit-notes?customerID=${customerId}`);
    expect(document).toMatchObject({
      Kind: 'adjustment',
      Tax: 1.65,
      Reason: 'Cancelled: unused 2026-03-21 to 2026-04-01',
    });
    expect(document.Lines.map((line: any) => line.invoiceID)).toEqual([march.invoiceID]);
  });
});
