import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { invoicesOf, ok } from '../helpers/billing.ts';
import { detectFeatures, expectedBalance, readLedger, toMinor, toWire } from '../helpers/ledger.ts';
import type { ApiResponse, TestAccount } from '../helpers/service.ts';
import {
  clock,
  expectJournalBalances,
  grant,
  grantOf,
  invoice,
  t,
  useCreditsService,
  walletOf,
} from './credits.fixtures.ts';
import { cardPaidTopUp } from './topUpCardFixture.ts';

// docs/credits.md, "Consumption order", "Expiry", "Crediting a top-up" and "Refunding unused credit": credit is
// consumed, given back, written off and refunded under the customer's lock, so no two paths at once spend the same
// credit. Each run sets up a customer with grants and open invoices, then sends a random set of calls AT ONCE:
// invoices issued and cancelled, credit notes on invoices, grants voided and made, the test clock moved (its daily
// run writes expired grants off) and, for a customer whose card paid a top-up, the paid credit refunded. Each call
// may be refused as documented, never fail (5xx); afterwards the journal balances, no grant gave out more than it
// held, no invoice took more credit or money than its Total, and the customer's Balance reconciles. The races bite
// on PostgreSQL; SQLite runs one writer at a time.
//
// Lock waits as long as a loaded machine makes a holder take (MONEY_LOCK_TIMEOUT_MS is 5 s by default, then a
// 503): a 5xx here must mean a fault, not load.
useCreditsService({ MONEY_LOCK_TIMEOUT_MS: '60000' });

const START = '2026-03-01T10:00:00.000Z';
const dayAfter = (days: number) => new Date(Date.parse(START) + days * 86_400_000).toISOString();

interface GrantSpec {
  cents: number;
  priority: number;
  expiresInDays: number | null;
}

type Op =
  | { kind: 'issue'; cents: number }
  | { kind: 'cancel'; pick: number }
  | { kind: 'creditNote'; pick: number; cents: number }
  | { kind: 'void'; pick: number }
  | ({ kind: 'grant' } & GrantSpec)
  | { kind: 'advance'; days: number }
  /** A share of the top-up's credit, or all that remains. */
  | { kind: 'refund'; percent: number | null };

const grantSpec: fc.Arbitrary<GrantSpec> = fc.record({
  cents: fc.integer({ min: 100, max: 3000 }),
  priority: fc.integer({ min: 1, max: 3 }),
  expiresInDays: fc.option(fc.integer({ min: 1, max: 3 }), { nil: null }),
});

const op: fc.Arbitrary<Op> = fc.oneof(
  {
    arbitrary: fc.record({ kind: fc.constant('issue' as const), cents: fc.integer({ min: 1, max: 3000 }) }),
    weight: 4,
  },
  { arbitrary: fc.record({ kind: fc.constant('cancel' as const), pick: fc.nat() }), weight: 2 },
  {
    arbitrary: fc.record({
      kind: fc.constant('creditNote' as const),
      pick: fc.nat(),
      cents: fc.integer({ min: 1, max: 2000 }),
    }),
    weight: 2,
  },
  { arbitrary: fc.record({ kind: fc.constant('void' as const), pick: fc.nat() }), weight: 2 },
  { arbitrary: grantSpec.map((g) => ({ kind: 'grant' as const, ...g })), weight: 1 },
  {
    arbitrary: fc.record({ kind: fc.constant('advance' as const), days: fc.integer({ min: 1, max: 3 }) }),
    weight: 1,
  },
  {
    arbitrary: fc.record({
      kind: fc.constant('refund' as const),
      percent: fc.option(fc.integer({ min: 1, max: 100 }), { nil: null, freq: 2 }),
    }),
    weight: 3,
  },
);

const scenario = fc.record({
  // A customer whose card paid a top-up of this much (its paid grant may be refunded), or none.
  topUpCents: fc.option(fc.integer({ min: 500, max: 5000 }), { nil: null }),
  grants: fc.array(grantSpec, { minLength: 1, maxLength: 4 }),
  invoices: fc.array(fc.integer({ min: 100, max: 4000 }), { minLength: 1, maxLength: 4 }),
  ops: fc.array(op, { minLength: 3, maxLength: 12 }),
});
type Scenario = typeof scenario extends fc.Arbitrary<infer S> ? S : never;

