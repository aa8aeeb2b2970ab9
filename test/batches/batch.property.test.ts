import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { addBusinessDays, earliestActionDate } from '../../src/core/bankingDays.ts';
import { movableClock, ok } from '../helpers/billing.ts';
import { issuedInvoice } from '../helpers/invoices.ts';
import type { TestAccount } from '../helpers/service.ts';
import { useTestService } from '../helpers/testService.ts';
import { invoicesOf, readWorld } from '../collections/collection.fixtures.ts';
import type { World } from '../collections/collection.fixtures.ts';
import { checkLedger } from '../collections/collection.invariants.ts';
import { checkBatches, checkSchedule, noteStep, readBatches } from './batch.invariants.ts';
import type { BatchView, ScheduleMemory } from './batch.invariants.ts';
import {
  ACH,
  ACH_R01,
  CLOSED_12,
  LATE_UNPAID,
  NOT_VALIDATED,
  PAID,
  UNPAID_02,
  linesOf,
  runStep,
  setUpDebitAccount,
  setupArb,
  stepsArb,
} from './batch.model.ts';
import type { Model, Setup, Step } from './batch.model.ts';
import { advanceTo, debitAccount, debitCustomer, debitInvoice, plusDays } from './fixtures.ts';
import { randomRuns } from '../helpers/propertyRuns.ts';

// Each invoice's Balance is its Total less its settled and pending allocations (and credits), whatever
// payment batches, the bank's answers and reversals do. A model-based property over the real service and its HTTP
// API: each run is a fresh test account (ZAR, on its own clock, UTC or South Africa's) with a customer or two, each
// with bank accounts among the test gateway's (docs/gateways.md: paid, unpaid 02, account closed 12, paid then
// unpaid 02 late; one never validated, which fails a build; ACH ones, paid or returned R01, which no debit-order
// batch may take), and random steps (batch.model.ts): invoices collected by debit order (bundled by the run once
// due) or not; manual batches; lines added (partial, over two invoices, with money unallocated, one cent too much),
// edited and removed; batches submitted (on a valid ActionDate or one too early) and cancelled; lines answered by
// hand; manual payments and credit notes on the same invoices; POST /v1/test/simulate on lines; DELETE
// /v1/payments on lines (refused) and PUT /v1/payments moving a settled line's money to another invoice; and
// test-clock advances of 0–5 days (each day's run bundles, builds, settles and applies the gateway's returns).
// Every request must answer what the rules say (409 where a batch or a line is closed to it, 422 for what no rule
// allows), none 500. After every step the account is read back through the API and checked. The invariants come
// in two families, each its own property so that one failing does not hide the other:
// - ledger: collection.invariants.ts's checkLedger (Balance = Total − TotalActualPaid − TotalPendingPaid − credits,
//   TotalPendingPaid = Σ Pending payments' allocations, no payment allocating beyond its Amount, a Failed payment
//   holding nothing, the customer's Balance reconciled) and batch.invariants.ts's checkBatches (each batch's count
//   and total are its lines', one rail a batch, no line Pending in a processed or cancelled batch, no invoice
//   promised more by pending lines than it owes, states moving only as the diagram allows);
// - schedule: NumTries and NextTryDate of the invoices batches pay, and every invoice due bundled by the next run
//   (batch.invariants.ts, checkSchedule).
// Each property first runs the fixed timelines in EXAMPLES (paths rare at random), then FC_RUNS random ones (default
// 4, 2 on PostgreSQL: test/helpers/propertyRuns.ts); FC_SEED=<seed> replays a failure. The bugs it led to are kept
// below ("bugs the property found"), each the shortest timeline that shows it; the one still open (simulate refuses
// every line) is taken by the model at a NOTE so that the property keeps checking the rest.

const START = Date.parse('2027-03-01T08:00:00.000Z'); // a Monday
const clock = movableClock(new Date(START).toISOString());
const t = useTestService({ clock });

type Family = 'ledger' | 'schedule';

/** The account's requests, each answer at 500 or above remembered (reads included). */
function watched(as: TestAccount, serverErrors: string[]): TestAccount {
  return {
    ...as,
    async request(method, urlPath, options) {
      const res = await as.request(method, urlPath, options);
      if (res.status >= 500) serverErrors.push(`${method} ${urlPath} → ${res.status}: ${res.text}`);
      return res;
    },
  };
}

