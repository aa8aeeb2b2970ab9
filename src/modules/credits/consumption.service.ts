import { nowInstant, today } from '../../context.ts';
import { dateAt, startOfDate } from '../../core/calendar.ts';
import type { PlainDate } from '../../core/calendar.ts';
import type { ServiceContext } from '../../context.ts';
import { emitEvents, snapshotResources } from '../events/index.ts';
import type { EventToEmit, Snapshot } from '../events/index.ts';
import { invoiceNumbersByIds, invoicesByIds, lockInvoicesForAllocation } from '../invoicing/index.ts';
import type { InvoiceCharge, IssuedInvoice } from '../invoicing/index.ts';
import {
  allocateGrant,
  allocationsToTargets,
  releaseGrantAllocations,
  unappliedMoneyMinor,
  withLockedCustomer,
  withLockedCustomers,
} from '../ledger/index.ts';
import type { GrantCreditRequest, SupplyReduction } from '../ledger/index.ts';
import { isExpired, isRestricted, planSpend, reducesSupply, remainingOf, noSums } from './credit.ts';
import type { PayableInvoice, PayableLine, PlannedSpend } from './credit.ts';
import * as repo from './credit.repository.ts';
import * as topUpRepo from './topUp.repository.ts';
import type { CreditGrant, NewEntry } from './credit.repository.ts';
import { entryOf, grantAsSource, grantRef } from './grantEntries.ts';
import { checkWalletBalances } from './walletBalance.service.ts';

/**
 * Credit consumed by invoices (docs/credits.md, "Consumption order"): at their issue (invoicing's port) and at
 * each credit-first moment (the ledger's), the customer's grants in the invoice's currency pay what its own money
 * leaves open, by priority, earliest expiry, oldest; never an expired grant (read by the clock) nor a paid
 * top-up's own invoice. Each consumption is an allocation of the ledger and a `consume` entry of the journal, made
 * under the customer's lock, so two paths never spend the same credit.
 */

/** Invoicing's port: invoices just issued, in the issuing transaction; their customers' grants pay them. */
export function payIssuedInvoices(ctx: ServiceContext, issued: readonly IssuedInvoice[]): Promise<void> {
  return payWithGrantsKeepingOwnMoney(ctx, issued, 'at_issue');
}

/**
 * Invoices issued before, paid from their customers' grants as payIssuedInvoices pays new ones (credit arriving,
 * docs/credits.md, "Consumption order"): the VAT credit takes off them goes on tax credit notes (docs/tax.md).
 */
export function payOpenInvoicesWithGrants(
  ctx: ServiceContext,
  open: readonly IssuedInvoice[],
): Promise<void> {
  return payWithGrantsKeepingOwnMoney(ctx, open, 'after_issue');
}

/** The customers' grants pay the invoices, what their own money not yet applied would pay kept for it. */
async function payWithGrantsKeepingOwnMoney(
  ctx: ServiceContext,
  issued: readonly IssuedInvoice[],
  moment: 'at_issue' | 'after_issue',
): Promise<void> {
  const now = nowInstant(ctx);
  const customers = [...new Set(issued.map((invoice) => invoice.customerId))];
  const withGrants = await repo.customersWithSpendableGrants(ctx.db, ctx.account.id, customers, now);
  if (withGrants.size === 0) return;
  const ids = [...withGrants].sort((a, b) => a - b);
  await withLockedCustomers(ctx, ids, async (ctx) => {
    for (const customerId of ids) {
      const ofCustomer = issued.filter((invoice) => invoice.customerId === customerId);
      for (const currencyCode of new Set(ofCustomer.map((invoice) => invoice.currencyCode))) {
        // The customer's own money not yet applied pays before any grant: it is kept for these invoices, and
        // credit first applies it when they are collected.
        const reservedMinor = await unappliedMoneyMinor(ctx, { customerId, currencyCode });
        await spendGrants(
          ctx,
          {
            customerId,
            currencyCode,
            invoiceIds: ofCustomer.filter((i) => i.currencyCode === currencyCode).map((i) => i.invoiceId),
          },
          reservedMinor,
          moment,
        );
      }
    }
  });
}