const grantBody = (g: GrantSpec) => ({
  Amount: toWire(g.cents),
  Priority: g.priority,
  ...(g.expiresInDays === null ? {} : { ExpiresAt: dayAfter(g.expiresInDays).slice(0, 10) }),
});

/** The call one operation makes, on the run's customer, its grants and the invoices set up before. */
function send(as: TestAccount, run: Run, o: Op): Promise<ApiResponse> {
  const invoiceId = (pick: number) => run.invoiceIds[pick % run.invoiceIds.length]!;
  switch (o.kind) {
    case 'issue':
      return as.request('POST', '/v1/invoices', {
        body: {
          customerID: run.customerId,
          Charges: [{ Descrip: 'Work', Qty: 1, UnitCostEx: toWire(o.cents) }],
        },
      });
    case 'cancel':
      return as.request('DELETE', `/v1/invoices/${invoiceId(o.pick)}`);
    case 'creditNote':
      return as.request('POST', '/v1/credits', {
        body: {
          customerID: run.customerId,
          Amount: toWire(o.cents),
          CurrencyCode: 'USD',
          Date: START.slice(0, 10),
          allocations: [{ invoiceID: invoiceId(o.pick), amountApplied: toWire(o.cents) }],
        },
      });
    case 'void':
      return as.request('POST', `/v1/credit-grants/${run.grantIds[o.pick % run.grantIds.length]!}/void`);
    case 'grant':
      return as.request('POST', `/v1/wallets/${run.walletId}/grants`, { body: grantBody(o) });
    case 'advance':
      return as.request('POST', '/v1/test-clock/advance', { body: { To: dayAfter(o.days) } });
    case 'refund':
      return as.request('POST', `/v1/credit-grants/${run.paidGrantId!}/refund`, {
        body:
          o.percent === null
            ? {}
            : { Amount: toWire(Math.max(1, Math.round((run.topUpCents! * o.percent) / 100))) },
      });
  }
}

/**
 * The answers an operation may give, as `status` or `status code` (a 422's field for a validation): its success,
 * or a refusal the documents name for what a concurrent call may have done first.
 */
function allowed(o: Op, ops: readonly Op[]): string[] {
  const advances = ops.filter((other) => other.kind === 'advance').length;
  switch (o.kind) {
    case 'issue':
      return ['201'];
    // docs/credits.md, "Consumption order": an invoice with payments allocated cannot be cancelled; a cancelled one
    // stays cancelled.
    case 'cancel':
      return ['204', '409 invoice_cancelled', '409 invoice_has_allocations'];
    // Refused when it would exceed what the invoice owes, or the invoice was cancelled meanwhile.
    case 'creditNote':
      return ['201', '422 allocations'];
    case 'void':
      return ['200', '409 credit_grant_voided'];
    // docs/credits.md, "Grants": ExpiresAt must be in the future, and the clock may have moved past it first.
    case 'grant':
      return ['201', ...(o.expiresInDays !== null && advances > 0 ? ['422 ExpiresAt'] : [])];
    // Two moves at once: the one that comes second may find the clock already past its To.
    case 'advance':
      return ['200', ...(advances > 1 ? ['422 To'] : [])];
    // docs/credits.md, "Refunding unused credit": what a refund finds too little of, or nothing of.
    case 'refund':
      return [
        '200',
        '409 top_up_credit_spent',
        '409 credit_grant_used',
        '409 credit_grant_voided',
        '422 Amount',
      ];
  }
}

function answerOf(res: ApiResponse): string {
  if (res.status < 300) return String(res.status);
  // A validation names its field, without an index.
  if (res.status === 422) return `422 ${String(res.body?.fields?.[0]?.field).replace(/\[.*$/, '')}`;
  return `${res.status} ${res.body?.code ?? ''}`;
}

interface Run {
  as: TestAccount;
  customerId: number;
  walletId: number;
  /** Its grants made before the calls, the paid one first when there is one. */
  grantIds: number[];
  paidGrantId: number | null;
  topUpCents: number | null;
  invoiceIds: number[];
}

let runs = 0;

