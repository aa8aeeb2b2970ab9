import { capacityOf } from './credit.ts';
import type { GrantSums } from './credit.ts';
import type { CreditGrant, NewEntry } from './credit.repository.ts';

/**
 * What every path that writes a grant's journal or spends it shares, apart from the grant's use cases
 * (grant.service.ts), which pay open invoices when a grant is made and so sit above consumption.service.ts.
 */

export const grantRef = (id: number) => ({ type: 'credit_grant', id });

/** A journal entry of a grant with no invoice. */
export function entryOf(
  grant: { id: number; walletId: number },
  kind: NewEntry['kind'],
  amountMinor: number,
  on: { invoiceId: number; allocationId: number | null } | null = null,
): NewEntry {
  return {
    grantId: grant.id,
    walletId: grant.walletId,
    kind,
    amountMinor,
    invoiceId: on?.invoiceId ?? null,
    allocationId: on?.allocationId ?? null,
  };
}

/** What a grant's capacity is for the ledger (see GrantAsSource). */
export function grantAsSource(grant: CreditGrant, sums: GrantSums) {
  return {
    grantId: grant.id,
    customerId: grant.customerId,
    currencyCode: grant.currencyCode,
    capacityMinor: capacityOf(sums),
  };
}
