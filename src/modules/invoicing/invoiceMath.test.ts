import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  invoiceBalances,
  invoiceBoundsProblem,
  invoiceStatus,
  isLineAmountWithinBounds,
  priceInvoice,
} from './invoiceMath.ts';
import type { ChargeAmounts, InvoiceMoney, PricedCharge } from './invoiceMath.ts';

const line = (qty: string, unitCostEx: string): ChargeAmounts => ({ qty, unitCostEx });
const priced = (amountExMinor: number, taxMinor: number[], amountIncMinor: number): PricedCharge => ({
  amountExMinor,
  taxMinor,
  amountIncMinor,
});

describe('priceInvoice', () => {
  it('prices the worked example of invoiceMath.ts', () => {
    // 3 × 3.333 = 9.999 → 10.00; × 0.15 = 1.50; inc 11.50.
    // 1 × 0.05 = 0.05; × 0.15 = 0.0075 → 0.01; inc 0.06.
    // Total 11.50 + 0.06 = 11.56; tax 1.50 + 0.01 = 1.51; ex 10.00 + 0.05 = 10.05.
    expect(priceInvoice([line('3', '3.333'), line('1', '0.05')], ['0.15'], 'USD')).toEqual({
      charges: [priced(1000, [150], 1150), priced(5, [1], 6)],
      taxTotalsMinor: [151],
      exTotalMinor: 1005,
      totalMinor: 1156,
    });
  });

  it.each([
    // [lines, taxes, currency, per line [ex, taxes, inc], tax totals, ex total, total]
    {
      name: '3 × 3.333 at 15%',
      // 9.999 → 10.00; 10.00 × 0.15 = 1.50; 10.00 + 1.50 = 11.50
      lines: [line('3', '3.333')],
      taxes: ['0.15'],
      currency: 'USD',
      charges: [priced(1000, [150], 1150)],
      taxTotals: [150],
      exTotal: 1000,
      total: 1150,
    },
    {
      name: 'two taxes on each line',
      // 2 × 10.00 = 20.00; × 0.15 = 3.00; × 0.02 = 0.40; inc 23.40.
      // 1 × 0.99; × 0.15 = 0.1485 → 0.15; × 0.02 = 0.0198 → 0.02; inc 1.16.
      lines: [line('2', '10.00'), line('1', '0.99')],
      taxes: ['0.15', '0.02'],
      currency: 'USD',
      charges: [priced(2000, [300, 40], 2340), priced(99, [15, 2], 116)],
      taxTotals: [315, 42], // 3.00 + 0.15; 0.40 + 0.02
      exTotal: 2099,
      total: 2456, // 23.40 + 1.16
    },
    {
      name: 'tax rounded per line, never on the total',
      // each 1 × 0.10: tax 0.015 → 0.02, so three lines carry 0.06 of tax, not 0.045 → 0.05
      lines: [line('1', '0.10'), line('1', '0.10'), line('1', '0.10')],
      taxes: ['0.15'],
      currency: 'USD',
      charges: [priced(10, [2], 12), priced(10, [2], 12), priced(10, [2], 12)],
      taxTotals: [6],
      exTotal: 30,
      total: 36,
    },
    {
      name: 'a negative discount line',
      // 1 × 100.00 = 100.00; tax 15.00; inc 115.00.
      // 1 × -10.005 = -10.005 → -10.01 (half away from zero); tax -1.5015 → -1.50; inc -11.51.
      lines: [line('1', '100.00'), line('1', '-10.005')],
      taxes: ['0.15'],
      currency: 'USD',
      charges: [priced(10000, [1500], 11500), priced(-1001, [-150], -1151)],
      taxTotals: [1350], // 15.00 - 1.50
      exTotal: 8999, // 100.00 - 10.01
      total: 10349, // 115.00 - 11.51
    },
    {
      name: 'a discount by negative quantity',
      // -2 × 2.50 = -5.00; tax -0.75; inc -5.75. 4 × 2.50 = 10.00; tax 1.50; inc 11.50.
      lines: [line('4', '2.50'), line('-2', '2.50')],
      taxes: ['0.15'],
      currency: 'USD',
      charges: [priced(1000, [150], 1150), priced(-500, [-75], -575)],
      taxTotals: [75],
      exTotal: 500,
      total: 575,
    },
    {
      name: 'JPY, no minor digits',
      // 3 × 333.5 = 1000.5 → 1001; × 0.1 = 100.1 → 100; inc 1101.
      lines: [line('3', '333.5')],
      taxes: ['0.1'],
      currency: 'JPY',
      charges: [priced(1001, [100], 1101)],
      taxTotals: [100],
      exTotal: 1001,
      total: 1101,
    },
    {
      name: 'BHD, three minor digits',
      // 2 × 1.2345 = 2.469 → 2469 fils; × 0.05 = 123.45 → 123; inc 2592.
      lines: [line('2', '1.2345')],
      taxes: ['0.05'],
      currency: 'BHD',
      charges: [priced(2469, [123], 2592)],
      taxTotals: [123],
      exTotal: 2469,
      total: 2592,
    },
    {
      name: 'fractional metered quantity',
      // 10.5 × 0.8 = 8.40; × 0.155 = 1.302 → 1.30; inc 9.70.
      lines: [line('10.5', '0.8')],
      taxes: ['0.155'],
      currency: 'USD',
      charges: [priced(840, [130], 970)],
      taxTotals: [130],
      exTotal: 840,
      total: 970,
    },
    {
      name: 'no taxes',
      // 3 × 3.333 → 10.00, nothing added
      lines: [line('3', '3.333')],
      taxes: [],
      currency: 'USD',
      charges: [priced(1000, [], 1000)],
      taxTotals: [],
      exTotal: 1000,
      total: 1000,
    },
    {
      name: 'no lines',
      lines: [],
      taxes: ['0.15', '0.02'],
      currency: 'USD',
      charges: [],
      taxTotals: [0, 0],
      exTotal: 0,
      total: 0,
    },
  ])('prices $name', ({ lines, taxes, currency, charges, taxTotals, exTotal, total }) => {
    expect(priceInvoice(lines, taxes, currency)).toEqual({
      charges,
      taxTotalsMinor: taxTotals,
      exTotalMinor: exTotal,
      totalMinor: total,
    });
  });

  it('refuses a quantity or price that is not a plain decimal', () => {
    expect(() => priceInvoice([line('1e2', '1')], [], 'USD')).toThrow(RangeError);
    expect(() => priceInvoice([line('1', '1')], ['15%'], 'USD')).toThrow(RangeError);
  });

  it('refuses totals beyond the safe integer range rather than rounding them', () => {
    // each line 45035996273704.96 USD = 2^52 cents; two of them are 2^53, one past the largest safe integer
    const half = line('1', '45035996273704.96');
    expect(priceInvoice([half], [], 'USD').totalMinor).toBe(2 ** 52);
    expect(() => priceInvoice([half, half], [], 'USD')).toThrow(RangeError);
    expect(() => priceInvoice([half], ['1'], 'USD')).toThrow(RangeError); // 2^52 + 2^52 of tax
  });

  it('reconciles every figure with its parts', () => {
    // Up to 8 lines of |qty| ≤ 100000 at |price| ≤ 1000000, so every total stays a safe integer.
    const decimal = (max: number) =>
      fc.tuple(fc.integer({ min: -max, max }), fc.integer({ min: 0, max: 4 })).map(([units, decimals]) => {
        const text = Math.abs(units)
          .toString()
          .padStart(decimals + 1, '0');
        const body = decimals === 0 ? text : `${text.slice(0, -decimals)}.${text.slice(-decimals)}`;
        return units < 0 ? `-${body}` : body;
      });
    const perc = fc.integer({ min: 0, max: 3000 }).map((n) => (n / 10000).toFixed(4));
    fc.assert(
      fc.property(
        fc.array(fc.record({ qty: decimal(100_000), unitCostEx: decimal(1_000_000) }), { maxLength: 8 }),
        fc.array(perc, { maxLength: 3 }),
        fc.constantFrom('USD', 'JPY', 'BHD'),
        (charges, taxes, currency) => {
          const invoice = priceInvoice(charges, taxes, currency);
          const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);
          for (const charge of invoice.charges) {
            expect(charge.taxMinor).toHaveLength(taxes.length);
            expect(charge.amountIncMinor).toBe(charge.amountExMinor + sum(charge.taxMinor));
          }
          expect(invoice.exTotalMinor).toBe(sum(invoice.charges.map((c) => c.amountExMinor)));
          expect(invoice.totalMinor).toBe(sum(invoice.charges.map((c) => c.amountIncMinor)));
          taxes.forEach((_, i) => {
            expect(invoice.taxTotalsMinor[i]).toBe(sum(invoice.charges.map((c) => c.taxMinor[i]!)));
          });
          expect(invoice.totalMinor).toBe(invoice.exTotalMinor + sum(invoice.taxTotalsMinor));
          for (const value of [invoice.totalMinor, invoice.exTotalMinor, ...invoice.taxTotalsMinor]) {
            expect(Number.isSafeInteger(value)).toBe(true);
          }
        },
      ),
    );
  });
});

