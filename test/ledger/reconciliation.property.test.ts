import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ApiResponse, TestAccount } from '../helpers/service.ts';
import { createCustomer, movableClock } from '../helpers/billing.ts';
import { issuedInvoice } from '../helpers/invoices.ts';
import { detectFeatures, expectLedgerConsistent, readLedger, sourcesOf, toWire } from '../helpers/ledger.ts';
import type { LedgerFeatures, LedgerState } from '../helpers/ledger.ts';
import { useTestService } from '../helpers/testService.ts';
import {
  acceptable,
  addDays,
  allocationsOf,
  amountFor,
  autoApplied,
  available,
  dayOf,
  openOn,
  pickSource,
  resolve,
  stepsArb,
  sum,
  targetsAndAmounts,
} from './reconciliation.model.ts';
import type { CreateSpec, Entry, SourceKind, Step } from './reconciliation.model.ts';
import { randomRuns } from '../helpers/propertyRuns.ts';

// A customer's money reconciles whatever is done to it: a property test over random sequences of invoices
// (issued, drafts, cancelled), payments, credit notes and adjustments (AutoApply or explicit allocations with
// random amounts, many of which must be refused), their edits and deletions, run over HTTP against the real
// server. Each run is one customer of a fresh account. After every step the whole ledger is read back and checked:
// never a 500; a refusal (422, 409) changes nothing; the API predicts no refusal the test does not, and refuses
// every request that would over-allocate; each invoice's figures are the sums of its allocations; no target or
// source is over-allocated; AutoApply takes the earliest open targets; the customer's Balance reconciles with the
// records and moves by exactly the amount of each step; creating then deleting a record restores every figure.
// Credit notes and adjustments join when their routes exist. FC_RUNS=<n> runs more; FC_SEED=<seed> replays.
// The steps and what the rules predict of them are in reconciliation.model.ts.

const clock = movableClock('2026-03-01T10:00:00.000Z');
let features: LedgerFeatures;
const t = useTestService({ clock });
beforeAll(async () => {
  features = await detectFeatures(t);
});

/** What the test remembers of the records it made: the fields an edit must send back. */
interface Made {
  ref: string;
  date: string;
  dueDate?: string;
}

interface Run {
  as: TestAccount;
  customerId: number;
  made: Map<string, Made>;
  seq: number;
  trace: string[];
}

function wireAllocation(kind: SourceKind, e: Entry): Record<string, unknown> {
  const [type, idText] = e.target.split(':');
  const id = Number(idText);
  const allocationID = e.allocationId === null ? {} : { allocationID: e.allocationId };
  if (kind === 'negative') {
    return {
      ...allocationID,
      objectID: id,
      AmtAllocated: toWire(e.amountMinor),
      isAdjustment: type === 'positive',
    };
  }
  return {
    ...allocationID,
    ...(type === 'positive' ? { positiveAdjustmentID: id } : { invoiceID: id }),
    amountApplied: toWire(e.amountMinor),
  };
}

function createRequest(
  run: Run,
  kind: SourceKind,
  amountMinor: number,
  auto: boolean,
  entries: Entry[],
): { path: string; body: Record<string, unknown>; made: Made } {
  const ref = `R-${run.customerId}-${++run.seq}`;
  const made = { ref, date: '2026-02-20' };
  const allocations = entries.map((e) => wireAllocation(kind, e));
  const common = { customerID: run.customerId, Amount: toWire(amountMinor), Date: made.date };
  if (kind === 'payment') {
    return {
      path: '/v1/payments',
      body: {
        ...common,
        CurrencyCode: 'USD',
        Method: 'eft',
        Ref: ref,
        AutoApply: auto,
        ...(auto ? {} : { allocations }),
      },
      made,
    };
  }
  if (kind === 'credit') {
    return {
      path: '/v1/credits',
      body: {
        ...common,
        CurrencyCode: 'USD',
        CreditNumber: ref,
        AutoApply: auto,
        ...(auto ? {} : { Allocations: allocations }),
      },
      made,
    };
  }
  return {
    path: '/v1/adjustment/add',
    body: {
      ...common,
      AdjustmentType: 'credit_note',
      Type: 'negative',
      Ref: ref,
      isAutoApply: auto,
      ...(auto ? {} : { LinkedAllocations: allocations }),
    },
    made,
  };
}

function createdKey(kind: SourceKind, res: ApiResponse): string {
  if (kind === 'payment') return `payment:${res.body.paymentID}`;
  if (kind === 'credit') return `credit:${res.body.creditNoteID}`;
  return `negative:${res.body.AdjustmentID}`;
}