/** The ledger's port: credit first's last step, under the customer's lock the ledger holds. */
export function payFromGrants(
  ctx: ServiceContext,
  request: GrantCreditRequest,
): Promise<Map<number, number>> {
  return spendGrants(ctx, request, 0, 'after_issue');
}

/**
 * When credit is consumed: in the transaction that issues the invoice (the invoice shows what the credit took off
 * it), after it (a tax credit note shows it), or given back (docs/tax.md, "Prepaid credit").
 */
type Moment = 'at_issue' | 'after_issue' | 'given_back';

/** How the grant's allocations reduce the invoices at that moment; undefined for credit that pays as money does. */
async function reductionOf(
  ctx: ServiceContext,
  grant: CreditGrant,
  moment: Moment,
): Promise<SupplyReduction | undefined> {
  if (!reducesSupply(grant.vatTreatment)) return undefined;
  if (moment === 'at_issue') return { date: 'invoice' };
  if (moment === 'given_back') return { date: today(ctx) };
  return { date: today(ctx), newCreditNote: { reason: await reductionWords(ctx, grant) } };
}

/** What a tax credit note of prepaid credit says of it (docs/tax.md, "Prepaid credit"). */
async function reductionWords(ctx: ServiceContext, grant: CreditGrant): Promise<string> {
  if (grant.vatTreatment === 'discount') return 'Promotional credit: a discount on this supply';
  const sold =
    grant.topUpInvoiceId === null
      ? undefined
      : (await invoiceNumbersByIds(ctx, [grant.topUpInvoiceId])).get(grant.topUpInvoiceId);
  return (
    'Paid from prepaid credit on which VAT was charged when it was sold' +
    (sold === undefined || sold === null ? '' : ` (tax invoice ${sold})`) +
    ': the consideration is deemed nil to that extent (VAT Act, section 10(19))'
  );
}

/**
 * Pays the invoices, in their order, from the customer's grants, `reservedMinor` of what is open on them left for
 * its own money; returns what was applied to each, by id.
 */
async function spendGrants(
  ctx: ServiceContext,
  request: GrantCreditRequest,
  reservedMinor: number,
  moment: Moment,
): Promise<Map<number, number>> {
  const applied = new Map<number, number>();
  const now = nowInstant(ctx);
  const grants = await repo.listSpendableGrants(ctx.db, ctx.account.id, request, now);
  if (grants.length === 0 || request.invoiceIds.length === 0) return applied;
  const invoices = await payableInvoices(ctx, request, grants, reservedMinor);
  if (invoices.length === 0) return applied;
  const sums = await repo.sumsOfGrants(
    ctx.db,
    ctx.account.id,
    grants.map((grant) => grant.id),
  );
  const plan = planSpend(
    grants.map((grant) => ({
      id: grant.id,
      priority: grant.priority,
      expiresAt: grant.expiresAt,
      metricCodes: grant.metricCodes,
      componentIds: grant.componentIds,
      availableMinor: remainingOf(sums.get(grant.id) ?? noSums()),
    })),
    invoices,
  );
  if (plan.length === 0) return applied;
  const byId = new Map(grants.map((grant) => [grant.id, grant]));
  const before = await snapshotResources(ctx, 'credit_grant', [
    ...new Set(plan.map((spend) => spend.grantId)),
  ]);
  const events: EventToEmit[] = [];
  const entries: NewEntry[] = [];
  for (const [grantId, spends] of groupByGrant(plan)) {
    const grant = byId.get(grantId)!;
    const outcome = await allocateGrant(
      ctx,
      {
        ...grantAsSource(grant, sums.get(grantId) ?? noSums()),
        reduces: await reductionOf(ctx, grant, moment),
      },
      spends.map((spend) => ({ invoiceId: spend.invoiceId, amountMinor: spend.amountMinor })),
    );
    for (const allocation of outcome.inserted) {
      entries.push(
        entryOf(grant, 'consume', allocation.amountMinor, {
          invoiceId: allocation.targetId,
          allocationId: allocation.id,
        }),
      );
      applied.set(allocation.targetId, (applied.get(allocation.targetId) ?? 0) + allocation.amountMinor);
    }
    events.push(grantEvent('credit_grant.consumed', grantId, before), ...outcome.targetEvents);
  }
  await repo.insertEntries(ctx.db, ctx.account.id, entries, now);
  await emitEvents(ctx, events);
  // docs/credits.md, "Automatic top-ups": in this transaction, under the customer's lock.
  await checkWalletBalances(ctx, [...new Set(entries.map((entry) => entry.walletId))]);
  return applied;
}