const money = (overrides: Partial<InvoiceMoney> = {}): InvoiceMoney => ({
  totalMinor: 11500,
  paidActualMinor: 0,
  paidPendingMinor: 0,
  negativeAdjsMinor: 0,
  ...overrides,
});

describe('invoiceBalances', () => {
  it.each([
    // ActualBalance = Total − actual − negative adjustments; Balance = ActualBalance − pending
    [money(), 11500, 11500], // nothing paid
    [money({ paidActualMinor: 5000 }), 6500, 6500], // 115.00 − 50.00
    [money({ paidPendingMinor: 2000 }), 11500, 9500], // pending counts only in Balance
    [money({ negativeAdjsMinor: 1000 }), 10500, 10500], // a credit of 10.00
    [money({ paidActualMinor: 5000, paidPendingMinor: 2000, negativeAdjsMinor: 1000 }), 5500, 3500], // 115 − 50 − 10; − 20
    [money({ paidActualMinor: 12000 }), -500, -500], // overpaid by 5.00
    [money({ totalMinor: 0 }), 0, 0],
  ])('gives %o an ActualBalance of %i and a Balance of %i', (input, actual, balance) => {
    expect(invoiceBalances(input)).toEqual({ actualBalanceMinor: actual, balanceMinor: balance });
  });
});