async function setUp(s: Scenario): Promise<Run> {
  // A test account's clock starts at the service's and then moves only with the account's test clock.
  clock.set(START);
  const name = `Concurrent credit shop ${++runs}`;
  let run: Run;
  if (s.topUpCents === null) {
    const made = await walletOf(name, { isTest: true });
    run = { ...made, grantIds: [], paidGrantId: null, topUpCents: null, invoiceIds: [] };
  } else {
    const made = await cardPaidTopUp(t, name, { amount: s.topUpCents / 100 });
    run = {
      ...made,
      grantIds: [made.grantId],
      paidGrantId: made.grantId,
      topUpCents: s.topUpCents,
      invoiceIds: [],
    };
  }
  for (const g of s.grants)
    run.grantIds.push((await grant(run.as, run.walletId, grantBody(g))).creditGrantID);
  // Issued after the grants: credit pays them as they are issued, so cancelling and crediting them give it back.
  for (const cents of s.invoices)
    run.invoiceIds.push((await invoice(run.as, run.customerId, toWire(cents))).invoiceID as number);
  return run;
}

/**
 * What the journal, the grants, the invoices and the customer say after the calls. `writtenOff`: every grant past
 * its expiry has been written off (see the run's last step); until then such a grant reads 0 left and nothing
 * expired (docs/credits.md, "Expiry": it pays nothing, whether or not anything has written it off yet).
 */
async function expectConsistent(run: Run, writtenOff: boolean) {
  const { as, walletId, customerId } = run;
  await expectJournalBalances(as, walletId, { writtenOff });
  const grants = (await ok(as, 'GET', `/v1/wallets/${walletId}/grants?page_size=200`)) as any[];
  const paidOn = new Map<number, number>();
  for (const listed of grants) {
    const g = await grantOf(as, listed.creditGrantID);
    const at = `grant ${g.creditGrantID} ${JSON.stringify({ ...g, Invoices: undefined })}`;
    expect(toMinor(g.Remaining), at).toBeGreaterThanOrEqual(0);
    expect(toMinor(g.Consumed), at).toBeGreaterThanOrEqual(0);
    // No grant gave out more than it holds: spent, written off and refunded together are at most its Amount.
    expect(toMinor(g.Consumed), at).toBeLessThanOrEqual(toMinor(g.Amount));
    const accounted =
      toMinor(g.Consumed) +
      toMinor(g.Expired) +
      toMinor(g.Voided) +
      toMinor(g.Refunded) +
      toMinor(g.Remaining);
    if (writtenOff || g.Status !== 'expired') expect(accounted, at).toBe(toMinor(g.Amount));
    else expect(accounted, at).toBeLessThanOrEqual(toMinor(g.Amount));
    for (const paid of g.Invoices as any[])
      paidOn.set(paid.invoiceID, (paidOn.get(paid.invoiceID) ?? 0) + toMinor(paid.Amount));
  }
  const creditOn = new Map<number, number>();
  for (const e of (await ok(as, 'GET', `/v1/wallets/${walletId}/entries?page_size=200`)) as any[]) {
    const sign = e.Kind === 'consume' ? 1 : e.Kind === 'release' ? -1 : 0;
    if (sign !== 0) creditOn.set(e.invoiceID, (creditOn.get(e.invoiceID) ?? 0) + sign * toMinor(e.Amount));
  }
  const sum = (amounts: any[]) => amounts.reduce((total, a) => total + toMinor(a.amountApplied), 0);
  for (const read of await invoicesOf(as, customerId)) {
    const id = read.invoiceID as number;
    const at = `invoice ${id} (${read.Status}, Total ${read.Total})`;
    const negatives = read.NegativeAdjustmentsApplied as any[];
    // The ledger's allocations from grants name neither a negative adjustment nor a credit note.
    const fromGrants = negatives.filter((a) => !a.NegativeAdjustmentID && !a.creditNoteID);
    const credit = creditOn.get(id) ?? 0;
    expect(sum(fromGrants), `${at}: credit allocated as the journal says`).toBe(credit);
    expect(paidOn.get(id) ?? 0, `${at}: credit as its grants say`).toBe(credit);
    if (read.isCancelled) {
      expect([...read.PaymentsApplied, ...negatives], `${at}: a cancelled invoice holds nothing`).toEqual([]);
      continue;
    }
    expect(credit, `${at}: credit`).toBeLessThanOrEqual(toMinor(read.Total));
    const open = toMinor(read.Total) - sum(read.PaymentsApplied) - sum(negatives);
    expect(toMinor(read.Balance), `${at}: Balance`).toBe(open);
    expect(open, `${at}: paid beyond its Total`).toBeGreaterThanOrEqual(0);
  }
  // docs/spec-decisions.md, "Money movements": what its invoices owe less its money not allocated.
  const ledger = await readLedger(as, customerId, await detectFeatures(as));
  expect(ledger.balanceMinor, "the customer's Balance").toBe(expectedBalance(ledger));
}