/**
 * The invoices that credit may pay, in the request's order: issued, in the currency, something open, not a paid
 * top-up's own; locked. With a grant restricted to metrics, their lines and what restricted grants paid on them.
 */
async function payableInvoices(
  ctx: ServiceContext,
  request: GrantCreditRequest,
  grants: readonly CreditGrant[],
  reservedMinor: number,
): Promise<PayableInvoice[]> {
  const topUps = new Set(
    (await topUpRepo.topUpsOfInvoices(ctx.db, ctx.account.id, request.invoiceIds)).map((t) => t.invoiceId),
  );
  const ids = request.invoiceIds.filter((id) => !topUps.has(id));
  const locked = new Map(
    (await lockInvoicesForAllocation(ctx, request.customerId, ids, [])).map((invoice) => [
      invoice.id,
      invoice,
    ]),
  );
  let reserved = reservedMinor;
  const payable: PayableInvoice[] = [];
  for (const id of ids) {
    const invoice = locked.get(id);
    if (!invoice || invoice.refusal || invoice.currencyCode !== request.currencyCode) continue;
    const kept = Math.min(reserved, invoice.openMinor);
    reserved -= kept;
    if (invoice.openMinor - kept <= 0) continue;
    payable.push({ invoiceId: id, openMinor: invoice.openMinor - kept, lines: [], restrictedPaidMinor: 0 });
  }
  if (payable.length === 0 || !grants.some(isRestricted)) return payable;
  return withRestrictionFigures(ctx, payable);
}

/** The invoices' lines with their metrics, and what grants restricted to metrics already pay on each. */
async function withRestrictionFigures(
  ctx: ServiceContext,
  payable: readonly PayableInvoice[],
): Promise<PayableInvoice[]> {
  const ids = payable.map((invoice) => invoice.invoiceId);
  const invoices = await invoicesByIds(ctx, ids);
  const entries = await repo.listEntriesOnInvoices(ctx.db, ctx.account.id, ids);
  const restricted = new Set(
    (await repo.findGrants(ctx.db, ctx.account.id, [...new Set(entries.map((entry) => entry.grantId))]))
      .filter(isRestricted)
      .map((grant) => grant.id),
  );
  return payable.map((invoice) => {
    const stored = invoices.get(invoice.invoiceId);
    const restrictedPaidMinor = entries
      .filter((entry) => entry.invoiceId === invoice.invoiceId && restricted.has(entry.grantId))
      .reduce(
        (sum, entry) =>
          sum +
          (entry.kind === 'consume' ? entry.amountMinor : entry.kind === 'release' ? -entry.amountMinor : 0),
        0,
      );
    return {
      ...invoice,
      lines: payableLinesOf(stored?.charges ?? []),
      restrictedPaidMinor,
    };
  });
}

/**
 * Invoicing's port before an issued invoice is cancelled: the credit that paid it goes back to its grants (a
 * `release` entry each, the most recent consumption first); to a grant that has expired or been voided since, at
 * once written off again (`expire` or `void`), so the credit is not spendable again.
 */
export async function releaseCreditOfInvoice(ctx: ServiceContext, invoice: IssuedInvoice): Promise<void> {
  await withLockedCustomer(ctx, invoice.customerId, (ctx) =>
    giveCreditBack(ctx, invoice.customerId, invoice.invoiceId, null),
  );
}

/**
 * The ledger's port before a credit note is allocated to an invoice: up to `amountMinor` of the credit that paid
 * the invoice goes back to its grants, the most recent consumption first, so that the credit note takes its place
 * (docs/credits.md, "Consumption order"). Under the customer's lock, which the ledger holds.
 */
