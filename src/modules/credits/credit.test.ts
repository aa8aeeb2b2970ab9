import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { capacityOf, consumptionOrder, isExpired, noSums, planSpend, remainingOf } from './credit.ts';
import type { SpendableGrant } from './credit.ts';

const g = (
  id: number,
  priority: number,
  expiresAt: string | null,
  availableMinor = 1000,
): SpendableGrant => ({
  id,
  priority,
  expiresAt,
  availableMinor,
  metricCodes: null,
  componentIds: null,
});

/** An invoice line: its metric and component (null when it bills neither) and its amount with tax. */
const line = (metricCode: string | null, amountIncMinor: number, componentId: number | null = null) => ({
  metricCode,
  componentId,
  amountIncMinor,
});

describe('the consumption order', () => {
  it('is priority, then the earliest expiry with none last, then the oldest', () => {
    const grants = [
      g(1, 2, null),
      g(2, 1, '2026-06-01T00:00:00.000Z'),
      g(3, 1, '2026-04-01T00:00:00.000Z'),
      g(4, 1, null),
      g(5, 1, null),
    ];
    expect([...grants].sort(consumptionOrder).map((grant) => grant.id)).toEqual([3, 2, 4, 5, 1]);
  });

  it('counts a grant expired from its expiry instant on', () => {
    expect(isExpired('2026-03-10T00:00:00.000Z', '2026-03-09T23:59:59.999Z')).toBe(false);
    expect(isExpired('2026-03-10T00:00:00.000Z', '2026-03-10T00:00:00.000Z')).toBe(true);
    expect(isExpired(null, '2999-01-01T00:00:00.000Z')).toBe(false);
  });
});

