import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService } from '../helpers/service.ts';
import type { ApiResponse, TestAccount, TestService } from '../helpers/service.ts';
import { createCustomer, movableClock, ok } from '../helpers/billing.ts';
import { detectFeatures, expectLedgerConsistent, readLedger, sourcesOf, toWire } from '../helpers/ledger.ts';
import type { AllocationView, LedgerFeatures, LedgerState } from '../helpers/ledger.ts';

// A customer's money reconciles whatever is done to it: a property test over random sequences of invoices
// (issued, drafts, cancelled), payments, credit notes and adjustments (AutoApply or explicit allocations with
// random amounts, many of which must be refused), their edits and deletions, run over HTTP against the real
// server. Each run is one customer of a fresh account. After every step the whole ledger is read back and checked:
// never a 500; a refusal (422, 409) changes nothing; the API predicts no refusal the test does not, and refuses
// every request that would over-allocate; each invoice's figures are the sums of its allocations; no target or
// source is over-allocated; AutoApply takes the earliest open targets; the customer's Balance reconciles with the
// records and moves by exactly the amount of each step; creating then deleting a record restores every figure.
// Credit notes and adjustments join when their routes exist. FC_RUNS=<n> runs more; FC_SEED=<seed> replays.

const clock = movableClock('2026-03-01T10:00:00.000Z');
let t: TestService;
let features: LedgerFeatures;
beforeAll(async () => {
  t = await startTestService({ clock });
  features = await detectFeatures(t);
});
afterAll(() => t?.close());