export async function releaseCreditForCreditNote(
  ctx: ServiceContext,
  request: { customerId: number; invoiceId: number; amountMinor: number },
): Promise<void> {
  await giveCreditBack(ctx, request.customerId, request.invoiceId, request.amountMinor);
}

/**
 * Gives back the invoice's credit, all of it (`limitMinor` null) or up to the limit, the most recent first; only
 * the customer's own grants (another customer's invoice is refused by the allocation that follows).
 */
async function giveCreditBack(
  ctx: ServiceContext,
  customerId: number,
  invoiceId: number,
  limitMinor: number | null,
): Promise<void> {
  const onInvoice = ((await allocationsToTargets(ctx, 'invoice', [invoiceId])).get(invoiceId) ?? []).filter(
    (allocation) => allocation.sourceType === 'credit_grant',
  );
  const ownGrants = new Set(
    (
      await repo.findGrants(
        ctx.db,
        ctx.account.id,
        onInvoice.map((allocation) => allocation.sourceId),
      )
    )
      .filter((grant) => grant.customerId === customerId)
      .map((grant) => grant.id),
  );
  const held = onInvoice.filter((allocation) => ownGrants.has(allocation.sourceId)).reverse();
  let left = limitMinor ?? Number.MAX_SAFE_INTEGER;
  const allocations: { id: number; grantId: number; amountMinor: number }[] = [];
  for (const allocation of held) {
    if (left <= 0) break;
    const amountMinor = Math.min(left, allocation.amountMinor);
    allocations.push({ id: allocation.id, grantId: allocation.sourceId, amountMinor });
    left -= amountMinor;
  }
  if (allocations.length === 0) return;
  const grantIds = [...new Set(allocations.map((allocation) => allocation.grantId))];
  const grants = new Map(
    (await repo.findGrants(ctx.db, ctx.account.id, grantIds)).map((grant) => [grant.id, grant]),
  );
  const sums = await repo.sumsOfGrants(ctx.db, ctx.account.id, grantIds);
  const before = await snapshotResources(ctx, 'credit_grant', grantIds);
  const now = nowInstant(ctx);
  const entries: NewEntry[] = [];
  const events: EventToEmit[] = [];
  for (const grantId of grantIds) {
    const grant = grants.get(grantId)!;
    const given = allocations.filter((allocation) => allocation.grantId === grantId);
    events.push(
      ...(await releaseGrantAllocations(
        ctx,
        {
          ...grantAsSource(grant, sums.get(grantId) ?? noSums()),
          reduces: await reductionOf(ctx, grant, 'given_back'),
        },
        given.map((allocation) => ({ allocationId: allocation.id, amountMinor: allocation.amountMinor })),
      )),
    );
    for (const allocation of given) {
      const on = { invoiceId, allocationId: allocation.id };
      entries.push(entryOf(grant, 'release', allocation.amountMinor, on));
      if (grant.voidedAt !== null) entries.push(entryOf(grant, 'void', allocation.amountMinor, on));
      else if (isExpired(grant.expiresAt, now))
        entries.push(entryOf(grant, 'expire', allocation.amountMinor, on));
    }
    events.push(grantEvent('credit_grant.released', grantId, before));
    if (grant.voidedAt === null && isExpired(grant.expiresAt, now))
      events.push(grantEvent('credit_grant.expired', grantId, before));
  }
  await repo.insertEntries(ctx.db, ctx.account.id, entries, now);
  await emitEvents(ctx, events);
  await checkWalletBalances(ctx, [...new Set(entries.map((entry) => entry.walletId))]);
}

function groupByGrant(plan: readonly PlannedSpend[]): Map<number, PlannedSpend[]> {
  const groups = new Map<number, PlannedSpend[]>();
  for (const spend of plan) groups.set(spend.grantId, [...(groups.get(spend.grantId) ?? []), spend]);
  return groups;
}

export function grantEvent(
  type: string,
  grantId: number,
  before: ReadonlyMap<number | string, Snapshot>,
): EventToEmit {
  const was = before.get(grantId);
  return was ? { type, ref: grantRef(grantId), before: was } : { type, ref: grantRef(grantId) };
}

