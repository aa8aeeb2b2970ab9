import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { movableClock } from '../helpers/billing.ts';
import { t, useMandatesService } from '../mandates/fixtures.ts';
import {
  checkCollectedOnce,
  checkCreditFirst,
  checkPlanned,
  checkPresentations,
  checkReconciled,
  readLoopWorld,
} from './collectionLoop.invariants.ts';
import type { LoopWorld } from './collectionLoop.invariants.ts';
import {
  AUTH,
  APPROVE,
  CLOSED_12,
  HARD,
  LATE_02,
  loopSetupArb,
  loopStepsArb,
  PAID,
  runLoopStep,
  setUpLoop,
  SOFT,
  UNPAID_02,
  UNPAID_04,
} from './collectionLoop.model.ts';
import type { BankSpec, CustomerSpec, LoopCard, LoopSetup, LoopStep } from './collectionLoop.model.ts';
import { randomRuns } from '../helpers/propertyRuns.ts';

// The collection loop as a whole, a model-based property over the real service and its HTTP API (the eMandates
// signed on their hosted page): each run is a fresh test account billing in ZAR, in UTC or South Africa's zone,
// with ApplyCreditBeforeCollecting on or off (and switched on the way) and AutoSubmitBatches mostly on, and one to
// three customers who pay by card (approved, soft decline, hard decline, authentication_required, technical error)
// or by debit order from a bank account under a signed eMandate (monthly on a day, or ad hoc; paid, returned 02 and
// presented again, returned 04 or 12 for good, or paid and returned 02 late). Random steps: invoices that follow
// their customer, due in the past or ahead, some above the mandate's maximum; money the customer holds unapplied (an
// EFT payment, a credit note, a negative adjustment); a person submitting an open batch (late ones are re-dated); a
// new primary card; and test-clock advances of hours, days or weeks, each of which runs the bill run (collection,
// bundling, building, settling and returns). After every step the account is read back and checked
// (collectionLoop.invariants.ts): no balance collected twice, never more collected than owed, credit applied first
// exactly when the setting says, no due invoice left without a plan or a problem, and every balance reconciled.
// Each run starts with a few fixed timelines (EXAMPLES), then FC_RUNS random ones (default 6, 2 on PostgreSQL);
// FC_SEED=<seed> replays a failure; LOOP_TRACE=1 prints every timeline as it ran. The run time is kept under a
// minute per database (CONTRIBUTING.md, "How long the suite takes").

const START = Date.parse('2027-03-01T06:00:00.000Z');
const clock = movableClock(new Date(START).toISOString());
useMandatesService({ clock });

const showWorld = (world: LoopWorld) =>
  world.customers
    .flatMap((c) => [
      ...c.invoices.map(
        (i) =>
          `    c${c.id} inv ${i.invoiceID} ${i.CollectionMethod}${i.CollectionProblem ? ` (${i.CollectionProblem})` : ''} ` +
          `${i.Status} total ${i.Total} bal ${i.Balance} pending ${i.TotalPendingPaid} tries ${i.NumTries} next ${i.NextTryDate}`,
      ),
      ...c.payments.map(
        (p) =>
          `    c${c.id} pay ${p.paymentID} ${p.Method} ${p.Status}${p.FailureReason ? ` (${p.FailureReason})` : ''} ` +
          `${p.Amount} on ${String(p.Date).slice(0, 10)} → ${p.Allocations.map((a: any) => `inv ${a.invoiceID}: ${a.amountApplied}`).join(', ')}`,
      ),
    ])
    .join('\n');

async function runTimeline(setup: LoopSetup, steps: LoopStep[]): Promise<void> {
  clock.set(new Date(START + setup.startDays * 86_400_000).toISOString());
  const fx = await setUpLoop(t, setup);
  const trace = [
    `account ${fx.accountId} in ${setup.timeZone} from ${clock.now().toISOString()}, credit first ` +
      `${setup.applyCreditFirst}, auto-submit ${setup.autoSubmit}; customers ` +
      fx.customers.map((c) => `${c.id}: ${JSON.stringify(c.spec)}`).join(', '),
  ];
  const dueDateOf = new Map<number, string>();
  const fateOf = (customerId: number) => {
    const spec = fx.customers.find((c) => c.id === customerId)!.spec;
    return spec.kind === 'debit' ? spec.bank.fate : null;
  };
  let applyCreditFirst = setup.applyCreditFirst;
  try {
    let world = await readLoopWorld(t, fx);
    for (const [n, step] of steps.entries()) {
      const outcome = await runLoopStep(fx, world, step, n + 1);
      const { res } = outcome;
      trace.push(`step ${n + 1} at ${world.now}: ${JSON.stringify(step)} → ${res ? res.status : 'done'}`);
      if (res) expect(res.status, `step ${n + 1} ${step.kind}: ${res.text}`).toBe(outcome.expected);
      if (step.kind === 'invoice' && res?.status === 201) {
        dueDateOf.set(res.body.invoiceID, res.body.DueDate.slice(0, 10));
      }
      const after = await readLoopWorld(t, fx);
      trace.push(showWorld(after));
      const at = (what: string) => `step ${n + 1} ${step.kind}: ${what}`;
      checkReconciled(after, at);
      checkCollectedOnce(after, at);
      checkPresentations(after, fateOf, at);
      if (outcome.ran) {
        checkCreditFirst(world, after, applyCreditFirst, at);
        checkPlanned(after, dueDateOf, at);
      }
      if (step.kind === 'applyCreditFirst') applyCreditFirst = step.on;
      world = after;
    }
    if (process.env.LOOP_TRACE) console.log(trace.join('\n'));
  } catch (error) {
    if (error instanceof Error) error.message += `\n${trace.join('\n')}`;
    throw error;
  }
}

