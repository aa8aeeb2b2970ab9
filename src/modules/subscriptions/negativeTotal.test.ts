import { describe, expect, it } from 'vitest';
import { priceInvoice } from '../invoicing/index.ts';
import type { NewInvoice, NewInvoiceCharge } from '../invoicing/index.ts';
import { CREDIT_CARRIED_DESCRIP, carryNegativeTotal } from './negativeTotal.ts';

const line = (descrip: string, unitCostEx: string, period?: [string, string]): NewInvoiceCharge => ({
  descrip,
  qty: '1',
  unitCostEx,
  ...(period ? { periodStart: period[0], periodEnd: period[1] } : {}),
});

const invoice = (charges: NewInvoiceCharge[], percs: string[] = []): NewInvoice => ({
  customerId: 1,
  currencyCode: 'USD',
  invoiceDate: '2026-05-01',
  source: 'Auto',
  isDraft: false,
  charges,
  taxes: percs.map((perc, i) => ({ name: `Tax ${i + 1}`, perc })),
});

const totalOf = (made: NewInvoice) =>
  priceInvoice(
    made.charges,
    made.taxes.map((tax) => tax.perc),
    made.currencyCode,
  );

const MARCH: [string, string] = ['2026-03-01', '2026-04-01'];

describe('an invoice whose corrections take its Total below zero', () => {
  it('keeps every line and ends with one that brings the Total to 0.00, carrying the rest as credit', () => {
    // The worked case of docs/usage.md: a 0.00 plan, 5 units billed for March, a late −4: 0.00 − 4.00 + 0.00.
    const lines = [line('Plan', '0'), line('API calls, 1–31 Mar 2026: 4 fewer calls', '-4', MARCH)];
    const made = carryNegativeTotal(invoice(lines));
    expect(made.creditMinor).toBe(400);
    expect(made.creditPeriod).toEqual({ start: '2026-03-01', end: '2026-04-01' });
    expect(made.invoice.charges).toEqual([
      ...lines,
      { descrip: CREDIT_CARRIED_DESCRIP, qty: '1', unitCostEx: '4.00', isTaxInclusive: false },
    ]);
    expect(totalOf(made.invoice).totalMinor).toBe(0);
  });

  it('credits the taxes the lines took off too, each tax netting to zero', () => {
    // −4.00 at 20%: tax −0.80, Total −4.80. The last line, 4.00 excluding tax, brings 0.80 back: Total 0.00.
    const made = carryNegativeTotal(invoice([line('Fewer calls', '-4', MARCH)], ['0.2']));
    expect(made.creditMinor).toBe(480);
    expect(made.invoice.charges.at(-1)).toMatchObject({ unitCostEx: '4.00', isTaxInclusive: false });
    const priced = totalOf(made.invoice);
    expect(priced.totalMinor).toBe(0);
    expect(priced.taxTotalsMinor).toEqual([0]);
  });

  it('is priced including tax at the Total where each line’s own rounding leaves a cent', () => {
    // Two lines of −0.03 at 15%: each tax −0.0045 rounds to 0, Total −0.06. Excluding tax, 0.06 would be taxed
    // 0.009 → 0.01 and total 0.07 (Total +0.01); including tax at 0.06 (net 0.05, tax 0.01), the Total is 0.00.
    const lines = [line('Fewer calls (eu)', '-0.03', MARCH), line('Fewer calls (us)', '-0.03', MARCH)];
    const made = carryNegativeTotal(invoice(lines, ['0.15']));
    expect(made.creditMinor).toBe(6);
    expect(made.invoice.charges.at(-1)).toMatchObject({ unitCostEx: '0.06', isTaxInclusive: true });
    expect(totalOf(made.invoice).totalMinor).toBe(0);
  });

  it('spans the credit over every period the lines below zero correct', () => {
    const made = carryNegativeTotal(
      invoice([
        line('Plan', '1'),
        line('Fewer calls, February', '-2', ['2026-02-01', '2026-03-01']),
        line('Fewer calls, March', '-3', MARCH),
      ]),
    );
    expect(made.creditMinor).toBe(400);
    expect(made.creditPeriod).toEqual({ start: '2026-02-01', end: '2026-04-01' });
  });
});

describe('an invoice whose Total is not below zero', () => {
  it('is left as it is, a correction smaller than the other lines simply lowering it', () => {
    const original = invoice([line('Plan', '30'), line('Fewer calls', '-4', MARCH)]);
    expect(carryNegativeTotal(original)).toEqual({ invoice: original, creditMinor: 0, creditPeriod: null });
  });

  it('is left as it is at exactly 0.00', () => {
    const original = invoice([line('Plan', '4'), line('Fewer calls', '-4', MARCH)]);
    expect(carryNegativeTotal(original).invoice.charges).toHaveLength(2);
  });
});

describe('carryNegativeTotal on an invoice taxed at two rates', () => {
  it('brings the lines of each rate to 0.00, so every tax nets to zero', () => {
    // April at 15 % (position 0): a fee of 10.00 and a correction of −50.00; May at 15.5 % (position 1): 20.00.
    // 15 %: −40.00 − 6.00 = −46.00; 15.5 %: 20.00 + 3.10 = 23.10; Total −22.90, carried as credit. Lines of +40.00
    // at 15 % and −20.00 at 15.5 % bring each to 0.00.
    const made = carryNegativeTotal(
      invoice(
        [
          { ...line('April', '10.00', ['2026-04-01', '2026-05-01']), taxPositions: [0] },
          { ...line('April correction', '-50.00', ['2026-04-01', '2026-05-01']), taxPositions: [0] },
          { ...line('May', '20.00', ['2026-05-01', '2026-06-01']), taxPositions: [1] },
        ],
        ['0.15', '0.155'],
      ),
    );
    expect(made.creditMinor).toBe(2290);
    expect(made.invoice.charges.slice(3).map((c) => [c.descrip, c.unitCostEx, c.taxPositions])).toEqual([
      [CREDIT_CARRIED_DESCRIP, '40.00', [0]],
      [CREDIT_CARRIED_DESCRIP, '-20.00', [1]],
    ]);
    const priced = totalOf(made.invoice);
    expect(priced.totalMinor).toBe(0);
    expect(priced.taxTotalsMinor).toEqual([0, 0]);
  });
});