function deleteRequest(run: Run, key: string): [string, string] {
  const [type, id] = key.split(':');
  if (type === 'payment') return ['DELETE', `/v1/payments/${id}`];
  if (type === 'credit') return ['DELETE', `/v1/credits/${id}`];
  return ['DELETE', `/v1/adjustment/delete?type=${type}&adjustmentID=${id}&customerID=${run.customerId}`];
}

interface Outcome {
  res: ApiResponse | null;
  /** The statuses the rules allow for the request. */
  expected: number[];
  /** How the customer's Balance must move when the request succeeds. */
  balanceDelta: number;
  /** The source or positive adjustment the step touched, if any: every other keeps its allocations. */
  touched?: string;
  /** Checks of the touched record, on success. */
  verify?: (after: LedgerState, res: ApiResponse) => void;
}

async function create(run: Run, before: LedgerState, spec: CreateSpec): Promise<Outcome> {
  const entries = spec.allocs.map((a) => resolve(before, a, 0));
  const amountMinor =
    'minor' in spec.amount ? spec.amount.minor : Math.max(1, sum(entries) + spec.amount.extra);
  const valid = spec.auto || acceptable(before, spec.source, amountMinor, entries, []);
  const request = createRequest(run, spec.source, amountMinor, spec.auto, entries);
  const res = await run.as.request('POST', request.path, { body: request.body });
  if (res.status === 201) run.made.set(createdKey(spec.source, res), request.made);
  return {
    res,
    expected: valid ? [201] : [422],
    balanceDelta: -amountMinor,
    touched: res.status === 201 ? createdKey(spec.source, res) : undefined,
    verify: (after, created) => {
      const key = createdKey(spec.source, created);
      const expected = spec.auto
        ? autoApplied(before, spec.source, amountMinor, [], run.made)
        : targetsAndAmounts(entries);
      expect(targetsAndAmounts(allocationsOf(after, key)), `${key} allocations`).toEqual(expected);
      expect(sourcesOf(after).find((s) => s.key === key)!.amountMinor).toBe(amountMinor);
    },
  };
}

async function createPositive(run: Run, amountMinor: number, day: number): Promise<Outcome> {
  const ref = `P-${run.customerId}-${++run.seq}`;
  const made = { ref, date: dayOf(day), dueDate: addDays(dayOf(day), 30) };
  const res = await run.as.request('POST', '/v1/adjustment/add', {
    body: {
      AdjustmentType: 'opening_balance',
      customerID: run.customerId,
      Type: 'positive',
      Amount: toWire(amountMinor),
      Date: made.date,
      DueDate: made.dueDate,
      Ref: ref,
    },
  });
  if (res.status === 201) {
    run.made.set(`positive:${res.body.AdjustmentID}`, made);
  }
  return {
    res,
    expected: [201],
    balanceDelta: amountMinor,
    touched: res.status === 201 ? `positive:${res.body.AdjustmentID}` : undefined,
  };
}