const showWorld = (world: World, batches: readonly BatchView[]) => {
  const lines = linesOf(world, batches);
  const invoices = invoicesOf(world).map(
    ({ invoice }) =>
      `    inv ${invoice.invoiceID} ${invoice.Status} total ${invoice.Total} paid ${invoice.TotalActualPaid} ` +
      `pending ${invoice.TotalPendingPaid} credits ${invoice.TotalNegativeAdjs} bal ${invoice.Balance} ` +
      `tries ${invoice.NumTries} next ${invoice.NextTryDate?.slice(0, 10) ?? null}`,
  );
  const shown = batches.map(
    (b) =>
      `    batch ${b.token.slice(0, 8)} ${b.state} action ${b.actionDate} ${b.numberOfPayments}/${b.paymentsTotalMinor}` +
      `${b.buildError ? ` [${b.buildError}]` : ''}: ` +
      lines
        .filter((l) => l.batch === b)
        .map(
          (l) =>
            `${l.paymentId} ${l.payment?.Status}${l.payment?.FailureReason ? `(${l.payment.FailureReason})` : ''} ` +
            `${l.payment?.Amount} → ${(l.payment?.Allocations ?? []).map((a: any) => `${a.invoiceID}:${a.amountApplied}`).join('+')}`,
        )
        .join(', '),
  );
  return [...invoices, ...shown].join('\n');
};

async function runTimeline(family: Family, setup: Setup, steps: Step[]): Promise<void> {
  clock.set(new Date(START + setup.startDays * 86_400_000).toISOString());
  const serverErrors: string[] = [];
  const raw = await t.newAccount('Batches property', { isTest: true, timeZone: setup.timeZone });
  const as = watched(raw, serverErrors);
  const { fx, customers, gatewayToken } = await setUpDebitAccount(as, setup.timeZone, setup.customers);
  const model: Model = {
    fx,
    customers,
    gatewayToken,
    manual: new Set(),
    stateOf: new Map(),
    seq: 0,
    trace: [
      `account ${fx.accountId} in ${setup.timeZone} from ${clock.now().toISOString()}; bank accounts ` +
        customers
          .map(
            (c) =>
              `${c.id}: ${c.accounts.map((a) => `${a.paymentMethodId} ${a.spec.rail} ${a.spec.number}${a.spec.validated ? '' : ' (not validated)'}`).join(' / ')}`,
          )
          .join(', '),
    ],
  };
  const memory: ScheduleMemory = {
    tries: new Map(),
    returned: new Set(),
    byHand: new Set(),
    cancelledAfterBuild: new Set(),
  };
  const methodIds = customers.flatMap((c) => c.accounts.map((a) => a.paymentMethodId));
  try {
    let world = await readWorld(t, fx);
    let batches = await readBatches(as, setup.timeZone);
    for (const [n, step] of steps.entries()) {
      const at = (what: string) => `step ${n + 1} ${step.kind}: ${what}`;
      const outcome = await runStep(model, world, batches, step);
      const { res } = outcome;
      model.trace.push(
        `step ${n + 1} on ${world.today} (${world.now}): ${JSON.stringify(step)} → ${res ? res.status : 'skipped'}`,
      );
      if (res && !outcome.expected?.includes(res.status)) model.trace.push(`    answered ${res.text}`);
      const after = await readWorld(t, fx);
      const batchesAfter = await readBatches(as, setup.timeZone);
      model.trace.push(showWorld(after, batchesAfter));
      expect(serverErrors, at('no request answered 500')).toEqual([]);
      if (res) expect(res.status, at(`answered ${res.text}`)).toBeOneOf(outcome.expected!);
      if (family === 'ledger') {
        checkLedger(after, at);
        checkBatches(after, batchesAfter, model.stateOf, at);
      } else {
        noteStep(memory, model.manual, { world, batches }, { world: after, batches: batchesAfter });
        // An advance runs the day's run at the new date: what it should have bundled, it did.
        const ran = step.kind === 'advance' && res?.status === 200;
        const validMethods = ran
          ? new Set(
              (await Promise.all(methodIds.map((id) => ok(as, 'GET', `/v1/paymentmethods/${id}`)))).flatMap(
                (m: any) => (m.isValid ? [m.paymentMethodID as number] : []),
              ),
            )
          : new Set<number>();
        checkSchedule(
          after,
          memory,
          at,
          ran ? { ranOn: after.today, timeZone: setup.timeZone, validMethods } : undefined,
        );
      }
      for (const batch of batchesAfter) model.stateOf.set(batch.token, batch.state);
      world = after;
      batches = batchesAfter;
    }
  } catch (error) {
    if (error instanceof Error) error.message += `\n${model.trace.join('\n')}`;
    throw error;
  }
}