describe('invoiceStatus', () => {
  const TODAY = '2026-03-10';
  const invoice = (
    overrides: Partial<InvoiceMoney & { isDraft: boolean; isCancelled: boolean; dueDate: string }> = {},
  ) => ({ ...money(), isDraft: false, isCancelled: false, dueDate: '2026-03-20', ...overrides });

  it.each([
    // rule 1: Cancelled wins over everything
    ['Cancelled', 'a cancelled invoice', invoice({ isCancelled: true })],
    ['Cancelled', 'a cancelled draft', invoice({ isCancelled: true, isDraft: true })],
    ['Cancelled', 'a cancelled paid invoice', invoice({ isCancelled: true, paidActualMinor: 11500 })],
    ['Cancelled', 'a cancelled overdue invoice', invoice({ isCancelled: true, dueDate: '2026-01-01' })],
    // rule 2: Draft before any money rule
    ['Draft', 'a draft', invoice({ isDraft: true })],
    ['Draft', 'a paid draft', invoice({ isDraft: true, paidActualMinor: 11500 })],
    ['Draft', 'an overdue draft', invoice({ isDraft: true, dueDate: '2026-01-01' })],
    // rule 3: Paid when ActualBalance ≤ 0
    ['Paid', 'paid exactly', invoice({ paidActualMinor: 11500 })], // 115 − 115 = 0
    ['Paid', 'overpaid', invoice({ paidActualMinor: 12000 })], // −5.00
    ['Paid', 'paid by payments and a credit', invoice({ paidActualMinor: 10500, negativeAdjsMinor: 1000 })],
    ['Paid', 'credited in full', invoice({ negativeAdjsMinor: 11500 })],
    ['Paid', 'a zero invoice', invoice({ totalMinor: 0 })],
    ['Paid', 'a credit invoice (negative total)', invoice({ totalMinor: -500 })],
    ['Paid', 'paid and overdue', invoice({ paidActualMinor: 11500, dueDate: '2026-01-01' })],
    // rule 4: Pending when Balance ≤ 0 < ActualBalance
    ['Pending', 'covered exactly by a pending payment', invoice({ paidPendingMinor: 11500 })],
    ['Pending', 'covered by actual and pending', invoice({ paidActualMinor: 5000, paidPendingMinor: 6500 })],
    ['Pending', 'over-covered by pending', invoice({ paidPendingMinor: 20000 })],
    ['Pending', 'pending and overdue', invoice({ paidPendingMinor: 11500, dueDate: '2026-01-01' })],
    // rule 5: Past Due when money is owed and the due date is before today
    ['Past Due', 'due yesterday', invoice({ dueDate: '2026-03-09' })],
    ['Past Due', 'partly paid, due last month', invoice({ paidActualMinor: 5000, dueDate: '2026-02-10' })],
    [
      'Past Due',
      'pending not covering, overdue',
      invoice({ paidPendingMinor: 11499, dueDate: '2026-03-09' }),
    ],
    // rule 6: Due otherwise
    ['Due', 'due today', invoice({ dueDate: TODAY })],
    ['Due', 'due next week', invoice({ dueDate: '2026-03-17' })],
    ['Due', 'one cent short', invoice({ paidActualMinor: 11499 })],
    ['Due', 'pending one cent short', invoice({ paidActualMinor: 5000, paidPendingMinor: 6499 })],
  ])('is %s for %s', (expected, _name, input) => {
    expect(invoiceStatus(input, TODAY)).toBe(expected);
  });

  it('compares due dates as calendar dates across month and year ends', () => {
    expect(invoiceStatus(invoice({ dueDate: '2025-12-31' }), '2026-01-01')).toBe('Past Due');
    expect(invoiceStatus(invoice({ dueDate: '2026-01-01' }), '2025-12-31')).toBe('Due');
  });
});

