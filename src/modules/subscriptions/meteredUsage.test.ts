import { describe, expect, it } from 'vitest';
import { claimedIntervals } from '../usage/index.ts';
import { TIERED, subscription, usageRow } from './subscriptionBilling.fixtures.ts';
import { planBilling } from './subscriptionBilling.ts';
import {
  OPEN_END,
  correctionsOf,
  eventsUnbilledAtStop,
  finalCorrectionOn,
  mayHaveLateEvents,
  meteringSubscription,
  periodInterval,
  periodText,
  periodsToMeter,
  restsAfterUndoneStops,
} from './meteredUsage.ts';
import { chargeCorrection } from './usageCharge.ts';

const HOUR = 3_600_000;

describe('a usage period in the account time zone', () => {
  it('runs from midnight to midnight there', () => {
    // Johannesburg is UTC+2 all year: 1 Nov 00:00 there is 31 Oct 22:00 UTC.
    expect(periodInterval({ start: '2026-11-01', end: '2026-12-01' }, 'Africa/Johannesburg')).toEqual({
      from: Date.UTC(2026, 9, 31, 22),
      to: Date.UTC(2026, 10, 30, 22),
    });
  });

  it('is an hour shorter across the spring change and an hour longer across the autumn one', () => {
    // New York: EST (UTC−5) until 8 Mar 2026 02:00, then EDT (UTC−4) until 1 Nov 2026 02:00.
    const march = periodInterval({ start: '2026-03-08', end: '2026-03-09' }, 'America/New_York');
    expect(march).toEqual({ from: Date.UTC(2026, 2, 8, 5), to: Date.UTC(2026, 2, 9, 4) });
    expect(march.to - march.from).toBe(23 * HOUR);
    const november = periodInterval({ start: '2026-11-01', end: '2026-11-02' }, 'America/New_York');
    expect(november.to - november.from).toBe(25 * HOUR);
    // A month across the change: 1 Mar 05:00 UTC to 1 Apr 04:00 UTC.
    expect(periodInterval({ start: '2026-03-01', end: '2026-04-01' }, 'America/New_York')).toEqual({
      from: Date.UTC(2026, 2, 1, 5),
      to: Date.UTC(2026, 3, 1, 4),
    });
  });
});

describe('which subscription claims a customer-level event', () => {
  const tz = 'UTC';
  const first = meteringSubscription({ id: 3, startDate: '2026-01-01', stopAt: '2026-02-15' }, ['api'], tz);
  const second = meteringSubscription({ id: 7, startDate: '2026-02-01', stopAt: null }, ['api'], tz);
  const february = periodInterval({ start: '2026-02-01', end: '2026-03-01' }, tz);

  it('covers a subscription from its start to where billing stops, or for ever', () => {
    expect(first.covers).toEqual([{ from: Date.UTC(2026, 0, 1), to: Date.UTC(2026, 1, 15) }]);
    expect(second.covers).toEqual([{ from: Date.UTC(2026, 1, 1), to: OPEN_END }]);
  });

  it('gives the overlap to the subscription created first, the rest to the other', () => {
    expect(claimedIntervals(3, 'api', february, [first, second])).toEqual([
      { from: Date.UTC(2026, 1, 1), to: Date.UTC(2026, 1, 15) },
    ]);
    expect(claimedIntervals(7, 'api', february, [first, second])).toEqual([
      { from: Date.UTC(2026, 1, 15), to: Date.UTC(2026, 2, 1) },
    ]);
  });
});