const line = (over: Partial<Extract<Step, { kind: 'addLine' }>> = {}): Step => ({
  kind: 'addLine',
  batch: 0,
  anyBatch: false,
  customer: 0,
  account: 0,
  pick: 0,
  second: false,
  share: { whole: true },
  extraMinor: 0,
  over: false,
  ...over,
});
const days = (n: number): Step => ({ kind: 'advance', days: n, hours: 0 });
const invoice = (amountMinor: number, debitOrder: boolean, dueIn = 0): Step => ({
  kind: 'invoice',
  customer: 0,
  account: 0,
  amountMinor,
  dueIn,
  debitOrder,
});

/** Timelines run before the random ones: paths rare at random. */
const EXAMPLES: [Setup, Step[]][] = [
  // One invoice collected by debit order paid by two lines in two batches (ACH accounts: R01 may be presented again
  // twice), both built; the first returned R01 while the second is in flight, then settled.
  [
    { startDays: 0, timeZone: 'UTC', customers: [[ACH_R01, ACH]] },
    [
      invoice(10_000, true, 6),
      { kind: 'newBatch', actionIn: 0 },
      { kind: 'newBatch', actionIn: 0 },
      line({ share: { permille: 500 } }),
      line({ batch: 1, account: 1 }),
      { kind: 'submit', batch: 0, anyBatch: false, lead: 0 },
      { kind: 'submit', batch: 0, anyBatch: false, lead: 3 },
      days(1),
      days(1),
      days(2),
      days(3),
      days(4),
    ],
  ],
  // An automatic batch cancelled while open, then one cancelled after its build: each time the invoice is bundled
  // again by the next run (the schedule family checks it; bug 2 below).
  [
    { startDays: 1, timeZone: 'UTC', customers: [[PAID]] },
    [
      invoice(10_000, true),
      days(0),
      { kind: 'cancel', batch: 0 },
      days(1),
      { kind: 'submit', batch: 0, anyBatch: false, lead: 0 },
      days(1),
      { kind: 'cancel', batch: 1 },
      days(1),
    ],
  ],
  // One invoice with a line in an open batch and one in an automatic batch that was built (a try counted); the open
  // batch is cancelled: it counted no try, so the invoice keeps its schedule (no NextTryDate). Seed -1652444158.
  [
    { startDays: 0, timeZone: 'UTC', customers: [[PAID]] },
    [
      invoice(2, true),
      { kind: 'newBatch', actionIn: 0 },
      line({ share: { permille: 1 } }),
      days(0),
      { kind: 'submit', batch: 1, anyBatch: false, lead: 3 },
      days(0),
      { kind: 'cancel', batch: 0 },
    ],
  ],
  // A whole life: bundled, submitted, built, processing, settled after the window; then the late unpaid 02 (six
  // business days after the action date) reverses the settled line and schedules the next presentation.
  [
    { startDays: 0, timeZone: 'UTC', customers: [[LATE_UNPAID]] },
    [
      invoice(10_000, true),
      days(1),
      { kind: 'submit', batch: 0, anyBatch: false, lead: 0 },
      days(1),
      days(1),
      days(4),
      days(3),
      days(2),
    ],
  ],
  // Two partial lines on one invoice in two batches, a manual payment and a credit note for the rest; one batch
  // returned unpaid 02, the other cancelled; the invoice owes both lines again.
  [
    { startDays: 2, timeZone: 'Africa/Johannesburg', customers: [[UNPAID_02, PAID]] },
    [
      invoice(50_000, false),
      { kind: 'newBatch', actionIn: 0 },
      { kind: 'newBatch', actionIn: 0 },
      line({ share: { permille: 400 } }),
      line({ batch: 1, account: 1, share: { permille: 500 } }),
      { kind: 'pay', pick: 0, share: { permille: 500 }, extraMinor: 100, method: 'eft' },
      { kind: 'credit', pick: 0, share: { whole: true }, extraMinor: 0 },
      { kind: 'submit', batch: 0, anyBatch: false, lead: 0 },
      days(1),
      { kind: 'cancel', batch: 1 },
      days(5),
      days(2),
    ],
  ],
  // A line answered paid by hand before its action date (409: paid only from processing; bug 1 below) and another
  // unpaid 12 (account closed: the account becomes invalid), the batch cancelled; a new batch with a line from the
  // closed account fails its build.
  [
    { startDays: 0, timeZone: 'UTC', customers: [[PAID, CLOSED_12]] },
    [
      invoice(10_000, false),
      invoice(20_000, false),
      { kind: 'newBatch', actionIn: 0 },
      line(),
      line({ pick: 1, account: 1 }),
      { kind: 'submit', batch: 0, anyBatch: false, lead: 1 },
      days(1),
      { kind: 'result', pick: 0, anyLine: false, status: 'paid', code: '02' },
      { kind: 'result', pick: 1, anyLine: false, status: 'unpaid', code: '12' },
      { kind: 'cancel', batch: 0 },
      { kind: 'newBatch', actionIn: 0 },
      line({ batch: 0, pick: 0, account: 1 }),
      { kind: 'submit', batch: 0, anyBatch: false, lead: 0 },
      days(1),
    ],
  ],
  // A bank account never validated fails the build (back to open with BuildError); its line removed, the batch is
  // empty and cannot be submitted (409); it then takes a line of another rail (ACH), which is built and settled.
  [
    { startDays: 4, timeZone: 'UTC', customers: [[NOT_VALIDATED, ACH]] },
    [
      invoice(30_000, false),
      { kind: 'newBatch', actionIn: 0 },
      line({ share: { permille: 300 } }),
      { kind: 'submit', batch: 0, anyBatch: false, lead: 0 },
      days(1),
      { kind: 'deleteLine', pick: 0, anyLine: false },
      { kind: 'submit', batch: 0, anyBatch: true, lead: 0 },
      line({ account: 1, extraMinor: 250 }),
      { kind: 'editLine', pick: 0, anyLine: false, change: { permille: 250 }, extraMinor: 0 },
      { kind: 'submit', batch: 0, anyBatch: false, lead: 0 },
      days(5),
      days(5),
    ],
  ],
];