describe('isLineAmountWithinBounds', () => {
  it('bounds the product of quantity and unit cost, not each factor', () => {
    expect(isLineAmountWithinBounds('1000000', '99999.9999')).toBe(true);
    expect(isLineAmountWithinBounds('1000000', '100000')).toBe(false);
    expect(isLineAmountWithinBounds('2', '-50000000000')).toBe(false);
  });
});

describe('invoiceBoundsProblem', () => {
  const line = (qty: string, unitCostEx: string) => ({ qty, unitCostEx });

  it('names the first line beyond the bound of a price', () => {
    expect(invoiceBoundsProblem([line('1', '5'), line('99999999999', '99999')], [], 'USD')).toBe(
      'line 2: Qty × unit price must be at most 99999999999.9999 in size',
    );
  });

  it('refuses a Total beyond the bound that its lines, each within it, add up to', () => {
    const halves = [line('1', '60000000000'), line('1', '60000000000')];
    expect(invoiceBoundsProblem(halves, [], 'USD')).toBe(
      'the invoice Total must be at most 99999999999.9999 in size',
    );
    // within the bound before tax, beyond it with a tax of 10 %
    expect(invoiceBoundsProblem([line('1', '95000000000')], [], 'USD')).toBeNull();
    expect(invoiceBoundsProblem([line('1', '95000000000')], ['0.1'], 'USD')).toBe(
      'the invoice Total must be at most 99999999999.9999 in size',
    );
  });

  it('refuses a sum of lines beyond what a double holds exactly, rather than throwing', () => {
    // BHD has 3 decimals: 100 lines at the bound add up past 2^53 minor units
    const lines = Array.from({ length: 100 }, () => line('1', '99999999999.999'));
    expect(invoiceBoundsProblem(lines, [], 'BHD')).toBe(
      'the invoice Total must be at most 99999999999.9999 in size',
    );
  });

  it('accepts an invoice at the bound, and a negative line that keeps it within', () => {
    expect(invoiceBoundsProblem([line('1', '99999999999.99')], [], 'USD')).toBeNull();
    expect(invoiceBoundsProblem([line('1', '99999999999.99'), line('1', '-5')], ['0'], 'USD')).toBeNull();
  });
});
