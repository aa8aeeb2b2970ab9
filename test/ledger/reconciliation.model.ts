import fc from 'fast-check';
import { sourcesOf } from '../helpers/ledger.ts';
import type { AllocationView, LedgerFeatures, LedgerState } from '../helpers/ledger.ts';
import { plusDays } from '../helpers/clock.ts';

// The model of the ledger reconciliation property (reconciliation.property.test.ts): what a run is made of (its
// Steps), how fast-check draws them, and what the allocation rules predict from the ledger read back before a
// step: which target an allocation names, whether a request must be accepted, and what AutoApply takes. How each
// step runs over HTTP, and the checks after it, are in the test.

export { plusDays as addDays };
/** Dates of invoices and positive adjustments: ten days, so that AutoApply meets ties. */
export const dayOf = (n: number) => plusDays('2026-01-01', n);

export type SourceKind = 'payment' | 'credit' | 'negative';

/** An allocation asked for: a target picked among the customer's (or one that does not exist) and an amount. */
export interface AllocSpec {
  target: 'invoice' | 'positive' | 'missing';
  pick: number;
  /** Per mille of what is open on the target (at least 0.01), or an absolute amount in cents. */
  amount: { permille: number } | { minor: number };
}

export interface CreateSpec {
  kind: 'create';
  source: SourceKind;
  auto: boolean;
  allocs: AllocSpec[];
  /** The source's amount: what the allocations ask for plus this, or an absolute amount. */
  amount: { extra: number } | { minor: number };
}

export type Step =
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

/** A run: a few invoices first, so that most steps find something to allocate to. */
export const stepsArb = fc
  .tuple(
    fc.array(invoiceArb, { minLength: 2, maxLength: 4 }),
    fc.array(stepArb, { minLength: 15, maxLength: 21 }),
  )
  .map(([first, rest]): Step[] => [...first, ...rest]);

/** A step over a kind whose routes do not exist yet becomes the payment (or invoice) step nearest to it. */
export function available(step: Step, features: LedgerFeatures): Step {
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

const MISSING_ID = 987_654_321;
export const sum = (list: readonly { amountMinor: number }[]) => list.reduce((s, a) => s + a.amountMinor, 0);

function sourcesOfKind(state: LedgerState, kind: SourceKind) {
  return kind === 'payment'
    ? state.payments
    : kind === 'credit'
      ? (state.credits ?? [])
      : (state.negatives ?? []);
}

/** A source of the kind asked for, or of any kind when the customer has none of that one. */
export function pickSource(state: LedgerState, kind: SourceKind, pick: number) {
  const own = sourcesOfKind(state, kind);
  const pool = own.length > 0 ? own : sourcesOf(state);
  return pool.length === 0 ? undefined : pool[pick % pool.length];
}

/** What is still open on a target, or undefined when it is not one the source may allocate to. */
export function openOn(state: LedgerState, target: string): number | undefined {
  if (target.startsWith('invoice:')) {
    const invoice = state.invoices.find((i) => `invoice:${i.id}` === target);
    if (!invoice || invoice.isDraft || invoice.isCancelled) return undefined;
    return invoice.balanceMinor;
  }
  const positive = (state.positives ?? []).find((p) => p.key === target);
  return positive ? positive.amountMinor - sum(positive.applied) : undefined;
}

export interface Entry {
  allocationId: number | null;
  /** `invoice:4`, `positive:9`, or `missing:…` / `draft…` targets that must be refused. */
  target: string;
  amountMinor: number;
}

/** Resolves an allocation spec against the state: which target it names and how much it asks for. */
export function resolve(state: LedgerState, spec: AllocSpec, held: number): Entry {
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

export function amountFor(amount: AllocSpec['amount'], open: number): number {
  return 'minor' in amount ? amount.minor : Math.max(1, Math.floor((open * amount.permille) / 1000));
}

/**
 * Whether the allocation rules accept the list for a source of `kind` holding `held` (its current allocations)
 * with the amount given: each target exists, is open to it (an issued, not cancelled invoice of the customer; a
 * positive adjustment for payments and negative adjustments), receives no more than is open on it (what the
 * source holds there counted as open), and the list comes to no more than the amount.
 */
export function acceptable(
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
export function autoApplied(
  state: LedgerState,
  kind: SourceKind,
  amountMinor: number,
  held: readonly AllocationView[],
  /** The records made, by key: a positive adjustment's Date is as made (the ledger view has none). */
  made: ReadonlyMap<string, { date: string }>,
): { target: string; amountMinor: number }[] {
  const candidates: { target: string; date: string; rank: number; id: number }[] = [];
  for (const i of state.invoices) {
    if (!i.isDraft && !i.isCancelled)
      candidates.push({ target: `invoice:${i.id}`, date: i.date, rank: 0, id: i.id });
  }
  if (kind === 'negative') {
    for (const p of state.positives ?? [])
      candidates.push({ target: p.key, date: made.get(p.key)!.date, rank: 1, id: p.id });
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

export const allocationsOf = (state: LedgerState, key: string) =>
  [...(sourcesOf(state).find((s) => s.key === key)?.allocations ?? [])].sort(
    (a, b) => a.allocationId - b.allocationId,
  );
export const targetsAndAmounts = (list: readonly { target: string; amountMinor: number }[]) =>
  list.map(({ target, amountMinor }) => ({ target, amountMinor }));
