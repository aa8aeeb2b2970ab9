/**
 * Prepaid credit's pure rules (docs/credits.md): a grant's figures from its journal, whether it may still be
 * spent, the order grants are consumed in, and how they are spread over invoices.
 */

export const GRANT_KINDS = ['paid', 'granted'] as const;
export type GrantKind = (typeof GRANT_KINDS)[number];

/**
 * How a grant's credit is taxed (docs/tax.md, "Prepaid credit"): paid credit sold with VAT (`when_sold`, the VAT
 * Act's section 10(19)) or as a monetary voucher taxed when used (`when_used`, section 10(18)); free credit is a
 * discount on what it pays for (`discount`).
 */
export const VAT_TREATMENTS = ['when_sold', 'when_used', 'discount'] as const;
export type VatTreatment = (typeof VAT_TREATMENTS)[number];

/** What the account may choose for the credit it sells (PrepaidCreditVat of PUT /v1/account). */
export const SALE_VAT_TREATMENTS = ['when_sold', 'when_used'] as const;
export type SaleVatTreatment = (typeof SALE_VAT_TREATMENTS)[number];

/**
 * Whether the grant's consumption takes VAT off the invoice it pays: credit whose VAT was paid when it was sold
 * (the invoice's consideration is deemed nil to that extent) and free credit (a discount) do; credit taxed when
 * used is money, as a payment is.
 */
export function reducesSupply(treatment: VatTreatment): boolean {
  return treatment !== 'when_used';
}

/**
 * `refund`: credit taken out because the money that bought it goes back (docs/credits.md, "Crediting a top-up");
 * `refund_undone`: that credit given back when the money did not go after all (the gateway refused the refund, the
 * credit note was deleted or lowered). Entries are append-only, so an undo is an entry of its own.
 */
export const ENTRY_KINDS = [
  'grant',
  'consume',
  'release',
  'expire',
  'void',
  'refund',
  'refund_undone',
] as const;
export type EntryKind = (typeof ENTRY_KINDS)[number];

/** A grant's journal summed by kind, in minor units; each sum is positive or 0. */
export type GrantSums = Record<EntryKind, number>;

export const noSums = (): GrantSums => ({
  grant: 0,
  consume: 0,
  release: 0,
  expire: 0,
  void: 0,
  refund: 0,
  refund_undone: 0,
});

/** What remains of a grant to spend: its journal's sum (docs/credits.md, "Wallets"). */
export function remainingOf(sums: GrantSums): number {
  return sums.grant - sums.consume + sums.release - sums.expire - sums.void - refundedOf(sums);
}

/** What refunds took from a grant and kept: its `refund` entries less those undone. */
export function refundedOf(sums: GrantSums): number {
  return sums.refund - sums.refund_undone;
}

/**
 * The most its allocations may come to: what was granted less what expired, was voided or refunded. The ledger
 * refuses any allocation beyond it, so credit is never consumed twice.
 */
export function capacityOf(sums: GrantSums): number {
  return sums.grant - sums.expire - sums.void - refundedOf(sums);
}

/** Whether the grant has expired at `now` (both ISO 8601 instants): its expiry is the first instant it may not pay. */
export function isExpired(expiresAt: string | null, now: string): boolean {
  return expiresAt !== null && Date.parse(expiresAt) <= Date.parse(now);
}

/** What the consumption order needs of a grant. */
export interface OrderedGrant {
  id: number;
  priority: number;
  expiresAt: string | null;
}

/** Priority 1 first, then the earliest expiry (none last), then the oldest (docs/credits.md, "Consumption order"). */
export function consumptionOrder(a: OrderedGrant, b: OrderedGrant): number {
  if (a.priority !== b.priority) return a.priority - b.priority;
  if (a.expiresAt !== b.expiresAt) {
    if (a.expiresAt === null) return 1;
    if (b.expiresAt === null) return -1;
    return Date.parse(a.expiresAt) - Date.parse(b.expiresAt);
  }
  return a.id - b.id;
}

/**
 * The lines a grant may pay (docs/credits.md, "Grants"): those of these metrics and those of these components. Both
 * null: any line.
 */
export interface GrantRestriction {
  metricCodes: readonly string[] | null;
  componentIds: readonly number[] | null;
}

/** What a restriction needs to know of an invoice line. */
export interface PayableLine {
  metricCode: string | null;
  componentId: number | null;
  amountIncMinor: number;
}

