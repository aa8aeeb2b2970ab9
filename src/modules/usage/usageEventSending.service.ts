import type { ServiceContext } from '../../context.ts';
import { nowInstant } from '../../context.ts';
import { customerIdsByReferences } from '../customers/index.ts';
import { recordUsageEvents } from './usageEvent.service.ts';
import type { SubscriptionOwners } from './usageEvent.service.ts';
import { storageCapOf } from './usageStorage.service.ts';
import type { UsageEventInput, UsageEventOutcome } from './usageEvent.ts';

/** An event as sent through the API, before its customer is found (docs/usage.md, "Sending events"). */
export interface SentUsageEvent {
  transactionId: string;
  /** Ambiguous when both were sent, missing when neither. */
  customer: { id: number } | { reference: string } | 'ambiguous' | undefined;
  subscriptionId: number | null;
  code: string;
  timestamp: string | undefined;
  properties: Readonly<Record<string, unknown>>;
}

type Refusal = Extract<UsageEventOutcome, { status: 'refused' }>;

/**
 * Records events sent through the API (each customer found by id or Reference, the timestamp defaulted to now),
 * several calls' events of one account together, in the transaction of `ctx.db` (or one of their own), as
 * if each call had come after the one before it: an event whose transaction_id an earlier call sent is its
 * duplicate. `owners`: the subscriptions the events name, with their customers (SubscriptionOwners). Each call's
 * outcomes, one per event, in order.
 */
export async function sendUsageEventCalls(
  ctx: ServiceContext,
  calls: readonly (readonly SentUsageEvent[])[],
  owners: SubscriptionOwners,
): Promise<UsageEventOutcome[][]> {
  const references = calls
    .flat()
    .flatMap((e) =>
      typeof e.customer === 'object' && 'reference' in e.customer ? [e.customer.reference] : [],
    );
  const byReference = await customerIdsByReferences(ctx.db, ctx.account.id, references);
  const now = nowInstant(ctx);
  const resolved = calls.map((sent) => sent.map((event) => resolve(event, byReference, now)));
  const valid = resolved.flat().filter((r): r is UsageEventInput => !('status' in r));
  const recorded = await recordUsageEvents(
    ctx.db,
    ctx.account,
    now,
    valid,
    owners,
    storageCapOf(ctx),
    ctx.memory,
  );
  let next = 0;
  return resolved.map((call) => call.map((r) => ('status' in r ? r : recorded[next++]!)));
}

function resolve(
  event: SentUsageEvent,
  byReference: Map<string, number>,
  now: string,
): UsageEventInput | Refusal {
  const refuse = (field: string, detail: string): Refusal => ({ status: 'refused', field, detail });
  if (event.customer === undefined)
    return refuse('customerID', 'customerID or CustomerReference is required');
  if (event.customer === 'ambiguous')
    return refuse('customerID', 'give customerID or CustomerReference, not both');
  let customerId: number;
  if ('reference' in event.customer) {
    const found = byReference.get(event.customer.reference);
    if (found === undefined)
      return refuse('CustomerReference', 'no customer of this account has this Reference');
    customerId = found;
  } else {
    customerId = event.customer.id;
  }
  return {
    transactionId: event.transactionId,
    customerId,
    subscriptionId: event.subscriptionId,
    code: event.code,
    timestamp: event.timestamp ?? now,
    properties: event.properties,
  };
}