describe('the periods whose metered usage is billed', () => {
  const periods = [
    { start: '2026-01-15', end: '2026-02-15' },
    { start: '2026-02-15', end: '2026-03-15' },
    { start: '2026-03-15', end: '2026-04-15' },
  ];

  it('are those over by the day, not billed yet, once each', () => {
    const twice = [...periods, periods[1]!];
    expect(periodsToMeter(twice, null, '2026-03-15', new Set(['2026-01-15']))).toEqual([
      { start: '2026-02-15', end: '2026-03-15' },
    ]);
  });

  it('end where billing stops', () => {
    expect(periodsToMeter(periods, '2026-03-20', '2026-03-20', new Set())).toEqual([
      periods[0],
      periods[1],
      { start: '2026-03-15', end: '2026-03-20' },
    ]);
  });

  it('are billed by the plan on the first invoice dated on or after their end', () => {
    // The metered period is fed to planBilling as usage of its own: Feb 15–Mar 15 goes on the Mar 15 invoice.
    const metered = {
      ...usageRow(-1, '2026-02-15', '2026-03-15', '12'),
      metered: { metricCode: 'api', group: '' },
    };
    const plan = planBilling(
      subscription({ periodCount: 1, nextRenewDate: '2026-02-15', setupBilled: true }),
      [metered],
      '2026-03-15',
    );
    expect(plan.invoices.map((i) => [i.invoiceDate, i.usageIds])).toEqual([
      ['2026-02-15', []],
      ['2026-03-15', [-1]],
    ]);
    // 12 calls: 10 × 1.00 + 2 × 0.80 = 11.60
    expect(plan.invoices[1]!.lines[1]).toEqual({
      descrip: 'API calls: 12 calls (10 at 1.00; 2 at 0.80)',
      qty: '1',
      unitCostEx: '11.6',
      periodStart: '2026-02-15',
      periodEnd: '2026-03-15',
      metered: { metricCode: 'api', group: '', quantity: '12' },
    });
  });
});

describe('late events', () => {
  it('may reach a billed period until its end plus the grace window has passed the last bill', () => {
    const november = { start: '2026-11-01', end: '2026-12-01' };
    // Grace 72 h: events for November are taken until 4 Dec 00:00.
    expect(mayHaveLateEvents(november, '2026-12-01', 72, 'UTC')).toBe(true);
    expect(mayHaveLateEvents(november, '2026-12-03', 72, 'UTC')).toBe(true);
    expect(mayHaveLateEvents(november, '2026-12-04', 72, 'UTC')).toBe(false);
    expect(mayHaveLateEvents(november, '2027-01-01', 72, 'UTC')).toBe(false);
  });

  it('correct each group by what was added, a group billed and now gone to zero', () => {
    const billed = new Map([
      ['eu', '100'],
      ['us', '5'],
    ]);
    const now = new Map([
      ['eu', '220'],
      ['ap', '3.5'],
    ]);
    expect(correctionsOf(billed, now)).toEqual([
      { group: 'ap', billed: '0', added: '3.5' },
      { group: 'eu', billed: '100', added: '120' },
      { group: 'us', billed: '5', added: '-5' },
    ]);
    expect(correctionsOf(billed, billed)).toEqual([]);
  });

  it('are priced at the difference the addition makes, so tiers stay right', () => {
    const price = { scheme: 'unit' as const, brackets: TIERED };
    // 8 billed (8.00); 8 + 5 = 13: 10 × 1.00 + 3 × 0.80 = 12.40; the 5 added cost 4.40, not 5 × 1.00.
    expect(chargeCorrection(price, '8', '5', 'USD')).toBe('4.40');
    expect(chargeCorrection(price, '13', '-5', 'USD')).toBe('-4.40');
    // Volume: the whole quantity at the bracket it reaches; 20 → 21 moves all 21 to 0.50: 10.50 − 16.00.
    expect(chargeCorrection({ scheme: 'volume', brackets: TIERED }, '20', '1', 'USD')).toBe('-5.50');
  });

  it('are rounded as their lines are, so a period adds up to the rounded price of its whole quantity', () => {
    const price = { scheme: 'unit' as const, brackets: [{ price: '0.005', qtyFrom: '1', qtyTill: null }] };
    // 1 unit billed as 0.01 (0.005 rounded half away from zero); 2 units cost 0.01: the late one adds nothing.
    expect(chargeCorrection(price, '1', '1', 'USD')).toBe('0.00');
    // A third: 3 × 0.005 = 0.015 → 0.02, one cent more than the 0.01 billed.
    expect(chargeCorrection(price, '2', '1', 'USD')).toBe('0.01');
    // Zero-decimal currencies round to whole units.
    expect(
      chargeCorrection(
        { scheme: 'unit', brackets: [{ price: '0.5', qtyFrom: '1', qtyTill: null }] },
        '1',
        '2',
        'JPY',
      ),
    ).toBe('1');
  });

  it('name the period they correct', () => {
    const row = {
      ...usageRow(-2, '2026-11-01', '2026-12-01', '120'),
      metered: { metricCode: 'api', group: '' },
      billedUnits: '1000',
    };
    const plan = planBilling(
      subscription({
        startDate: '2026-11-01',
        periodCount: 2,
        nextRenewDate: '2027-01-01',
        setupBilled: true,
      }),
      [row],
      '2027-01-01',
    );
    // 1,000 billed: 10 + 8 + 980 × 0.50 = 508.00; 1,120: 568.00; the 120 more cost 60.00.
    expect(plan.invoices[0]!.lines[1]).toMatchObject({
      descrip: 'API calls, 1–30 Nov 2026: 120 more calls',
      unitCostEx: '60.00',
      metered: { metricCode: 'api', group: '', quantity: '120' },
    });
  });

  it('write periods across months and years in full', () => {
    expect(periodText({ start: '2026-11-15', end: '2026-12-15' })).toBe('15 Nov–14 Dec 2026');
    expect(periodText({ start: '2026-12-15', end: '2027-01-15' })).toBe('15 Dec 2026–14 Jan 2027');
    expect(periodText({ start: '2026-12-15', end: '2026-12-16' })).toBe('15 Dec 2026');
  });
});