describe('planSpend', () => {
  it('fills each invoice from the grants in order', () => {
    // 2500 over grants of 1000: 3 (earliest expiry), 2, then 4 for 500.
    const plan = planSpend(
      [
        g(1, 2, null),
        g(2, 1, '2026-06-01T00:00:00.000Z'),
        g(3, 1, '2026-04-01T00:00:00.000Z'),
        g(4, 1, null),
      ],
      [{ invoiceId: 9, openMinor: 2500, lines: [], restrictedPaidMinor: 0 }],
    );
    expect(plan).toEqual([
      { grantId: 3, invoiceId: 9, amountMinor: 1000 },
      { grantId: 2, invoiceId: 9, amountMinor: 1000 },
      { grantId: 4, invoiceId: 9, amountMinor: 500 },
    ]);
  });

  it('lets a grant restricted to metrics pay only their lines, less what restricted grants paid', () => {
    const api = { ...g(1, 1, null), metricCodes: ['api'] };
    const again = { ...g(2, 1, null), metricCodes: ['api'] };
    const plan = planSpend(
      [api, again, g(3, 2, null, 300)],
      [
        {
          invoiceId: 7,
          openMinor: 3500,
          lines: [line(null, 3000), line('api', 500)],
          restrictedPaidMinor: 100,
        },
      ],
    );
    // The api lines make 500, of which 100 is paid already: 400 from grant 1, none from 2, 300 from 3.
    expect(plan).toEqual([
      { grantId: 1, invoiceId: 7, amountMinor: 400 },
      { grantId: 3, invoiceId: 7, amountMinor: 300 },
    ]);
  });

  it('lowers a restricted grant’s lines in proportion to the invoice’s lines below zero', () => {
    const api = { ...g(1, 1, null), metricCodes: ['api'] };
    const plan = planSpend(
      [api, g(2, 2, null, 2000)],
      [
        {
          invoiceId: 7,
          openMinor: 2000,
          lines: [line(null, 3000), line('api', 1000), line(null, -2000)],
          restrictedPaidMinor: 0,
        },
      ],
    );
    // A 50 % coupon's −2000 on 4000 of lines: the api line is worth 1000 × 2000 / 4000 = 500 to grant 1; grant 2
    // pays the other 1500.
    expect(plan).toEqual([
      { grantId: 1, invoiceId: 7, amountMinor: 500 },
      { grantId: 2, invoiceId: 7, amountMinor: 1500 },
    ]);
  });

  it('lets a grant restricted to components pay their lines, netting what progressive invoices billed', () => {
    const storage = { ...g(1, 1, null, 5000), componentIds: [9] };
    const api = { ...g(2, 1, null, 5000), metricCodes: ['api'] };
    const invoice = (invoiceId: number) => ({
      invoiceId,
      openMinor: 5000,
      lines: [
        line(null, 3000),
        // Recorded usage of component 9 (no metric): 1200.
        line(null, 1200, 9),
        // Usage of metric api (component 4): 2000, of which progressive invoices billed 1200.
        line('api', 2000, 4),
        line(null, -1200, 4),
      ],
      restrictedPaidMinor: 0,
    });
    expect(planSpend([storage], [invoice(7)])).toEqual([{ grantId: 1, invoiceId: 7, amountMinor: 1200 }]);
    // The api usage nets 2000 − 1200 = 800: all a grant restricted to the metric may pay, not 2000.
    expect(planSpend([api], [invoice(8)])).toEqual([{ grantId: 2, invoiceId: 8, amountMinor: 800 }]);
  });

  it('takes a coupon from a component by its usage before the deduction, as the coupon took it', () => {
    // Plan 34.50, usage 241.50 less 115.00 billed progressively, a 50 % coupon's −138.00 (all with 15 % VAT): the
    // coupon took 120.75 of the usage's 241.50, so the component is worth 126.50 − 120.75 = 5.75, not a share of
    // its net 126.50.
    const usage = { ...g(1, 1, null, 5000), componentIds: [4] };
    const plan = planSpend(
      [usage],
      [
        {
          invoiceId: 9,
          openMinor: 2300,
          lines: [line(null, 3450), line('api', 24150, 4), line(null, -11500, 4), line(null, -13800)],
          restrictedPaidMinor: 0,
        },
      ],
    );
    expect(plan).toEqual([{ grantId: 1, invoiceId: 9, amountMinor: 575 }]);
  });

  it('never spends more than a grant holds nor an invoice owes', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 1, max: 3 }), fc.nat(5000)), { maxLength: 6 }),
        fc.array(fc.nat(5000), { maxLength: 6 }),
        (grants, opens) => {
          const plan = planSpend(
            grants.map(([priority, available], i) => g(i + 1, priority, null, available)),
            opens.map((openMinor, i) => ({ invoiceId: i + 1, openMinor, lines: [], restrictedPaidMinor: 0 })),
          );
          for (const [i, [, available]] of grants.entries())
            expect(
              plan.filter((p) => p.grantId === i + 1).reduce((s, p) => s + p.amountMinor, 0),
            ).toBeLessThanOrEqual(available);
          for (const [i, open] of opens.entries())
            expect(
              plan.filter((p) => p.invoiceId === i + 1).reduce((s, p) => s + p.amountMinor, 0),
            ).toBeLessThanOrEqual(open);
          // Nothing left both in a grant and on an invoice.
          const spent = plan.reduce((s, p) => s + p.amountMinor, 0);
          const held = grants.reduce((s, [, a]) => s + a, 0);
          const owed = opens.reduce((s, o) => s + o, 0);
          expect(spent).toBe(Math.min(held, owed));
        },
      ),
    );
  });
});

describe('a grant figures', () => {
  it('sums its journal', () => {
    const sums = { ...noSums(), grant: 1000, consume: 600, release: 100, expire: 200, void: 50 };
    expect(remainingOf(sums)).toBe(250);
    expect(capacityOf(sums)).toBe(750);
  });

  it('counts a refund less what was undone of it', () => {
    const sums = { ...noSums(), grant: 1000, consume: 300, refund: 500, refund_undone: 200 };
    // 1000 − 300 − (500 − 200) = 400 left; 1000 − 300 refunded = 700 it may pay in all.
    expect(remainingOf(sums)).toBe(400);
    expect(capacityOf(sums)).toBe(700);
  });
});
