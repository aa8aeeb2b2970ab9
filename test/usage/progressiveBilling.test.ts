import { describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.ts';
import type { BillingDeps } from '../../src/billing/billRun.ts';
import { usageAlertRounds } from '../../src/billing/usageAlerts.ts';
import { runCli } from '../helpers/cli.ts';
import type { TestAccount } from '../helpers/service.ts';
import { createPlan, invoicesOf, movableClock, ok } from '../helpers/billing.ts';
import { useTestService } from '../helpers/testService.ts';
import { advance, graduatedCallsSubscription, linesOf } from '../subscriptions/meteredBilling.fixtures.ts';
import { modulePorts } from '../../src/modulePorts.ts';

// docs/usage.md, "Progressive billing": a subscription with a threshold is invoiced mid-period once its metered
// usage not invoiced yet reaches it; the period's final invoice bills the whole usage and deducts what those
// invoices billed, so that the period's invoices add up to exactly what the usage costs.
const clock = movableClock('2026-03-01T10:00:00.000Z');

const t = useTestService({ clock });

async function shop(name: string) {
  const as = await t.newAccount(name, { isTest: true });
  return { as, ...(await graduatedCallsSubscription(as)) };
}

const progressivePath = (subscriptionId: number) => `/v1/subscriptions/${subscriptionId}/progressivebilling`;

async function eventsOf(as: TestAccount, type: string) {
  const events = await ok(as, 'GET', `/v1/events?type=${type}&page_size=200`, undefined, 200);
  return (events as { type: string; data: { object: Record<string, any> } }[]).reverse();
}

describe('progressive billing of a tiered usage component', () => {
  it('invoices the usage as it crosses the threshold, and the final invoice deducts it', async () => {
    const { as, customerId, subscriptionId, send } = await shop('Progressive shop');
    expect(
      await ok(as, 'PUT', progressivePath(subscriptionId), { ProgressiveBillingThreshold: '100.00' }, 200),
    ).toEqual({
      subscriptionID: subscriptionId,
      CurrencyCode: 'USD',
      ProgressiveBillingThreshold: '100.00',
      PeriodStart: '2026-03-01',
      PeriodEnd: '2026-04-01',
      ProgressiveInvoiced: 0,
      ProgressiveDiscounted: 0,
      ProgressiveInvoiceIDs: [],
    });
    // 1 Mar: the plan's 30.00 for March, made when subscribing.
    expect((await invoicesOf(as, customerId)).map((i) => i.Total)).toEqual([30]);

    // 3,000 calls: 1,000 × 0.10 + 2,000 × 0.05 = 200.00, twice the threshold: one invoice of 200.00 (the day's
    // check, run as the clock moves).
    await send('2026-03-01T09:00:00Z', 3000);
    await advance(as, '2026-03-10T10:00:00.000Z');
    let invoices = await invoicesOf(as, customerId);
    expect(invoices.map((i) => i.Total)).toEqual([30, 200]);
    const first = invoices[1];
    expect(first.InvoiceDate.slice(0, 10)).toBe('2026-03-01');
    expect(linesOf(first)).toEqual([
      [
        'API calls: 3000 calls, usage to 1 Mar (progressive)',
        200,
        'calls',
        '',
        '3000',
        '2026-03-01',
        '2026-04-01',
      ],
    ]);

    // 1,000 more: 4,000 cost 100.00 + 3,000 × 0.05 = 250.00, 50.00 not invoiced: below the threshold.
    await send('2026-03-10T09:00:00Z', 1000);
    await advance(as, '2026-03-11T10:00:00.000Z');
    expect((await invoicesOf(as, customerId)).map((i) => i.Total)).toEqual([30, 200]);

    // 3,000 more: 7,000 cost 100.00 + 4,000 × 0.05 + 2,000 × 0.02 = 340.00, past the last bracket's start;
    // 340.00 − 200.00 = 140.00 not invoiced reaches it.
    await send('2026-03-11T09:00:00Z', 3000);
    await advance(as, '2026-03-20T10:00:00.000Z');
    invoices = await invoicesOf(as, customerId);
    expect(invoices.map((i) => i.Total)).toEqual([30, 200, 140]);
    expect(linesOf(invoices[2])[0].slice(0, 2)).toEqual([
      'API calls: 7000 calls, usage to 11 Mar (progressive)',
      140,
    ]);
    expect(await ok(as, 'GET', progressivePath(subscriptionId))).toMatchObject({
      ProgressiveInvoiced: 340,
      ProgressiveInvoiceIDs: [invoices[1].invoiceID, invoices[2].invoiceID],
    });

    // 1,500 more: 8,500 cost 340.00 + 1,500 × 0.02 = 370.00; 30.00 waits for the period's end.
    await send('2026-03-20T09:00:00Z', 1500);
    await advance(as, '2026-04-01T10:00:00.000Z');
    invoices = await invoicesOf(as, customerId);
    expect(invoices.map((i) => i.Total)).toEqual([30, 200, 140, 60]);
    // 1 Apr: April's 30.00, March's whole usage 370.00, less the 340.00 invoiced progressively: 60.00.
    expect(linesOf(invoices[3]).map((line: unknown[]) => line.slice(0, 2))).toEqual([
      // The plan's name counts the plans the test helpers made in this worker.
      [expect.stringMatching(/^Plan \d+$/), 30],
      ['API calls: 8500 calls (1,000 at 0.10; 4,000 at 0.05; 3,500 at 0.02)', 370],
      ['API calls: less usage invoiced progressively', -340],
    ]);
    // March's usage over its invoices: 200.00 + 140.00 + (370.00 − 340.00) = 370.00, its price.

    // Each progressive invoice was announced as any invoice is.
    const created = (await eventsOf(as, 'invoice.created')).map((e) => e.data.object.invoiceID);
    expect(created).toEqual(expect.arrayContaining([invoices[1].invoiceID, invoices[2].invoiceID]));
    // The new period starts with nothing invoiced progressively.
    expect(await ok(as, 'GET', progressivePath(subscriptionId))).toMatchObject({
      PeriodStart: '2026-04-01',
      ProgressiveInvoiced: 0,
      ProgressiveInvoiceIDs: [],
    });
  }, 60_000);
});

describe('a progressive invoice is an invoice like the others', () => {
  it('is taxed as the final invoice would be and paid from prepaid credit as it is issued', async () => {
    const { as, customerId, subscriptionId, send } = await shop('Taxed shop');
    await ok(as, 'POST', '/v1/tax', { Name: 'VAT', rules: [{ Perc: 0.15 }] });
    const wallet = await ok(as, 'POST', `/v1/customers/${customerId}/wallets`, { CurrencyCode: 'USD' });
    await ok(as, 'POST', `/v1/wallets/${wallet.walletID}/grants`, { Amount: 100 });
    await ok(as, 'PUT', progressivePath(subscriptionId), { ProgressiveBillingThreshold: 50 }, 200);
    // 600 calls × 0.10 = 60.00 reaches 50.00.
    await send('2026-03-01T09:00:00Z', 600);
    await advance(as, '2026-03-02T10:00:00.000Z');
    const progressive = (await invoicesOf(as, customerId)).at(-1);
    // 60.00 + 15% VAT 9.00 = 69.00; the grant pays it all, 31.00 of its 100.00 left for the next.
    expect(progressive).toMatchObject({ Total: 69, TotalNegativeAdjs: 69, Balance: 0 });
    expect(progressive.Charges[0].AmountEx).toBe(60);
    expect(progressive.Charges[0].Descrip).toBe('API calls: 600 calls, usage to 1 Mar (progressive)');
  }, 60_000);
});

describe('checks that meet', () => {
  it('the alerts’ rounds invoice it once, however many run at once; a cancellation deducts it', async () => {
    const { as, customerId, subscriptionId, send } = await shop('Rounds shop');
    await ok(as, 'PUT', progressivePath(subscriptionId), { ProgressiveBillingThreshold: 50 }, 200);
    // 600 calls × 0.10 = 60.00.
    await send('2026-03-01T09:00:00Z', 600);
    const deps: BillingDeps = {
      ports: modulePorts(),
      db: t.service.storage.db,
      clock,
      wallClock: systemClock,
      log: t.service.log,
      secrets: t.service.secrets,
      mailQueued: () => {},
    };
    // Two workers' first rounds (sweeps) at once, then a third: one invoice between them.
    await Promise.all([usageAlertRounds(deps).nextRound(), usageAlertRounds(deps).nextRound()]);
    await usageAlertRounds(deps).nextRound();
    expect((await invoicesOf(as, customerId)).map((i) => i.Total)).toEqual([30, 60]);

    // 200 more on 9 Mar: 800 cost 80.00, 20.00 not invoiced. Cancelled on 10 Mar, billing stops then: its last
    // invoice bills 1–9 Mar's 800 calls, 80.00, less the 60.00 invoiced progressively: 20.00.
    await advance(as, '2026-03-10T10:00:00.000Z');
    await send('2026-03-09T09:00:00Z', 200);
    await ok(as, 'PUT', `/v1/subscriptions/${subscriptionId}/cancel/norefund`);
    await advance(as, '2026-03-10T11:00:00.000Z');
    const invoices = await invoicesOf(as, customerId);
    expect(invoices.map((i) => i.Total)).toEqual([30, 60, 20]);
    expect(linesOf(invoices[2]).map((line: unknown[]) => line.slice(0, 2))).toEqual([
      ['API calls: 800 calls', 80],
      ['API calls: less usage invoiced progressively', -60],
    ]);
    // Billing has stopped: no period, nothing more invoiced progressively.
    expect(await ok(as, 'GET', progressivePath(subscriptionId))).toMatchObject({ PeriodStart: null });
  }, 60_000);
});

describe('billing check-usage-alerts', () => {
  it('issues the progressive invoices of the account it checks, once', async () => {
    const { as, customerId, subscriptionId, send } = await shop('CLI shop');
    await ok(as, 'PUT', progressivePath(subscriptionId), { ProgressiveBillingThreshold: 50 }, 200);
    // 700 calls × 0.10 = 70.00, past 50.00; no round or clock has checked it yet.
    await send('2026-03-01T09:00:00Z', 700);
    expect((await invoicesOf(as, customerId)).map((i) => i.Total)).toEqual([30]);
    const check = () => runCli(['check-usage-alerts', '--account', String(as.accountId), '--json'], t.env);
    const first = await check();
    expect(first.code, first.stderr).toBe(0);
    expect(JSON.parse(first.stdout)).toMatchObject({ progressiveInvoices: 1, failures: 0 });
    expect((await invoicesOf(as, customerId)).map((i) => i.Total)).toEqual([30, 70]);
    // Nothing more has accrued: a second check issues nothing.
    const second = await check();
    expect(JSON.parse(second.stdout)).toMatchObject({ progressiveInvoices: 0, failures: 0 });
    expect((await invoicesOf(as, customerId)).map((i) => i.Total)).toEqual([30, 70]);
  }, 60_000);
});

describe('a change of plan in the middle of a period', () => {
  it('deducts on the change’s invoice, and the new period starts with nothing invoiced', async () => {
    const { as, customerId, subscriptionId, send } = await shop('Change shop');
    await ok(as, 'PUT', progressivePath(subscriptionId), { ProgressiveBillingThreshold: '100' }, 200);
    // 3,000 calls: 200.00, invoiced on 1 Mar.
    await send('2026-03-01T09:00:00Z', 3000);
    await advance(as, '2026-03-16T10:00:00.000Z');
    const gold = await createPlan(as, { chargePrice: 62 });
    await ok(as, 'PUT', `/v1/subscriptions/${subscriptionId}/changePackage`, {
      packageID: gold.packageId,
      packageRateTermID: gold.rateTermId,
    });
    let invoices = await invoicesOf(as, customerId);
    expect(invoices.map((i) => i.Total)).toEqual([30, 200, 32]);
    // The change's invoice: Gold from 16 Mar, 62.00 × 16 / 31 = 32.00; 1–16 Mar's 3,000 calls, 200.00, all of it
    // invoiced progressively: the usage lines net to 0.00.
    expect(linesOf(invoices[2]).map((line: unknown[]) => line.slice(0, 2))).toEqual([
      [expect.stringContaining(gold.name), 32],
      ['API calls: 3000 calls (1,000 at 0.10; 2,000 at 0.05)', 200],
      ['API calls: less usage invoiced progressively', -200],
    ]);

    // The new period (16 Mar–1 Apr) is priced from its first bracket, as without progressive billing: 1,500 calls
    // cost 1,000 × 0.10 + 500 × 0.05 = 125.00, invoiced on 16 Mar; at renewal 125.00 − 125.00 = 0.00.
    await send('2026-03-16T11:00:00Z', 1500);
    await advance(as, '2026-04-01T10:00:00.000Z');
    invoices = await invoicesOf(as, customerId);
    expect(invoices.map((i) => i.Total)).toEqual([30, 200, 32, 125, 62]);
    expect(linesOf(invoices[4]).map((line: unknown[]) => line.slice(0, 2))).toEqual([
      [gold.name, 62],
      ['API calls: 1500 calls (1,000 at 0.10; 500 at 0.05)', 125],
      ['API calls: less usage invoiced progressively', -125],
    ]);
  }, 60_000);
});

describe('the threshold setting', () => {
  it('refuses a bad threshold naming the field, changes nothing, and turns off with null', async () => {
    const { as, subscriptionId } = await shop('Setting shop');
    for (const bad of ['-5', '0', '10.001', 'lots']) {
      const res = await as.request('PUT', progressivePath(subscriptionId), {
        body: { ProgressiveBillingThreshold: bad },
      });
      expect(res.status, res.text).toBe(422);
      expect(res.text).toContain('ProgressiveBillingThreshold');
    }
    expect(await ok(as, 'GET', progressivePath(subscriptionId))).toMatchObject({
      ProgressiveBillingThreshold: null,
    });
    await ok(as, 'PUT', progressivePath(subscriptionId), { ProgressiveBillingThreshold: 25 }, 200);
    expect(await ok(as, 'GET', progressivePath(subscriptionId))).toMatchObject({
      ProgressiveBillingThreshold: '25.00',
    });
    await ok(as, 'PUT', progressivePath(subscriptionId), { ProgressiveBillingThreshold: null }, 200);
    expect(await ok(as, 'GET', progressivePath(subscriptionId))).toMatchObject({
      ProgressiveBillingThreshold: null,
    });
  });

  it("answers 404 for another account's subscription, and changes nothing", async () => {
    const { as, subscriptionId } = await shop('Owner shop');
    const other = await t.newAccount('Other shop', { isTest: true });
    const res = await other.request('PUT', progressivePath(subscriptionId), {
      body: { ProgressiveBillingThreshold: '1.00' },
    });
    expect(res.status).toBe(404);
    expect((await other.request('GET', progressivePath(subscriptionId))).status).toBe(404);
    expect(await ok(as, 'GET', progressivePath(subscriptionId))).toMatchObject({
      ProgressiveBillingThreshold: null,
    });
  });
});
