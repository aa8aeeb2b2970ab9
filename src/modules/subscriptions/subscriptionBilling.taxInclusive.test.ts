import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { priceInvoice } from '../invoicing/index.ts';
import { GOLD, subscription, usageRow } from './subscriptionBilling.fixtures.ts';
import { planBilling } from './subscriptionBilling.ts';
import { creditsForCut } from './subscriptionChanges.ts';

const INCLUSIVE = { ...GOLD, chargePrice: '30.00', setupFee: '5.75', isTaxInclusive: true };

describe('planBilling with tax-inclusive prices', () => {
  it('marks the setup, term, pro-rated and usage lines of tax-inclusive prices, and only those', () => {
    // Start Jan 22, sync Feb 1: stub 10 of 31 days, 30.00 × 10 / 31 = 9.677… → 9.68 (with the tax in it).
    const timeline = subscription({
      startDate: '2026-01-22',
      createdOn: '2026-01-22',
      anchorDate: '2026-02-01',
      isProRata: true,
      firstProrataSyncDate: '2026-02-01',
      terms: INCLUSIVE,
    });
    const usage = [{ ...usageRow(3, '2026-01-22', '2026-02-01', '25'), isTaxInclusive: true }];
    const plan = planBilling(timeline, usage, '2026-02-01');
    expect(plan.invoices.map((i) => i.lines.map((l) => [l.descrip, l.unitCostEx, l.isTaxInclusive]))).toEqual(
      [
        [
          ['Gold (v1): setup fee', '5.75', true],
          ['Gold (v1) (pro-rated, 10 of 31 days)', '9.68', true],
        ],
        // 25 calls: 10 × 1.00 + 10 × 0.80 + 5 × 0.50 = 20.50
        [
          ['Gold (v1)', '30.00', true],
          ['API calls: 25 calls (10 at 1.00; 10 at 0.80; 5 at 0.50)', '20.5', true],
        ],
      ],
    );
    expect(plan.invoices.map((i) => i.period?.isTaxInclusive)).toEqual([true, true]);
    // At 15%: 5.75 → 5.00 + 0.75; 9.68 / 1.15 = 8.417… → 8.42 + 1.26; total 5.75 + 9.68 = 15.43, exactly the
    // listed prices.
    const first = priceInvoice(plan.invoices[0]!.lines, ['0.15'], 'USD');
    expect(first.charges.map((c) => [c.amountExMinor, c.taxMinor, c.amountIncMinor])).toEqual([
      [500, [75], 575],
      [842, [126], 968],
    ]);
    expect(first.totalMinor).toBe(1543);
  });

  it('leaves every line of an exclusive subscription exactly as before (no isTaxInclusive key)', () => {
    const plan = planBilling(subscription(), [usageRow(1, '2026-01-15', '2026-02-15', '5')], '2026-02-15');
    for (const invoice of plan.invoices) {
      for (const line of invoice.lines) expect(line).not.toHaveProperty('isTaxInclusive');
      expect(invoice.period).not.toHaveProperty('isTaxInclusive');
    }
  });

  it('an exclusive usage line on an inclusive subscription stays exclusive', () => {
    const plan = planBilling(
      subscription({ terms: INCLUSIVE }),
      [usageRow(1, '2026-01-15', '2026-02-15', '5')],
      '2026-02-15',
    );
    expect(plan.invoices[1]!.lines.map((l) => l.isTaxInclusive)).toEqual([true, undefined]);
  });
});

describe('creditsForCut of a tax-inclusive period', () => {
  it.each([
    // 30.00 with the tax in it for Mar 1–Apr 1 (31 days), cut Mar 21: 30.00 × 11 / 31 = 10.645… → 10.65 back;
    // net 1065 / 1.15 = 926.08… → 9.26, tax 1.39.
    {
      name: 'pro rata at 15%',
      amount: 3000,
      percs: ['0.15'],
      rule: 'prorata' as const,
      ex: 926,
      total: 1065,
    },
    // In full at 15% and 2%: 30.00; net 3000 / 1.17 = 2564.10… → 25.64.
    {
      name: 'in full, two taxes',
      amount: 3000,
      percs: ['0.15', '0.02'],
      rule: 'fullcredit' as const,
      ex: 2564,
      total: 3000,
    },
  ])('$name', ({ amount, percs, rule, ex, total }) => {
    const { credits } = creditsForCut(
      [
        {
          periodNo: 1,
          start: '2026-03-01',
          end: '2026-04-01',
          amountMinor: amount,
          taxPercs: percs,
          isTaxInclusive: true,
        },
      ],
      '2026-03-21',
      rule,
    );
    expect(credits).toEqual([
      { periodNo: 1, start: '2026-03-21', end: '2026-04-01', exMinor: ex, totalMinor: total },
    ]);
  });

  it('charged and credited, the customer pays exactly the listed price for the days used', () => {
    // Days used d of n at a gross price P: the credit gives back round(P × (n − d) / n), so the customer paid
    // P − that, which is the price of the days used rounded once; never a cent of tax on top.
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 10_000_000 }),
        fc.integer({ min: 1, max: 30 }),
        fc.constantFrom(['0.15'], ['0.2', '0.05'], [] as string[]),
        (price, usedDays, percs) => {
          const cut = `2026-03-${String(1 + usedDays).padStart(2, '0')}`;
          const period = {
            periodNo: 1,
            start: '2026-03-01',
            end: '2026-04-01',
            amountMinor: price,
            taxPercs: percs,
          };
          const [credit] = creditsForCut([{ ...period, isTaxInclusive: true }], cut, 'prorata').credits;
          const back = credit?.totalMinor ?? 0;
          // 31 days in March: the unused share is price × (31 − usedDays) / 31, rounded half up (price > 0).
          expect(back).toBe(Math.floor((2 * price * (31 - usedDays) + 31) / 62));
          const exclusive = creditsForCut([period], cut, 'prorata').credits[0];
          // The same period priced exclusively gives back the same share of its net, plus tax on it.
          expect(exclusive?.exMinor ?? 0).toBe(back);
        },
      ),
    );
  });
});