async function runStep(run: Run, before: LedgerState, step: Step): Promise<Outcome> {
  const { as, customerId } = run;
  switch (step.kind) {
    case 'invoice': {
      const date = dayOf(step.day);
      const res = await as.request('POST', '/v1/invoices', {
        body: {
          customerID: customerId,
          InvoiceDate: date,
          DueDate: addDays(date, 30),
          isDraft: step.draft,
          Charges: [{ Descrip: 'Work', Qty: 1, UnitCostEx: toWire(step.totalMinor) }],
        },
      });
      return { res, expected: [201], balanceDelta: step.draft ? 0 : step.totalMinor };
    }
    case 'cancelInvoice': {
      if (before.invoices.length === 0) return { res: null, expected: [], balanceDelta: 0 };
      const invoice = before.invoices[step.pick % before.invoices.length]!;
      const res = await as.request('DELETE', `/v1/invoices/${invoice.id}`);
      // A draft is deleted; an issued invoice is cancelled, unless money is allocated to it or it is already.
      const refused = invoice.isCancelled || invoice.applied.length > 0;
      return {
        res,
        expected: refused ? [409] : [204],
        balanceDelta: invoice.isDraft ? 0 : -invoice.balanceMinor,
      };
    }
    case 'create':
      return create(run, before, step);
    case 'edit': {
      const source = pickSource(before, step.source, step.pick);
      if (!source) return { res: null, expected: [], balanceDelta: 0 };
      const kind = source.key.split(':')[0] as SourceKind;
      const made = run.made.get(source.key)!;
      const held = [...source.allocations].sort((a, b) => a.allocationId - b.allocationId);
      const kept: Entry[] = [];
      held.forEach((a, i) => {
        const choice = step.existing[i] ?? { drop: false, amount: null };
        if (choice.drop) return;
        kept.push({
          allocationId: a.allocationId,
          target: a.target,
          amountMinor:
            choice.amount === null
              ? a.amountMinor
              : amountFor(choice.amount, (openOn(before, a.target) ?? 0) + a.amountMinor),
        });
      });
      const added = step.added.map((spec) => {
        const entry = resolve(before, spec, 0);
        return {
          ...entry,
          amountMinor: amountFor(
            spec.amount,
            (openOn(before, entry.target) ?? 0) + sum(held.filter((h) => h.target === entry.target)),
          ),
        };
      });
      const entries = [...kept, ...added];
      const amountMinor = Math.max(1, source.amountMinor + step.amountDelta);
      const auto = kind === 'negative' && step.auto;
      const valid = auto || acceptable(before, kind, amountMinor, entries, held);
      const allocations = entries.map((e) => wireAllocation(kind, e));
      let res: ApiResponse;
      const common = { customerID: customerId, Amount: toWire(amountMinor), Date: made.date };
      if (kind === 'payment') {
        res = await as.request('PUT', `/v1/payments/${source.id}`, {
          body: { ...common, CurrencyCode: 'USD', Method: 'eft', Ref: made.ref, Allocations: allocations },
        });
      } else if (kind === 'credit') {
        res = await as.request('PUT', `/v1/credits/${source.id}`, {
          body: { ...common, CurrencyCode: 'USD', CreditNumber: made.ref, Allocations: allocations },
        });
      } else {
        res = await as.request('PUT', '/v1/adjustment/edit', {
          body: {
            ...common,
            AdjustmentID: source.id,
            AdjustmentType: 'credit_note',
            Type: 'negative',
            Ref: made.ref,
            isAutoApply: auto,
            LinkedAllocations: auto ? [] : allocations,
          },
        });
      }
      return {
        res,
        expected: valid ? [204] : [422],
        balanceDelta: source.amountMinor - amountMinor,
        touched: source.key,
        verify: (after) => {
          // Kept allocations keep their ids (in id order), added ones follow in the order sent.
          const expected = auto
            ? autoApplied(before, 'negative', amountMinor, held, run.made)
            : targetsAndAmounts([...kept.sort((a, b) => a.allocationId! - b.allocationId!), ...added]);
          expect(targetsAndAmounts(allocationsOf(after, source.key)), `${source.key} allocations`).toEqual(
            expected,
          );
          if (!auto) {
            expect(
              allocationsOf(after, source.key)
                .slice(0, kept.length)
                .map((a) => a.allocationId),
            ).toEqual(kept.map((k) => k.allocationId));
          }
        },
      };
    }
    case 'delete': {
      const source = pickSource(before, step.source, step.pick);
      if (!source) return { res: null, expected: [], balanceDelta: 0 };
      const [method, path] = deleteRequest(run, source.key);
      return {
        res: await as.request(method, path),
        expected: [204],
        balanceDelta: source.amountMinor,
        touched: source.key,
      };
    }
    case 'positive':
      return createPositive(run, step.amountMinor, step.day);
    case 'editPositive': {
      const positives = before.positives ?? [];
      if (positives.length === 0) return { res: null, expected: [], balanceDelta: 0 };
      // Going below what is allocated is tried on one that has something allocated, when there is one.
      const allocated = positives.filter((p) => p.applied.length > 0);
      const pool = step.amountDelta === null && allocated.length > 0 ? allocated : positives;
      const positive = pool[step.pick % pool.length]!;
      const made = run.made.get(positive.key)!;
      const amountMinor = Math.max(
        1,
        step.amountDelta === null ? sum(positive.applied) - 1 : positive.amountMinor + step.amountDelta,
      );
      const res = await as.request('PUT', '/v1/adjustment/edit', {
        body: {
          AdjustmentID: positive.id,
          AdjustmentType: 'opening_balance',
          customerID: customerId,
          Type: 'positive',
          Amount: toWire(amountMinor),
          Date: made.date,
          DueDate: made.dueDate,
          Ref: made.ref,
          isAutoApply: false,
          LinkedAllocations: [],
        },
      });
      // What is allocated to it stays: its amount cannot drop below that.
      return {
        res,
        expected: amountMinor >= sum(positive.applied) ? [204] : [422],
        balanceDelta: amountMinor - positive.amountMinor,
        touched: positive.key,
      };
    }
    case 'deletePositive': {
      const positives = before.positives ?? [];
      if (positives.length === 0) return { res: null, expected: [], balanceDelta: 0 };
      const positive = positives[step.pick % positives.length]!;
      const [method, path] = deleteRequest(run, positive.key);
      return {
        res: await as.request(method, path),
        expected: positive.applied.length > 0 ? [409] : [204],
        balanceDelta: -positive.amountMinor,
        touched: positive.key,
      };
    }
    case 'roundTrip':
      throw new Error('roundTrip is run by runLedger');
  }
}

