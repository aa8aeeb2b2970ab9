import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { taxedReductions } from './reduction.ts';
import type { ReducedSoFar, ReductionChange } from './reduction.ts';

/** An invoice of 100.00 + 15 % VAT: 115.00 with 15.00 of VAT. */
const invoices = new Map([[7, { totalMinor: 11500, taxMinor: 1500 }]]);

const change = (sourceId: number, amountMinor: number): ReductionChange => ({
  customerId: 1,
  invoiceId: 7,
  source: { type: 'credit_note', id: sourceId },
  taxCreditNoteId: null,
  amountMinor,
  date: '2026-03-10',
});

describe('taxedReductions', () => {
  it('gives each part its share of what the invoice was reduced by in all', () => {
    const taxed = taxedReductions(
      [change(1, 1000), change(2, 1000), change(3, 1000), change(4, 8500)],
      invoices,
      new Map(),
    );
    // Shares of 10.00, 20.00, 30.00 and 115.00: 1.30, 2.61, 3.91, 15.00.
    expect(taxed.map((row) => row.taxMinor)).toEqual([130, 131, 130, 1109]);
  });

  it("gives back a source's own share, so a source that gives all back nets to nothing", () => {
    const soFar = new Map<number, ReducedSoFar>();
    const [a, b, back] = taxedReductions(
      [change(1, 1000), change(2, 1000), change(1, -1000)],
      invoices,
      soFar,
    );
    expect([a!.taxMinor, b!.taxMinor, back!.taxMinor]).toEqual([130, 131, -130]);
    // The invoice stands at 10.00 with 1.31 taken off; the next part snaps it back to its share.
    const [next] = taxedReductions([change(3, 10500)], invoices, soFar);
    expect(next!.taxMinor).toBe(1500 - 131);
  });

  it('gives back no more than a source took off, and takes no VAT off past the invoice', () => {
    // Source 1 took nothing off (a credit note made before reductions were recorded): its give-back is no row.
    expect(taxedReductions([change(1, -1000)], invoices, new Map())).toEqual([]);
    // Source 2 took 10.00 off and gives back 25.00: only its 10.00, with its 1.30.
    const [took, back] = taxedReductions([change(2, 1000), change(2, -2500)], invoices, new Map());
    expect([took!.amountMinor, took!.taxMinor, back!.amountMinor, back!.taxMinor]).toEqual([
      1000, 130, -1000, -130,
    ]);
    // 115.00 taken off, then 20.00 more stated: the 20.00 carries no VAT, all 15.00 was taken already.
    const [whole, beyond] = taxedReductions([change(3, 11500), change(4, 2000)], invoices, new Map());
    expect([whole!.taxMinor, beyond!.taxMinor]).toEqual([1500, 0]);
  });

  it('takes exactly the VAT off an invoice reduced to nothing, whatever the parts and give-backs', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 1, max: 4 }), fc.integer({ min: -3000, max: 3000 })), {
          maxLength: 20,
        }),
        (steps) => {
          const soFar = new Map<number, ReducedSoFar>();
          const held = new Map<number, number>();
          const changes: ReductionChange[] = [];
          let reduced = 0;
          for (const [source, amount] of steps) {
            // Never more than the invoice, never back more than a source holds.
            const bounded = Math.max(-(held.get(source) ?? 0), Math.min(amount, 11500 - reduced));
            if (bounded === 0) continue;
            held.set(source, (held.get(source) ?? 0) + bounded);
            reduced += bounded;
            changes.push(change(source, bounded));
          }
          changes.push(change(9, 11500 - reduced));
          const taxed = taxedReductions(
            changes.filter((c) => c.amountMinor !== 0),
            invoices,
            soFar,
          );
          expect(taxed.reduce((sum, row) => sum + row.taxMinor, 0)).toBe(1500);
          for (const source of held.keys()) {
            const own = taxed.filter((row) => row.source.id === source);
            if (own.reduce((sum, row) => sum + row.amountMinor, 0) === 0)
              expect(own.reduce((sum, row) => sum + row.taxMinor, 0)).toBe(0);
          }
        },
      ),
    );
  });
});