/** Invoicing's port for documents: what prepaid credit pays on each invoice now (consumed less released), by id. */
export async function prepaidCreditOnInvoices(
  ctx: ServiceContext,
  invoiceIds: readonly number[],
): Promise<Map<number, number>> {
  const paid = new Map<number, number>();
  for (const entry of await repo.listEntriesOnInvoices(ctx.db, ctx.account.id, invoiceIds)) {
    const sign = entry.kind === 'consume' ? 1 : entry.kind === 'release' ? -1 : 0;
    if (sign !== 0) paid.set(entry.invoiceId!, (paid.get(entry.invoiceId!) ?? 0) + sign * entry.amountMinor);
  }
  return paid;
}

/**
 * Statements' records of prepaid credit (docs/credits.md, "Consumption order"): each consumption lowers what the
 * customer owes, each release raises it again, dated by the day it was made in the account's time zone.
 */
export async function statementCreditRecordsOf(
  ctx: ServiceContext,
  customerId: number,
  currencyCode: string,
): Promise<{ id: number; date: string; amountMinor: number; invoiceId: number; givenBack: boolean }[]> {
  const entries = await repo.listStatementCreditEntries(ctx.db, ctx.account.id, customerId, currencyCode);
  return entries.map((entry) => ({
    id: entry.id,
    date: dateAt(entry.createdAt, ctx.account.timeZone),
    amountMinor: entry.kind === 'consume' ? -entry.amountMinor : entry.amountMinor,
    invoiceId: entry.invoiceId,
    givenBack: entry.kind === 'release',
  }));
}

/** What a restricted grant needs of an invoice's lines: their metric, component and amount with tax. */
export function payableLinesOf(charges: readonly InvoiceCharge[]): PayableLine[] {
  return charges.map((charge) => ({
    metricCode: charge.metered?.metricCode ?? null,
    componentId: charge.componentId,
    amountIncMinor: charge.amountIncMinor,
  }));
}

/** What the upcoming-invoice preview needs of an invoice not yet issued. */
export interface PreviewedInvoice {
  customerId: number;
  currencyCode: string;
  /** Its date: grants expired by the start of that day in the account's time zone pay nothing. */
  invoiceDate: PlainDate;
  totalMinor: number;
  lines: readonly PayableLine[];
}

/**
 * The prepaid credit the bill run will apply to an invoice when it issues it (docs/credits.md, "The upcoming
 * invoice"), read without consuming anything: the customer's own unapplied money is kept first, as at issue; then
 * the grants that are still spendable at the invoice date, by the same plan (priority, expiry, age, restriction to
 * metrics or components) from what remains of them now.
 */
export async function previewGrantCredit(ctx: ServiceContext, invoice: PreviewedInvoice): Promise<number> {
  if (invoice.totalMinor <= 0) return 0;
  const now = nowInstant(ctx);
  const dayStart = startOfDate(invoice.invoiceDate, ctx.account.timeZone);
  const at = Date.parse(dayStart) > Date.parse(now) ? dayStart : now;
  const grants = await repo.listSpendableGrants(ctx.db, ctx.account.id, invoice, at);
  if (grants.length === 0) return 0;
  const reservedMinor = await unappliedMoneyMinor(ctx, invoice);
  const openMinor = invoice.totalMinor - Math.min(reservedMinor, invoice.totalMinor);
  if (openMinor <= 0) return 0;
  const sums = await repo.sumsOfGrants(
    ctx.db,
    ctx.account.id,
    grants.map((grant) => grant.id),
  );
  const plan = planSpend(
    grants.map((grant) => ({
      id: grant.id,
      priority: grant.priority,
      expiresAt: grant.expiresAt,
      metricCodes: grant.metricCodes,
      componentIds: grant.componentIds,
      availableMinor: remainingOf(sums.get(grant.id) ?? noSums()),
    })),
    [{ invoiceId: 0, openMinor, lines: invoice.lines, restrictedPaidMinor: 0 }],
  );
  return plan.reduce((sum, spend) => sum + spend.amountMinor, 0);
}