export const isRestricted = (grant: GrantRestriction): boolean =>
  grant.metricCodes !== null || grant.componentIds !== null;

/** Whether a restricted grant may pay the line: it bills one of its metrics or one of its components. */
export function paysLine(grant: GrantRestriction, line: Omit<PayableLine, 'amountIncMinor'>): boolean {
  return (
    (line.metricCode !== null && (grant.metricCodes ?? []).includes(line.metricCode)) ||
    (line.componentId !== null && (grant.componentIds ?? []).includes(line.componentId))
  );
}

/** A grant with what it may still pay, and the lines it is restricted to. */
export interface SpendableGrant extends OrderedGrant, GrantRestriction {
  availableMinor: number;
}

/** An invoice to pay: what is open on it, its lines' amounts with tax, and what restricted grants already paid. */
export interface PayableInvoice {
  invoiceId: number;
  openMinor: number;
  lines: readonly PayableLine[];
  /** Net of what restricted grants already paid on it: their lines are paid that much. */
  restrictedPaidMinor: number;
}

export interface PlannedSpend {
  grantId: number;
  invoiceId: number;
  amountMinor: number;
}

/**
 * Each invoice, in the order given, drawn from the grants in consumption order until it is paid or they run out. A
 * restricted grant pays only what its lines make (with their tax) less what restricted grants already paid on the
 * invoice: two restricted grants never pay the same line twice.
 */
export function planSpend(
  grants: readonly SpendableGrant[],
  invoices: readonly PayableInvoice[],
): PlannedSpend[] {
  const ordered = [...grants]
    .sort(consumptionOrder)
    .map((grant) => ({ ...grant, left: grant.availableMinor }));
  const planned: PlannedSpend[] = [];
  for (const invoice of invoices) {
    let open = invoice.openMinor;
    let restrictedPaid = invoice.restrictedPaidMinor;
    for (const grant of ordered) {
      if (open <= 0) break;
      if (grant.left <= 0) continue;
      const room = isRestricted(grant) ? restrictedRoom(invoice, grant, restrictedPaid) : open;
      const amountMinor = Math.min(open, grant.left, room);
      if (amountMinor <= 0) continue;
      planned.push({ grantId: grant.id, invoiceId: invoice.invoiceId, amountMinor });
      grant.left -= amountMinor;
      open -= amountMinor;
      if (isRestricted(grant)) restrictedPaid += amountMinor;
    }
  }
  return planned;
}

/**
 * What the invoice's lines the grant may pay are worth, less what restricted grants paid on them (docs/credits.md,
 * "Consumption order"). A component's lines count together, so that the deduction of what progressive invoices billed
 * (it names the component, not the metric) nets against its usage; a group that nets below zero is worth nothing.
 * The lines below zero that name neither (a coupon's discount) are taken from every group in proportion to the group's
 * lines above zero, as the coupon took them, rounded against the grant, so a restricted grant never pays for what its
 * lines were discounted of.
 */
function restrictedRoom(invoice: PayableInvoice, grant: GrantRestriction, paidMinor: number): number {
  const groups = new Map<string, { netMinor: number; grossMinor: number; paid: boolean }>();
  let unnamedMinor = 0;
  invoice.lines.forEach((line, i) => {
    const named = line.componentId !== null || line.metricCode !== null;
    if (!named && line.amountIncMinor < 0) {
      unnamedMinor -= line.amountIncMinor;
      return;
    }
    // A line naming nothing (the plan's) is a group of its own.
    const key = line.componentId !== null ? `c${line.componentId}` : named ? `m${line.metricCode}` : `${i}`;
    const group = groups.get(key) ?? { netMinor: 0, grossMinor: 0, paid: false };
    group.netMinor += line.amountIncMinor;
    group.grossMinor += Math.max(0, line.amountIncMinor);
    group.paid ||= paysLine(grant, line);
    groups.set(key, group);
  });
  const gross = BigInt([...groups.values()].reduce((sum, group) => sum + group.grossMinor, 0));
  const worth = [...groups.values()]
    .filter((group) => group.paid)
    .reduce((sum, group) => {
      if (gross === 0n) return sum + Math.max(0, group.netMinor);
      // net − unnamed × gross_g / gross, floored: exact in integers.
      const scaled = BigInt(group.netMinor) * gross - BigInt(unnamedMinor) * BigInt(group.grossMinor);
      return sum + (scaled > 0n ? Number(scaled / gross) : 0);
    }, 0);
  return Math.max(0, worth - paidMinor);
}