const adHoc = (bank: BankSpec): CustomerSpec => ({ kind: 'debit', bank, frequency: 'AdHoc', actionDay: 1 });
const monthly = (bank: typeof PAID, actionDay: number): CustomerSpec => ({
  kind: 'debit',
  bank,
  frequency: 'Monthly',
  actionDay,
});
const card = (spec: LoopCard): CustomerSpec => ({ kind: 'card', card: spec });
const setupOf = (customers: CustomerSpec[], applyCreditFirst = true): LoopSetup => ({
  startDays: 0,
  timeZone: 'UTC',
  applyCreditFirst,
  autoSubmit: true,
  customers,
});
const invoice = (amountMinor: number, dueIn = 0, customer = 0, own = false): LoopStep => ({
  kind: 'invoice',
  customer,
  own,
  amountMinor,
  dueIn,
});
const days = (n: number): LoopStep => ({ kind: 'advance', minutes: n * 1_440 });

/** Timelines run before the random ones: the paths each kind of customer takes. */
const EXAMPLES: [LoopSetup, LoopStep[]][] = [
  // Returned 02, presented again, returned again: the presentations run out.
  [setupOf([adHoc(UNPAID_02)]), [invoice(50_000, 0, 0, true), days(10), days(10), days(20), days(20)]],
  // Credit first pays part of a debit, the rest is debited, settled, then returned late and presented again.
  [
    setupOf([adHoc(LATE_02)]),
    [
      invoice(80_000, 3, 0, true),
      { kind: 'credit', customer: 0, source: 'payment', amountMinor: 30_000 },
      days(10),
      days(20),
      days(20),
    ],
  ],
  // A card declined soft, a credit note and a negative adjustment left alone with the setting off.
  [
    setupOf([card(SOFT)], false),
    [
      invoice(12_000),
      { kind: 'credit', customer: 0, source: 'creditNote', amountMinor: 5_000 },
      { kind: 'credit', customer: 0, source: 'adjustment', amountMinor: 4_000 },
      days(2),
      days(10),
    ],
  ],
  // A hard decline and a confirmation asked for stop the tries; a new card starts them again.
  [
    setupOf([card(HARD), card(AUTH)]),
    [
      invoice(9_900, 0, 0),
      invoice(9_900, 0, 1),
      days(1),
      invoice(9_900, 0, 0, true),
      days(1),
      { kind: 'newCard', customer: 0, card: APPROVE },
      days(1),
    ],
  ],
  // A monthly mandate asked for two debits in one month, one above its maximum; a closed account, then more.
  [
    setupOf([monthly(PAID, 15), adHoc(CLOSED_12), adHoc(UNPAID_04)]),
    [
      invoice(40_000, 0, 0),
      invoice(30_000, 1, 0),
      invoice(180_000, 2, 0),
      invoice(20_000, 0, 1, true),
      invoice(20_000, 0, 2, true),
      days(12),
      invoice(10_000, 0, 1),
      invoice(10_000, 0, 1, true),
      invoice(10_000, 0, 2),
      days(12),
      days(30),
    ],
  ],
  // Credit first for a card and a debit customer, the setting switched off and on again between their invoices.
  [
    setupOf([card(APPROVE), adHoc(PAID)]),
    [
      { kind: 'credit', customer: 0, source: 'creditNote', amountMinor: 5_000 },
      { kind: 'credit', customer: 0, source: 'adjustment', amountMinor: 3_000 },
      { kind: 'credit', customer: 1, source: 'payment', amountMinor: 20_000 },
      invoice(12_000, 0, 0),
      invoice(15_000, 0, 1, true),
      days(1),
      { kind: 'applyCreditFirst', on: false },
      { kind: 'credit', customer: 1, source: 'adjustment', amountMinor: 2_000 },
      invoice(9_000, 0, 1),
      days(10),
      { kind: 'applyCreditFirst', on: true },
      invoice(1_000, 0, 1),
      days(10),
    ],
  ],
  // Batches a person submits, one of them after its last safe day (re-dated).
  [
    { ...setupOf([monthly(LATE_02, 20)]), autoSubmit: false },
    [
      invoice(30_000, 5, 0, true),
      days(14),
      { kind: 'submitBatches' },
      days(8),
      { kind: 'submitBatches' },
      days(40),
    ],
  ],
];

// fast-check counts the examples in numRuns: FC_RUNS is the number of random timelines after them.
const params = {
  numRuns: EXAMPLES.length + randomRuns(6),
  examples: EXAMPLES,
  ...(process.env.FC_SEED ? { seed: Number(process.env.FC_SEED) } : {}),
};

describe('the collection loop: cards, debit orders under eMandates, credits (property)', () => {
  it('collects no balance twice nor more than owed, applies credit first as set, leaves no due invoice without a plan or a problem, reconciles', async () => {
    await fc.assert(fc.asyncProperty(loopSetupArb, loopStepsArb, runTimeline), params);
  }, 600_000);
});
