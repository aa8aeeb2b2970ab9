import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decimalToMinor } from '../../core/money.ts';
import type { Bracket } from '../catalogue/index.ts';
import { invoicedByKey, invoicedOf, progressiveInvoiceLines } from './progressiveBilling.ts';
import type { InvoicedSoFar, UsageSoFar } from './progressiveBilling.ts';
import { chargeUsage } from './usageCharge.ts';

// Graduated: 1–1,000 at 0.10, 1,001–5,000 at 0.05, 5,001+ at 0.02 (test/usage/progressiveBilling.test.ts prices the same).
const TIERS: Bracket[] = [
  { qtyFrom: '1', qtyTill: '1000', price: '0.10' },
  { qtyFrom: '1001', qtyTill: '5000', price: '0.05' },
  { qtyFrom: '5001', qtyTill: null, price: '0.02' },
];
// Volume with odd prices, so that rounding to cents matters: 1–99 at 0.333, 100+ at 0.125 + 2.50 flat.
const VOLUME: Bracket[] = [
  { qtyFrom: '1', qtyTill: '99', price: '0.333' },
  { qtyFrom: '100', qtyTill: null, price: '0.125', flatPrice: '2.50' },
];

const priceMinor = (scheme: 'unit' | 'volume', brackets: Bracket[], quantity: string): number =>
  decimalToMinor(chargeUsage({ scheme, brackets }, quantity).amount, 'USD');

describe('progressiveInvoiceLines', () => {
  it('bills nothing below the threshold, then all that is not invoiced in one invoice', () => {
    const soFar = (amountMinor: number): UsageSoFar[] => [
      { componentId: 7, group: '', quantity: 'q', amountMinor },
    ];
    expect(progressiveInvoiceLines(soFar(9_999), [], 10_000)).toBeNull();
    // 250.00 crosses 100.00 twice over: one invoice for all of it.
    expect(progressiveInvoiceLines(soFar(25_000), [], 10_000)).toEqual([
      { componentId: 7, group: '', quantity: 'q', amountMinor: 25_000 },
    ]);
    // 250.00 invoiced, 340.00 now: 90.00 not invoiced is below 100.00; at 350.00 the next 100.00 is.
    const invoiced = [{ componentId: 7, group: '', amountMinor: 25_000 }];
    expect(progressiveInvoiceLines(soFar(34_000), invoiced, 10_000)).toBeNull();
    expect(progressiveInvoiceLines(soFar(35_000), invoiced, 10_000)).toEqual([
      { componentId: 7, group: '', quantity: 'q', amountMinor: 10_000 },
    ]);
  });

  it('sums the groups and leaves out those with nothing new', () => {
    const soFar: UsageSoFar[] = [
      { componentId: 1, group: 'eu', quantity: '10', amountMinor: 6_000 },
      { componentId: 1, group: 'us', quantity: '5', amountMinor: 3_000 },
    ];
    const invoiced: InvoicedSoFar[] = [{ componentId: 1, group: 'us', amountMinor: 3_000 }];
    expect(progressiveInvoiceLines(soFar, invoiced, 5_000)).toEqual([
      { componentId: 1, group: 'eu', quantity: '10', amountMinor: 6_000 },
    ]);
    expect(progressiveInvoiceLines(soFar, invoiced, 6_001)).toBeNull();
  });

  it('is off without a positive threshold', () => {
    const soFar = [{ componentId: 1, group: '', quantity: '1', amountMinor: 100 }];
    expect(progressiveInvoiceLines(soFar, [], 0)).toBeNull();
  });

  // The property: whatever the events and the threshold, a period's invoices (progressive ones, then the
  // final one, which bills the whole quantity less what they billed) add up to the price of its whole usage, and
  // no progressive invoice is below the threshold nor leaves as much as the threshold uninvoiced after a check.
  it('makes the sum of a period’s invoices the price of its usage', () => {
    const group = fc.constantFrom('', 'eu', 'us');
    const event = fc.record({ group, units: fc.integer({ min: 0, max: 900 }), checkAfter: fc.boolean() });
    fc.assert(
      fc.property(
        fc.array(event, { maxLength: 40 }),
        fc.integer({ min: 1, max: 50_000 }),
        fc.constantFrom<['unit' | 'volume', Bracket[]]>(['unit', TIERS], ['volume', VOLUME]),
        (events, thresholdMinor, [scheme, brackets]) => {
          const quantities = new Map<string, number>();
          const invoiced: InvoicedSoFar[] = [];
          const invoices: number[] = [];
          const soFar = (): UsageSoFar[] =>
            [...quantities].map(([g, q]) => ({
              componentId: 1,
              group: g,
              quantity: String(q),
              amountMinor: priceMinor(scheme, brackets, String(q)),
            }));
          for (const { group: g, units, checkAfter } of events) {
            quantities.set(g, (quantities.get(g) ?? 0) + units);
            if (!checkAfter) continue;
            const lines = progressiveInvoiceLines(soFar(), invoiced, thresholdMinor);
            if (lines === null) continue;
            const total = lines.reduce((sum, line) => sum + line.amountMinor, 0);
            expect(total).toBeGreaterThanOrEqual(thresholdMinor);
            invoices.push(total);
            for (const line of lines) invoiced.push({ ...line });
            // Fired once per crossing: right after an invoice nothing is left to invoice.
            expect(progressiveInvoiceLines(soFar(), invoiced, thresholdMinor)).toBeNull();
          }
          // The final invoice: each group's whole price less what progressive invoices billed of it.
          const sums = invoicedByKey(invoiced);
          const final = soFar().reduce((sum, usage) => sum + usage.amountMinor - invoicedOf(sums, usage), 0);
          // Tiers only ever add to the price; a volume bracket can price more units for less (95 × 0.333 = 31.64
          // billed, 100 × 0.125 + 2.50 = 15.00 at the end), and the final invoice then gives back the difference
          // (docs/usage.md, "Progressive billing": "Never below zero").
          if (scheme === 'unit') expect(final).toBeGreaterThanOrEqual(0);
          const whole = soFar().reduce((sum, usage) => sum + usage.amountMinor, 0);
          expect(invoices.reduce((a, b) => a + b, 0) + final).toBe(whole);
        },
      ),
      { numRuns: 300 },
    );
  });
});
