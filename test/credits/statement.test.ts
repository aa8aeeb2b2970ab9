import { describe, expect, it } from 'vitest';
import { ok } from '../helpers/billing.ts';
import { clock, grant, invoice, useCreditsService, walletOf } from './credits.fixtures.ts';

// docs/credits.md, "Tax": prepaid credit pays invoices as a payment does, so a statement lists its consumptions and
// releases as lines, and its closing balance is the customer's Balance.
useCreditsService();

describe('statements of a customer paid with credit', () => {
  it('list each consumption and release, and close at the Balance', async () => {
    clock.set('2026-03-02T10:00:00.000Z');
    const { as, customerId, walletId } = await walletOf('Statement shop');
    await grant(as, walletId, { Amount: 30 });
    const first = await invoice(as, customerId, 20);
    clock.set('2026-03-03T10:00:00.000Z');
    const second = await invoice(as, customerId, 25);
    clock.set('2026-03-04T10:00:00.000Z');
    await ok(as, 'DELETE', `/v1/invoices/${first.invoiceID}`);
    const statement = await ok(
      as,
      'GET',
      `/v1/customers/${customerId}/statement?startDate=2026-03-01&endDate=2026-03-31`,
    );
    // 3 Mar: invoice 25.00, credit −10.00 (what the first left) → 15.00. The first invoice, cancelled, is not
    // listed, nor its credit taken on 2 Mar and given back on 4 Mar (−20.00 + 20.00).
    expect(
      statement.Lines.map((l: any) => [l.Type, l.Amount, l.Balance, l.Description.replace(/\d+$/, 'N')]),
    ).toEqual([
      ['invoice', 25, 25, expect.any(String)],
      ['prepaid_credit', -10, 15, 'Prepaid credit applied · invoice N'],
    ]);
    expect(statement.ClosingBalance).toBe(15);
    expect((await ok(as, 'GET', `/v1/customers/${customerId}`)).Balance).toBe(15);
    expect(second.invoiceID).toBeGreaterThan(0);
  });

  it('lists the credit a credit note gives back as a line raising the balance again', async () => {
    clock.set('2026-03-02T10:00:00.000Z');
    const { as, customerId, walletId } = await walletOf('Given back shop');
    await grant(as, walletId, { Amount: 30 });
    const paid = await invoice(as, customerId, 20);
    const number = (await ok(as, 'GET', `/v1/invoices/${paid.invoiceID}`)).invoiceNum;
    clock.set('2026-03-03T10:00:00.000Z');
    // docs/credits.md, "Crediting": a credit note of 8.00 for the invoice takes the place of 8.00 of its credit.
    await ok(as, 'POST', '/v1/credits', {
      customerID: customerId,
      Amount: 8,
      CurrencyCode: 'USD',
      Date: '2026-03-03',
      allocations: [{ invoiceID: paid.invoiceID, amountApplied: 8 }],
    });
    const statement = await ok(
      as,
      'GET',
      `/v1/customers/${customerId}/statement?startDate=2026-03-01&endDate=2026-03-31`,
    );
    // 2 Mar: invoice 20.00 → 20.00, paid by 20.00 of credit → 0.00. 3 Mar: the credit note −8.00 → −8.00, and the
    // 8.00 of credit given back raises it again → 0.00: 12.00 of credit and 8.00 of credit note pay the invoice.
    expect(statement.Lines.map((l: any) => [l.Type, l.Amount, l.Balance, l.Description])).toEqual([
      ['invoice', 20, 20, expect.any(String)],
      ['prepaid_credit', -20, 0, `Prepaid credit applied · invoice ${number}`],
      ['credit_note', -8, -8, expect.any(String)],
      ['prepaid_credit', 8, 0, `Prepaid credit given back · invoice ${number}`],
    ]);
    expect(statement.ClosingBalance).toBe(0);
    expect((await ok(as, 'GET', `/v1/customers/${customerId}`)).Balance).toBe(0);
  });
});
