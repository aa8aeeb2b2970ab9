import type { ServiceContext } from '../../context.ts';
import type { EventToEmit } from '../events/index.ts';
import { allocationsOfSources, applyAllocationsReturning } from './allocation.service.ts';
import type { Allocation, AllocationEntry, MoneySource } from './allocation.service.ts';
import type { SupplyReduction } from './reduction.ts';

/**
 * A credit grant as a source of the one allocation engine (docs/credits.md, "Consumption order"): the credits
 * module keeps the grant and its journal, the ledger its allocations, so an invoice's paid figure moves through
 * invoicing's index exactly as a credit note's allocation moves it, and a grant's consumption reads, reverses and
 * shows as any allocation does. Called under the customer's lock (withLockedCustomer), which the caller holds.
 */

export interface GrantAsSource {
  grantId: number;
  customerId: number;
  currencyCode: string;
  /**
   * What the grant may have allocated at most: its amount less what expired, was voided or refunded. Its
   * allocations then never exceed it, so no path consumes a grant beyond its amount.
   */
  capacityMinor: number;
  /**
   * Credit whose VAT was paid when it was sold, or free credit, takes the VAT off what it pays (docs/tax.md,
   * "Prepaid credit"); absent: credit taxed when used, which pays as money does.
   */
  reduces?: SupplyReduction;
}

function moneySourceOf(grant: GrantAsSource): MoneySource {
  return {
    type: 'credit_grant',
    id: grant.grantId,
    customerId: grant.customerId,
    currencyCode: grant.currencyCode,
    amountMinor: grant.capacityMinor,
    // Credit lowers what an invoice owes as a credit note does (docs/credits.md, "Tax").
    invoiceColumn: 'negative_adjs_minor',
    label: `credit grant ${grant.grantId}`,
    ...(grant.reduces ? { reduces: grant.reduces } : {}),
  };
}

/** What a grant's allocation change did: the allocations it added, as stored, and its invoices' events. */
export interface GrantAllocationOutcome {
  inserted: Allocation[];
  targetEvents: EventToEmit[];
}

/** Adds allocations of the grant to invoices, keeping those it holds; a 422 if any would over-allocate. */
export async function allocateGrant(
  ctx: ServiceContext,
  grant: GrantAsSource,
  adds: readonly { invoiceId: number; amountMinor: number }[],
): Promise<GrantAllocationOutcome> {
  const held = await heldEntries(ctx, grant.grantId);
  const entries = [
    ...held,
    ...adds.map((add) => ({
      allocationId: null,
      amountMinor: add.amountMinor,
      target: { type: 'invoice' as const, id: add.invoiceId },
    })),
  ].map(asEntry);
  const { outcome, inserted } = await applyAllocationsReturning(ctx, moneySourceOf(grant), {
    autoApply: false,
    entries,
  });
  return { inserted, targetEvents: outcome.targetEvents };
}

/**
 * Takes back part or all of some of the grant's allocations (a void or a credit note of the invoice they paid):
 * each named allocation shrinks by the amount given, and goes when nothing is left of it.
 */
export async function releaseGrantAllocations(
  ctx: ServiceContext,
  grant: GrantAsSource,
  releases: readonly { allocationId: number; amountMinor: number }[],
): Promise<EventToEmit[]> {
  const taken = new Map(releases.map((release) => [release.allocationId, release.amountMinor]));
  const entries = (await heldEntries(ctx, grant.grantId))
    .map((entry) => ({ ...entry, amountMinor: entry.amountMinor - (taken.get(entry.allocationId) ?? 0) }))
    .filter((entry) => entry.amountMinor > 0)
    .map(asEntry);
  const { outcome } = await applyAllocationsReturning(ctx, moneySourceOf(grant), {
    autoApply: false,
    entries,
  });
  return outcome.targetEvents;
}

/** The grant's allocations now, by id and invoice. */
export async function grantAllocations(
  ctx: ServiceContext,
  grantIds: readonly number[],
): Promise<Allocation[]> {
  return [...(await allocationsOfSources(ctx, 'credit_grant', grantIds)).values()].flat();
}

async function heldEntries(ctx: ServiceContext, grantId: number) {
  const held = (await allocationsOfSources(ctx, 'credit_grant', [grantId])).get(grantId) ?? [];
  return held.map((allocation) => ({
    allocationId: allocation.id,
    amountMinor: allocation.amountMinor,
    target: { type: allocation.targetType, id: allocation.targetId },
  }));
}

function asEntry(
  entry: { allocationId: number | null; amountMinor: number; target: AllocationEntry['target'] },
  i: number,
): AllocationEntry {
  return { ...entry, field: `allocations[${i}]`, targetField: `allocations[${i}].invoiceID` };
}