describe('the last invoice of usage read from events', () => {
  it('is due on the stop day once every period is billed, until an invoice is dated on it', () => {
    // Monthly from 15 Jan, ending 15 Mar: both periods billed in advance by 15 Feb, no usage rows open.
    const timeline = subscription({ endDate: '2026-03-15' });
    const byFeb = planBilling(timeline, [], '2026-02-15');
    expect(byFeb.invoices.map((i) => i.invoiceDate)).toEqual(['2026-01-15', '2026-02-15']);
    expect(byFeb.next.nextInvDate).toBeNull();
    const billsEvents = { ...timeline, eventsUnbilledAtStop: '2026-03-15' };
    expect(planBilling(billsEvents, [], '2026-02-15').next.nextInvDate).toBe('2026-03-15');
    // Its usage, read from the events once the period is over, goes on that invoice; then nothing is left.
    const after = planBilling(billsEvents, [usageRow(-1, '2026-02-15', '2026-03-15', '3')], '2026-03-15');
    expect(after.invoices.map((i) => i.invoiceDate)).toEqual(['2026-01-15', '2026-02-15', '2026-03-15']);
    expect(after.next.nextInvDate).toBeNull();
  });

  it('is owed only by a subscription billing events that has not invoiced through its stop', () => {
    const record = {
      startDate: '2026-01-15',
      cancelDate: null,
      endDate: '2026-03-15',
      lastInvDate: '2026-02-15',
    };
    expect(eventsUnbilledAtStop(record, true)).toBe('2026-03-15');
    expect(eventsUnbilledAtStop(record, false)).toBeNull();
    expect(eventsUnbilledAtStop({ ...record, lastInvDate: '2026-03-15' }, true)).toBeNull();
    expect(eventsUnbilledAtStop({ ...record, cancelDate: '2026-03-01' }, true)).toBe('2026-03-01');
    expect(eventsUnbilledAtStop({ ...record, endDate: null }, true)).toBeNull();
  });

  it('is not owed by a subscription that stops on or before its start: it has no usage period', () => {
    // A future start cancelled at once (cancelDate today, before the start) would otherwise stay due for ever.
    const record = { startDate: '2026-05-01', endDate: null, lastInvDate: null };
    expect(eventsUnbilledAtStop({ ...record, cancelDate: '2026-04-20' }, true)).toBeNull();
    expect(eventsUnbilledAtStop({ ...record, cancelDate: '2026-05-01' }, true)).toBeNull();
    expect(eventsUnbilledAtStop({ ...record, cancelDate: '2026-05-02' }, true)).toBe('2026-05-02');
  });
});