/** The whole of a refusal's check: the state is as it was. */
function expectUnchanged(before: LedgerState, after: LedgerState, what: string) {
  expect(after, `${what} changed nothing`).toEqual(before);
}

function check(before: LedgerState, after: LedgerState, outcome: Outcome, what: string) {
  const { res } = outcome;
  if (!res) return;
  expect(res.status, `${what}: no server error: ${res.text}`).toBeLessThan(500);
  expect(outcome.expected, `${what} answered ${res.status}: ${res.text}`).toContain(res.status);
  expectLedgerConsistent(after, what);
  if (res.status >= 400) {
    expectUnchanged(before, after, what);
    return;
  }
  expect(after.balanceMinor - before.balanceMinor, `${what}: Balance moves by the step's amount`).toBe(
    outcome.balanceDelta,
  );
  // Sources the step did not touch keep their allocations (the targets they pay may not be the same).
  for (const source of sourcesOf(before)) {
    if (source.key === outcome.touched) continue;
    const now = sourcesOf(after).find((s) => s.key === source.key);
    expect(now, `${what}: ${source.key} untouched`).toEqual(source);
  }
  // Invoices keep their totals.
  for (const invoice of before.invoices) {
    const now = after.invoices.find((i) => i.id === invoice.id);
    if (invoice.isDraft && !now) continue; // a deleted draft
    expect(now?.totalMinor, `${what}: invoice ${invoice.id} Total`).toBe(invoice.totalMinor);
  }
  outcome.verify?.(after, res);
}

async function runLedger(steps: Step[]): Promise<void> {
  const as = await t.newAccount('Ledger');
  const run: Run = { as, customerId: await createCustomer(as), made: new Map(), seq: 0, trace: [] };
  try {
    let state = await readLedger(as, run.customerId, features);
    expectLedgerConsistent(state, 'start');
    for (const [n, raw] of steps.entries()) {
      const step = available(raw, features);
      const what = `step ${n + 1} ${step.kind}${'source' in step ? ` ${step.source}` : ''}`;
      if (step.kind === 'roundTrip') {
        // Created then deleted with nothing in between: every figure is as it was.
        const outcome =
          step.create.kind === 'positive'
            ? await createPositive(run, step.create.amountMinor, step.create.day)
            : await create(run, state, step.create);
        const created = await readLedger(as, run.customerId, features);
        run.trace.push(`${what}: ${JSON.stringify(step.create)} → ${outcome.res!.status}`);
        check(state, created, outcome, `${what} (create)`);
        if (outcome.res!.status === 201) {
          const [method, path] = deleteRequest(run, outcome.touched!);
          const res = await as.request(method, path);
          run.trace.push(`  delete ${outcome.touched} → ${res.status}`);
          expect(res.status, `${what} (delete): ${res.text}`).toBe(204);
          const after = await readLedger(as, run.customerId, features);
          expectLedgerConsistent(after, `${what} (delete)`);
          expect(after, `${what}: create then delete restores every figure`).toEqual(state);
        }
        state = await readLedger(as, run.customerId, features);
        continue;
      }
      const outcome = await runStep(run, state, step);
      run.trace.push(
        `${what}: ${JSON.stringify(step)} → ${outcome.res?.status ?? 'skipped'} ${outcome.res && outcome.res.status >= 400 ? outcome.res.text : ''}`,
      );
      if (!outcome.res) continue;
      const after = await readLedger(as, run.customerId, features);
      check(state, after, outcome, what);
      state = after;
    }
  } catch (error) {
    if (error instanceof Error) error.message += `\n${run.trace.join('\n')}`;
    throw error;
  }
}

describe('ledger reconciliation (property)', () => {
  it('keeps every figure the sum of its allocations, refusals without effect, the Balance reconciled', async () => {
    await fc.assert(fc.asyncProperty(stepsArb, runLedger), {
      numRuns: randomRuns(25),
      ...(process.env.FC_SEED ? { seed: Number(process.env.FC_SEED) } : {}),
    });
  }, 600_000);

  it('a refused request on an empty ledger is answered 422 and changes nothing', async () => {
    const as = await t.newAccount('Ledger refusals');
    const customerId = await createCustomer(as);
    const invoice = await issuedInvoice(as, { customerId, description: 'Work', amount: '10.00' });
    const before = await readLedger(as, customerId, features);
    const res = await as.request('POST', '/v1/payments', {
      body: {
        customerID: customerId,
        Amount: '20.00',
        CurrencyCode: 'USD',
        Date: '2026-02-20',
        Method: 'eft',
        allocations: [{ invoiceID: invoice.invoiceID, amountApplied: '10.01' }],
      },
    });
    expect(res.status, res.text).toBe(422);
    expect(await readLedger(as, customerId, features)).toEqual(before);
  });
});
