/**
 * Thrown when a record breaks an invariant; the bill run parks the subscription or recurring invoice with this
 * message instead of billing it wrongly (docs/architecture.md, "Module order": both planners throw it, so it sits
 * with the lower of them).
 */
export class BillingInvariantError extends Error {}