const DAY_MS = 86_400_000;
const addDays = (date: string, days: number) =>
  new Date(Date.parse(`${date}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);
/** Dates of invoices and positive adjustments: ten days, so that AutoApply meets ties. */
const dayOf = (n: number) => addDays('2026-01-01', n);

type SourceKind = 'payment' | 'credit' | 'negative';

/** An allocation asked for: a target picked among the customer's (or one that does not exist) and an amount. */
interface AllocSpec {
  target: 'invoice' | 'positive' | 'missing';
  pick: number;
  /** Per mille of what is open on the target (at least 0.01), or an absolute amount in cents. */
  amount: { permille: number } | { minor: number };
}

interface CreateSpec {
  kind: 'create';
  source: SourceKind;
  auto: boolean;
  allocs: AllocSpec[];
  /** The source's amount: what the allocations ask for plus this, or an absolute amount. */
  amount: { extra: number } | { minor: number };
}

type Step =
  | { kind: 'invoice'; totalMinor: number; day: number; draft: boolean }
  | { kind: 'cancelInvoice'; pick: number }
  | CreateSpec
  | {
      kind: 'edit';
      source: SourceKind;
      pick: number;
      /** Per existing allocation, in order: dropped, kept as it is, or set to a new amount. */
      existing: ({ drop: true } | { drop: false; amount: AllocSpec['amount'] | null })[];
      added: AllocSpec[];
      amountDelta: number;
      /** Negative adjustments only: re-spread with AutoApply. */
      auto: boolean;
    }
  | { kind: 'delete'; source: SourceKind; pick: number }
  | { kind: 'positive'; amountMinor: number; day: number }
  | { kind: 'editPositive'; pick: number; amountDelta: number | null }
  | { kind: 'deletePositive'; pick: number }
  | { kind: 'roundTrip'; create: CreateSpec | { kind: 'positive'; amountMinor: number; day: number } };

const amountArb: fc.Arbitrary<AllocSpec['amount']> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ permille: fc.integer({ min: 1, max: 1000 }) }) },
  { weight: 1, arbitrary: fc.record({ permille: fc.integer({ min: 1001, max: 1500 }) }) },
  { weight: 1, arbitrary: fc.record({ minor: fc.integer({ min: 1, max: 30_000 }) }) },
);

const allocArb: fc.Arbitrary<AllocSpec> = fc.record({
  target: fc.oneof(
    { weight: 6, arbitrary: fc.constant('invoice' as const) },
    { weight: 3, arbitrary: fc.constant('positive' as const) },
    { weight: 1, arbitrary: fc.constant('missing' as const) },
  ),
  pick: fc.nat(),
  amount: amountArb,
});

const sourceArb = fc.constantFrom<SourceKind>('payment', 'payment', 'credit', 'negative');

const createArb: fc.Arbitrary<CreateSpec> = fc.record({
  kind: fc.constant('create' as const),
  source: sourceArb,
  auto: fc.boolean(),
  allocs: fc.array(allocArb, { maxLength: 3 }),
  amount: fc.oneof(
    { weight: 4, arbitrary: fc.record({ extra: fc.integer({ min: 0, max: 2_000 }) }) },
    { weight: 1, arbitrary: fc.record({ minor: fc.integer({ min: 1, max: 20_000 }) }) },
  ),
});

const positiveArb = fc.record({
  kind: fc.constant('positive' as const),
  amountMinor: fc.integer({ min: 1, max: 15_000 }),
  day: fc.integer({ min: 0, max: 9 }),
});

const invoiceArb = fc.record({
  kind: fc.constant('invoice' as const),
  totalMinor: fc.integer({ min: 1, max: 20_000 }),
  day: fc.integer({ min: 0, max: 9 }),
  draft: fc.integer({ min: 0, max: 3 }).map((n) => n === 0),
});

const stepArb: fc.Arbitrary<Step> = fc.oneof(
  { weight: 5, arbitrary: invoiceArb },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('cancelInvoice' as const), pick: fc.nat() }) },
  { weight: 7, arbitrary: createArb },
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant('edit' as const),
      source: sourceArb,
      pick: fc.nat(),
      existing: fc.array(
        fc.oneof(
          fc.constant({ drop: true as const }),
          fc.record({ drop: fc.constant(false as const), amount: fc.option(amountArb, { nil: null }) }),
        ),
        { maxLength: 4 },
      ),
      added: fc.array(allocArb, { maxLength: 2 }),
      amountDelta: fc.integer({ min: -3_000, max: 3_000 }),
      auto: fc.boolean(),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant('delete' as const), source: sourceArb, pick: fc.nat() }),
  },
  { weight: 2, arbitrary: positiveArb },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('editPositive' as const),
      pick: fc.nat(),
      // null: 0.01 below what is allocated to it.
      amountDelta: fc.option(fc.integer({ min: -5_000, max: 5_000 }), { nil: null }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('deletePositive' as const), pick: fc.nat() }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('roundTrip' as const),
      create: fc.oneof({ weight: 3, arbitrary: createArb }, { weight: 1, arbitrary: positiveArb }),
    }),
  },
);

/** A step over a kind whose routes do not exist yet becomes the payment (or invoice) step nearest to it. */
function available(step: Step): Step {
  const source = (s: SourceKind): SourceKind =>
    (s === 'credit' && !features.credits) || (s === 'negative' && !features.adjustments) ? 'payment' : s;
  const positiveToInvoice = (p: { amountMinor: number; day: number }): Step => ({
    kind: 'invoice',
    totalMinor: p.amountMinor,
    day: p.day,
    draft: false,
  });
  switch (step.kind) {
    case 'create':
    case 'edit':
    case 'delete':
      return { ...step, source: source(step.source) };
    case 'positive':
      return features.adjustments ? step : positiveToInvoice(step);
    case 'editPositive':
    case 'deletePositive':
      return features.adjustments ? step : { kind: 'cancelInvoice', pick: step.pick };
    case 'roundTrip':
      if (step.create.kind === 'positive' && !features.adjustments) {
        return {
          kind: 'roundTrip',
          create: {
            ...step.create,
            kind: 'create',
            source: 'payment',
            auto: true,
            allocs: [],
            amount: { minor: step.create.amountMinor },
          } as CreateSpec,
        };
      }
      return step.create.kind === 'create'
        ? { ...step, create: { ...step.create, source: source(step.create.source) } }
        : step;
    default:
      return step;
  }
}

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

const MISSING_ID = 987_654_321;
const sum = (list: readonly { amountMinor: number }[]) => list.reduce((s, a) => s + a.amountMinor, 0);

function sourcesOfKind(state: LedgerState, kind: SourceKind) {
  return kind === 'payment'
    ? state.payments
    : kind === 'credit'
      ? (state.credits ?? [])
      : (state.negatives ?? []);
}

/** A source of the kind asked for, or of any kind when the customer has none of that one. */
function pickSource(state: LedgerState, kind: SourceKind, pick: number) {
  const own = sourcesOfKind(state, kind);
  const pool = own.length > 0 ? own : sourcesOf(state);
  return pool.length === 0 ? undefined : pool[pick % pool.length];
}

/** What is still open on a target, or undefined when it is not one the source may allocate to. */
function openOn(state: LedgerState, target: string): number | undefined {
  if (target.startsWith('invoice:')) {
    const invoice = state.invoices.find((i) => `invoice:${i.id}` === target);
    if (!invoice || invoice.isDraft || invoice.isCancelled) return undefined;
    return invoice.balanceMinor;
  }
  const positive = (state.positives ?? []).find((p) => p.key === target);
  return positive ? positive.amountMinor - sum(positive.applied) : undefined;
}

interface Entry {
  allocationId: number | null;
  /** `invoice:4`, `positive:9`, or `missing:…` / `draft…` targets that must be refused. */
  target: string;
  amountMinor: number;
}

/** Resolves an allocation spec against the state: which target it names and how much it asks for. */
function resolve(state: LedgerState, spec: AllocSpec, held: number): Entry {
  let target: string;
  if (spec.target === 'missing') target = `invoice:${MISSING_ID}`;
  else if (spec.target === 'invoice' || !state.positives || state.positives.length === 0) {
    const invoices = state.invoices;
    target =
      invoices.length === 0
        ? `invoice:${MISSING_ID}`
        : `invoice:${invoices[spec.pick % invoices.length]!.id}`;
  } else {
    target = state.positives[spec.pick % state.positives.length]!.key;
  }
  return {
    allocationId: null,
    target,
    amountMinor: amountFor(spec.amount, (openOn(state, target) ?? 0) + held),
  };
}

function amountFor(amount: AllocSpec['amount'], open: number): number {
  return 'minor' in amount ? amount.minor : Math.max(1, Math.floor((open * amount.permille) / 1000));
}

/**
 * Whether the allocation rules accept the list for a source of `kind` holding `held` (its current allocations)
 * with the amount given: each target exists, is open to it (an issued, not cancelled invoice of the customer; a
 * positive adjustment for payments and negative adjustments), receives no more than is open on it (what the
 * source holds there counted as open), and the list comes to no more than the amount.
 */
function acceptable(
  state: LedgerState,
  kind: SourceKind,
  amountMinor: number,
  entries: readonly Entry[],
  held: readonly AllocationView[],
): boolean {
  const perTarget = new Map<string, number>();
  for (const e of entries) {
    if (kind === 'credit' && !e.target.startsWith('invoice:')) return false;
    if (openOn(state, e.target) === undefined) return false;
    perTarget.set(e.target, (perTarget.get(e.target) ?? 0) + e.amountMinor);
  }
  for (const [target, asked] of perTarget) {
    if (asked > openOn(state, target)! + sum(held.filter((a) => a.target === target))) return false;
  }
  return sum(entries) <= amountMinor;
}

/**
 * AutoApply from the state: the earliest open targets first (invoices by InvoiceDate then id; negative adjustments
 * also positive adjustments by Date, after the invoices of that day), what the source already holds counted as
 * open, until the amount or the targets run out.
 */
function autoApplied(
  state: LedgerState,
  kind: SourceKind,
  amountMinor: number,
  held: readonly AllocationView[],
): { target: string; amountMinor: number }[] {
  const candidates: { target: string; date: string; rank: number; id: number }[] = [];
  for (const i of state.invoices) {
    if (!i.isDraft && !i.isCancelled)
      candidates.push({ target: `invoice:${i.id}`, date: i.date, rank: 0, id: i.id });
  }
  if (kind === 'negative') {
    for (const p of state.positives ?? [])
      candidates.push({ target: p.key, date: dateOfPositive.get(p.key)!, rank: 1, id: p.id });
  }
  candidates.sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : a.rank - b.rank || a.id - b.id));
  const out: { target: string; amountMinor: number }[] = [];
  let left = amountMinor;
  for (const c of candidates) {
    if (left <= 0) break;
    const open = openOn(state, c.target)! + sum(held.filter((a) => a.target === c.target));
    const applied = Math.min(left, open);
    if (applied <= 0) continue;
    out.push({ target: c.target, amountMinor: applied });
    left -= applied;
  }
  return out;
}

/** Positive adjustments' Dates (the ledger view has none), as made. */
const dateOfPositive = new Map<string, string>();

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

const allocationsOf = (state: LedgerState, key: string) =>
  [...(sourcesOf(state).find((s) => s.key === key)?.allocations ?? [])].sort(
    (a, b) => a.allocationId - b.allocationId,
  );
const targetsAndAmounts = (list: readonly { target: string; amountMinor: number }[]) =>
  list.map(({ target, amountMinor }) => ({ target, amountMinor }));

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
        ? autoApplied(before, spec.source, amountMinor, [])
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
    dateOfPositive.set(`positive:${res.body.AdjustmentID}`, made.date);
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
            ? autoApplied(before, 'negative', amountMinor, held)
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
      const step = available(raw);
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
    // A few invoices first, so that most steps find something to allocate to.
    const stepsArb = fc
      .tuple(
        fc.array(invoiceArb, { minLength: 2, maxLength: 4 }),
        fc.array(stepArb, { minLength: 15, maxLength: 21 }),
      )
      .map(([first, rest]): Step[] => [...first, ...rest]);
    await fc.assert(fc.asyncProperty(stepsArb, runLedger), {
      numRuns: Number(process.env.FC_RUNS ?? 25),
      ...(process.env.FC_SEED ? { seed: Number(process.env.FC_SEED) } : {}),
    });
  }, 600_000);

  it('a refused request on an empty ledger is answered 422 and changes nothing', async () => {
    const as = await t.newAccount('Ledger refusals');
    const customerId = await createCustomer(as);
    const invoice = await ok(as, 'POST', '/v1/invoices', {
      customerID: customerId,
      Charges: [{ Descrip: 'Work', Qty: 1, UnitCostEx: '10.00' }],
    });
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