// fast-check counts the examples in numRuns: FC_RUNS is the number of random timelines after them.
const params = {
  numRuns: EXAMPLES.length + randomRuns(4),
  examples: EXAMPLES,
  ...(process.env.FC_SEED ? { seed: Number(process.env.FC_SEED) } : {}),
};

describe('payment batches (property)', () => {
  it("keeps each invoice's Balance its Total less settled and pending allocations and credits, and each batch its lines", async () => {
    await fc.assert(
      fc.asyncProperty(setupArb, stepsArb, (setup, steps) => runTimeline('ledger', setup, steps)),
      params,
    );
  }, 600_000);

  it('counts a try per build of a batch paying the invoice, and sets NextTryDate only after a return', async () => {
    await fc.assert(
      fc.asyncProperty(setupArb, stepsArb, (setup, steps) => runTimeline('schedule', setup, steps)),
      params,
    );
  }, 600_000);
});

// Bugs the property found, each the shortest timeline that shows it, as the documented rules want it. Found against
// commit 62b0f31; bugs 1 and 2 are fixed in the working tree by edits made meanwhile, bug 3 still fails.
describe('payment batches: bugs the property found', () => {
  /** A ZAR test account on a Monday, a customer with a validated debit-order account, a batch of one line of 100. */
  async function submittedLine(number: string) {
    clock.set(new Date(START).toISOString());
    const setup = await debitAccount(t, 'ZAR');
    const { account, today } = setup;
    const customer = await debitCustomer(setup, 'debit_order', number);
    const inv = await issuedInvoice(account, {
      customerId: customer.customerId,
      invoiceDate: today,
      dueDate: plusDays(today, 30),
      description: 'Work',
      amount: 100,
    });
    const batch = await ok(account, 'POST', '/v1/batches', {
      CurrencyCode: 'ZAR',
      GatewayToken: setup.gatewayToken,
      ActionDate: today,
    });
    const line = await ok(account, 'POST', '/v1/batches/payments', {
      BatchToken: batch.BatchToken,
      customerID: customer.customerId,
      Amount: 100,
      paymentMethodID: customer.paymentMethodId,
      PaymentApplied: [{ invoiceID: inv.invoiceID, amount: 100 }],
    });
    // Submitted on the latest action date the timeline needs: three business days after the earliest.
    const actionDate = addBusinessDays(earliestActionDate('debit_order', today), 3, 'debit_order');
    await ok(account, 'PUT', '/v1/batches/submit', { BatchToken: batch.BatchToken, ActionDate: actionDate });
    await advanceTo(account, plusDays(today, 1));
    expect((await ok(account, 'GET', `/v1/batches/${batch.BatchToken}`)).State).toBe('submitted');
    return {
      account,
      today,
      invoiceId: inv.invoiceID,
      token: batch.BatchToken,
      paymentId: line.paymentID,
      actionDate,
    };
  }

  // Bug 1. Docs (gateways.md, Cancel): a cancelled batch's lines fail (batch_cancelled) and their invoices owe again.
  // A line answered paid by hand (PUT …/result, then allowed from submitted) before the action date stayed settled
  // when the batch was then cancelled (allowed: submitted, before its action date): the invoice Paid by a debit the
  // business revoked before the bank ever made it.
  it('never leaves the invoice paid by a line of a batch cancelled before its action date', async () => {
    const { account, invoiceId, token, paymentId } = await submittedLine('1000000001');
    const paid = await account.request('PUT', `/v1/batches/payments/${paymentId}/result`, {
      body: { Status: 'paid' },
    });
    const cancel = await account.request('PUT', '/v1/batches/cancel', { body: { BatchToken: token } });
    const payment = await ok(account, 'GET', `/v1/payments/${paymentId}`);
    const inv = await ok(account, 'GET', `/v1/invoices/${invoiceId}`);
    if (cancel.status === 204) {
      // Cancelled (the paid answer refused before the action date, or not): the line fails, the invoice owes again.
      expect(payment, 'a line of the cancelled batch').toMatchObject({ Status: 'Failed', Allocations: [] });
      expect(inv, 'its invoice').toMatchObject({ Balance: 100, TotalActualPaid: 0 });
    } else {
      // Or, the line recorded as paid, the cancel is refused.
      expect(paid.status, paid.text).toBe(204);
      expect(cancel.status, cancel.text).toBe(409);
      expect(cancel.body.code).toBe('batch_not_cancellable');
    }
  });

  // Bug 2. Docs (gateways.md, Cancel): "Still due by debit order, an invoice of a cancelled automatic batch is
  // bundled again by the next run". Cancelled after its build (submitted, before its action date), the batch has
  // counted a try (NumTries 1) and its line failed with NextTryDate null; the run lists only invoices never tried
  // (NumTries 0) or with a NextTryDate due, so the invoice owed its 100 and was never collected again, silently (no
  // event, no mail).
  it('bundles again the invoice of an automatic batch cancelled after its build', async () => {
    clock.set(new Date(START).toISOString());
    const setup = await debitAccount(t, 'ZAR');
    const { account, today } = setup;
    const customer = await debitCustomer(setup, 'debit_order');
    const invoiceId = await debitInvoice(setup, customer, { dueIn: 0 });
    await advanceTo(account, today);
    const [batch] = await ok(account, 'GET', '/v1/batches');
    await ok(account, 'PUT', '/v1/batches/submit', {
      BatchToken: batch.BatchToken,
      ActionDate: earliestActionDate('debit_order', today),
    });
    await advanceTo(account, plusDays(today, 1));
    expect((await ok(account, 'GET', `/v1/batches/${batch.BatchToken}`)).State).toBe('submitted');
    await ok(account, 'PUT', '/v1/batches/cancel', { BatchToken: batch.BatchToken });
    expect(await ok(account, 'GET', `/v1/invoices/${invoiceId}`)).toMatchObject({
      Balance: 100,
      NumTries: 1,
    });

    await advanceTo(account, plusDays(today, 2));
    const open = (await ok(account, 'GET', '/v1/batches')).filter((b: any) => b.State === 'open');
    expect(open, 'an open automatic batch made by the next run').toHaveLength(1);
    expect(await ok(account, 'GET', `/v1/invoices/${invoiceId}`)).toMatchObject({
      Balance: 0,
      TotalPendingPaid: 100,
    });
  });

  // Found by the property: simulate once refused every batch line (409 payment_not_collected), looking for the
  // gateway on the payment's bank account, which keeps none; a line's report now takes the bank's path.
  it("simulates the bank's late unpaid on a line of a batch in processing", async () => {
    const { account, invoiceId, paymentId, actionDate } = await submittedLine('1000000001');
    await advanceTo(account, actionDate);
    const res = await account.request('POST', '/v1/test/simulate', {
      body: { paymentID: paymentId, scenario: 'unpaid:02' },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ Status: 'Failed', Allocations: [] });
    expect(await ok(account, 'GET', `/v1/invoices/${invoiceId}`)).toMatchObject({
      Balance: 100,
      TotalPendingPaid: 0,
    });
  });
});