describe('the final correction invoice (docs/usage.md, "After the last invoice")', () => {
  const record = { startDate: '2026-01-15', cancelDate: null, endDate: '2026-03-15' };

  it("is due on the first day that begins once the last period's grace window has closed", () => {
    expect(finalCorrectionOn(record, true, 72, 'UTC')).toBe('2026-03-18');
    expect(finalCorrectionOn(record, true, 30, 'UTC')).toBe('2026-03-17');
    expect(finalCorrectionOn(record, true, 0, 'UTC')).toBe('2026-03-15');
    expect(finalCorrectionOn(record, false, 72, 'UTC')).toBeNull();
    expect(finalCorrectionOn({ ...record, endDate: null }, true, 72, 'UTC')).toBeNull();
    expect(finalCorrectionOn({ ...record, cancelDate: '2026-01-15' }, true, 72, 'UTC')).toBeNull();
    // Berlin moves to summer time on 29 Mar: 72 hours from 27 Mar 00:00 end on 30 Mar 01:00, so 31 Mar.
    expect(finalCorrectionOn({ ...record, endDate: '2026-03-27' }, true, 72, 'Europe/Berlin')).toBe(
      '2026-03-31',
    );
    // And back on 25 Oct: 72 hours from 23 Oct 00:00 end on 25 Oct 23:00, so 26 Oct.
    expect(finalCorrectionOn({ ...record, endDate: '2026-10-23' }, true, 72, 'Europe/Berlin')).toBe(
      '2026-10-26',
    );
  });

  it('bills the corrections open after the last invoice on that day, once, and none before it', () => {
    // Monthly from 15 Jan, ending 15 Mar, billed through the stop: a late event corrects 15 Feb–15 Mar.
    const timeline = {
      ...subscription({ endDate: '2026-03-15' }),
      periodCount: 2,
      nextRenewDate: '2026-03-15',
      setupBilled: true,
      finalCorrectionOn: '2026-03-18',
    };
    const correction = { ...usageRow(-1, '2026-02-15', '2026-03-15', '2'), billedUnits: '3' };
    const before = planBilling(timeline, [correction], '2026-03-16');
    expect(before.invoices).toEqual([]);
    expect(before.next.nextInvDate).toBe('2026-03-18');
    const on = planBilling(timeline, [correction], '2026-03-20');
    expect(on.invoices.map((i) => [i.invoiceDate, i.period, i.usageIds])).toEqual([
      ['2026-03-18', null, [-1]],
    ]);
    expect(on.invoices[0]!.lines[0]!.descrip).toContain('15 Feb–14 Mar 2026: 2 more');
    expect(on.next).toMatchObject({ lastInvDate: '2026-03-18', nextInvDate: null });
    // Nothing late: no invoice, and not looked at again.
    expect(planBilling(timeline, [], '2026-03-16').next.nextInvDate).toBe('2026-03-18');
    expect(planBilling(timeline, [], '2026-03-18')).toMatchObject({
      invoices: [],
      next: { nextInvDate: null },
    });
  });
});

describe('the rest of a period billed up to a stop undone since (docs/usage.md, "Reactivating")', () => {
  const march = { start: '2026-03-01', end: '2026-04-01' };
  const billedToTenth = new Map([['2026-03-01', '2026-03-10']]);

  it('is read when billing goes on where the period ends, or when no period follows', () => {
    const april = { start: '2026-04-01', end: '2026-05-01' };
    const rest = [{ start: '2026-03-10', end: '2026-04-01' }];
    expect(restsAfterUndoneStops([march, april], billedToTenth)).toEqual(rest);
    expect(restsAfterUndoneStops([march], billedToTenth)).toEqual(rest);
  });

  it('is not read after a restart on a new cycle, nor for a period billed to its end', () => {
    const restart = { start: '2026-03-20', end: '2026-04-20' };
    expect(restsAfterUndoneStops([march, restart], billedToTenth)).toEqual([]);
    expect(restsAfterUndoneStops([march, { start: '2026-04-03', end: '2026-05-03' }], billedToTenth)).toEqual(
      [],
    );
    expect(restsAfterUndoneStops([march], new Map([['2026-03-01', '2026-04-01']]))).toEqual([]);
    expect(restsAfterUndoneStops([march], new Map())).toEqual([]);
  });
});
