/**
 * Prepaid credit's pure rules (docs/credits.md): a grant's figures from its journal, whether it may still be
 * spent, the order grants are consumed in, and how they are spread over invoices.
 */

export const GRANT_KINDS = ['paid', 'granted'] as const;
export type GrantKind = (typeof GRANT_KINDS)[number];

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

/** A grant with what it may still pay, and the metrics it is restricted to (null: any line). */
export interface SpendableGrant extends OrderedGrant {
  availableMinor: number;
  metricCodes: readonly string[] | null;
}

/** An invoice to pay: what is open on it, its lines' amounts with tax, and what restricted grants already paid. */
export interface PayableInvoice {
  invoiceId: number;
  openMinor: number;
  lines: readonly { metricCode: string | null; amountIncMinor: number }[];
  /** Net of what grants restricted to some metrics already paid on it: their lines are paid that much. */
  restrictedPaidMinor: number;
}

export interface PlannedSpend {
  grantId: number;
  invoiceId: number;
  amountMinor: number;
}

/**
 * Each invoice, in the order given, drawn from the grants in consumption order until it is paid or they run out. A
 * grant restricted to some metrics pays only what those lines make (with their tax) less what restricted grants
 * already paid on the invoice: two restricted grants never pay the same line twice.
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
      const room =
        grant.metricCodes === null ? open : restrictedRoom(invoice, grant.metricCodes, restrictedPaid);
      const amountMinor = Math.min(open, grant.left, room);
      if (amountMinor <= 0) continue;
      planned.push({ grantId: grant.id, invoiceId: invoice.invoiceId, amountMinor });
      grant.left -= amountMinor;
      open -= amountMinor;
      if (grant.metricCodes !== null) restrictedPaid += amountMinor;
    }
  }
  return planned;
}

/**
 * What the invoice's lines of these metrics are worth, less what restricted grants paid on them. The invoice's lines
 * below zero (a coupon's discount, a usage correction) name no metric: they lower every line in proportion, rounded
 * down, so a restricted grant never pays for what its metrics were discounted of (docs/credits.md, "Consumption
 * order").
 */
function restrictedRoom(invoice: PayableInvoice, metricCodes: readonly string[], paidMinor: number): number {
  const lines = invoice.lines
    .filter((line) => line.metricCode !== null && metricCodes.includes(line.metricCode))
    .reduce((sum, line) => sum + line.amountIncMinor, 0);
  const above = invoice.lines.reduce((sum, line) => sum + Math.max(0, line.amountIncMinor), 0);
  const all = invoice.lines.reduce((sum, line) => sum + line.amountIncMinor, 0);
  const worth = all >= above ? lines : Number((BigInt(lines) * BigInt(Math.max(0, all))) / BigInt(above));
  return Math.max(0, worth - paidMinor);
}