describe('prepaid credit under concurrent calls', () => {
  it('is never spent twice, whatever issues, cancels, credits, voids, grants, days and refunds race', async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async (s) => {
        const run = await setUp(s);
        const ops = s.ops.filter((o) => o.kind !== 'refund' || run.paidGrantId !== null);
        const answers = await Promise.all(ops.map((o) => send(run.as, run, o)));
        ops.forEach((o, n) => {
          const res = answers[n]!;
          expect(res.status, `${JSON.stringify(o)}: ${res.text}`).toBeLessThan(500);
          expect(allowed(o, ops), `${JSON.stringify(o)}: ${res.text}`).toContain(answerOf(res));
        });
        await expectConsistent(run, false);
        // A call that read the account's clock before a move it raced ran at that time: a grant it made, or credit
        // it gave back, may be past expiry by the moved clock after the daily run passed. The next run writes
        // that off, once (docs/credits.md, "Expiry"): a minute on, the day's run again.
        const { Now } = await ok(run.as, 'GET', '/v1/test-clock');
        await ok(
          run.as,
          'POST',
          '/v1/test-clock/advance',
          { To: new Date(Date.parse(Now) + 60_000).toISOString() },
          200,
        );
        await expectConsistent(run, true);
      }),
      {
        // 25 runs of up to 12 calls at once: 4 to 8 s a database on a machine running other tests. Fewer let
        // a refund's reservation that skipped its check of the grant under the lock pass about half the time.
        numRuns: 25,
        // A failure shrinks for at most 100 s, then reports the smallest scenario found so far.
        interruptAfterTimeLimit: 100_000,
        markInterruptAsFailure: true,
        // Run first, whatever the seed. (1) A paid top-up of 30.00 and a free grant of 1.00, both priority 1 and
        // never expiring: the invoice of 6.00 is paid by the older, the paid grant, leaving it 24.00 (docs/credits.md,
        // "Consumption order"). Then a refund of all that remains races invoices of 10.00 and 4.00 (the free grant's
        // 1.00 first, then 13.00 of the paid one), a void of the free grant, and the cancellation that gives the
        // 6.00 back. (2) A grant of 5.00 expiring on 2 March pays the invoice of 3.00; the clock moves to 3 March,
        // its run of 2 March writing off the 2.00 left, while the invoice is cancelled and credited (the credit
        // going back to a grant that may have expired), the grant voided, another made that expires on 2 March
        // (refused once the clock passed it) and an invoice issued.
        examples: [
          [
            {
              topUpCents: 3000,
              grants: [{ cents: 100, priority: 1, expiresInDays: null }],
              invoices: [600],
              ops: [
                { kind: 'refund', percent: null },
                { kind: 'issue', cents: 1000 },
                { kind: 'issue', cents: 400 },
                { kind: 'void', pick: 1 },
                { kind: 'cancel', pick: 0 },
              ],
            },
          ],
          [
            {
              topUpCents: null,
              grants: [{ cents: 500, priority: 1, expiresInDays: 1 }],
              invoices: [300],
              ops: [
                { kind: 'advance', days: 2 },
                { kind: 'cancel', pick: 0 },
                { kind: 'creditNote', pick: 0, cents: 100 },
                { kind: 'void', pick: 0 },
                { kind: 'grant', cents: 200, priority: 1, expiresInDays: 1 },
                { kind: 'issue', cents: 100 },
              ],
            },
          ],
        ],
      },
    );
  }, 150_000);
});
