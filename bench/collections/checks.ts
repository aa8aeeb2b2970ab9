/** The collection benchmark's check of what the collection did, before any figure is printed. */
import type { Db } from '../../src/storage/database.ts';
import { problemList } from '../common.ts';
import type { Counted } from './child.ts';
import { FLOOR_KEY_PREFIX } from './child.ts';
import { COLLECT_AT, DECLINE_REASON, NEXT_TRY_AT } from './population.ts';
import type { Seeded } from './population.ts';

/** Problems beyond this many are counted, not listed. */
const LISTED = 20;

/** The events the collection emitted (its business time is COLLECT_AT; the seeding's is earlier), by type. */
export async function collectionEvents(db: Db, accountId: number): Promise<Record<string, number>> {
  const rows = await db
    .selectFrom('events')
    .select((eb) => ['type', eb.fn.countAll<number | string>().as('n')])
    .where('account_id', '=', accountId)
    .where('occurred_at', '=', COLLECT_AT)
    .groupBy('type')
    .orderBy('type')
    .execute();
  return Object.fromEntries(rows.map((row) => [row.type, Number(row.n)]));
}

/**
 * Every invoice charged once (one test-gateway charge, key `inv_<id>_try_1`, of the invoice's total, declined
 * exactly when its card declines) and recorded once (one attempt, one payment): the approved ones Paid by a settled
 * credit_card payment allocated to them in full, NumTries 1 and no next try; the declined ones with a Failed payment
 * (insufficient_funds, nothing allocated), NumTries 1 and their next try tomorrow.
 */
export async function verify(
  db: Db,
  seeded: Seeded,
  counted: Counted,
  events: Record<string, number>,
): Promise<void> {
  const { problem, expect, failIfAny } = problemList(LISTED);
  const n = seeded.invoices.length;
  const declining = seeded.declining;
  expect('summary.attempts', counted.attempts, n);
  expect('summary.succeeded', counted.succeeded, n - declining);
  expect('summary.declined', counted.declined, declining);
  expect('summary.errors', counted.errors, 0);
  expect('summary.unanswered', counted.unanswered, 0);
  expect('payment.created events', events['payment.created'] ?? 0, n);
  expect('invoice.paid events', events['invoice.paid'] ?? 0, n - declining);

  const accountId = seeded.accountId;
  const charges = await db
    .selectFrom('test_gateway_charges')
    .select(['idempotency_key', 'charge_id', 'amount_minor', 'outcome', 'reason'])
    .where('gateway_id', '=', seeded.gatewayId)
    .where('idempotency_key', 'not like', `${FLOOR_KEY_PREFIX}%`)
    .execute();
  const invoices = await db
    .selectFrom('invoices')
    .select(['id', 'total_minor', 'paid_actual_minor', 'paid_pending_minor', 'num_tries', 'next_try_date'])
    .where('account_id', '=', accountId)
    .execute();
  const payments = await db
    .selectFrom('payments')
    .select([
      'id',
      'customer_id',
      'amount_minor',
      'allocated_minor',
      'method',
      'state',
      'ref',
      'failure_reason',
    ])
    .where('account_id', '=', accountId)
    .execute();
  const allocations = await db
    .selectFrom('allocations')
    .select(['source_type', 'source_id', 'target_type', 'target_id', 'amount_minor'])
    .where('account_id', '=', accountId)
    .execute();
  const attempts = await db
    .selectFrom('collection_attempts')
    .select(['invoice_id', 'attempt_no', 'state', 'payment_id', 'finished_at'])
    .where('account_id', '=', accountId)
    .execute();
  const vault = await db
    .selectFrom('test_gateway_vault')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('gateway_id', '=', seeded.gatewayId)
    .executeTakeFirstOrThrow();
  const calls = await db
    .selectFrom('gateway_calls')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('account_id', '=', accountId)
    .where('operation', '=', 'charge')
    .where('idempotency_key', 'not like', `${FLOOR_KEY_PREFIX}%`)
    .executeTakeFirstOrThrow();

  expect("cards in the test gateway's vault", Number(vault.n), n);
  expect('test-gateway charges', charges.length, n);
  expect('collection attempts', attempts.length, n);
  expect('payments', payments.length, n);
  expect('allocations', allocations.length, n - declining);
  expect('charge calls recorded (gateway_calls)', Number(calls.n), n);

  const chargeByKey = new Map(charges.map((charge) => [charge.idempotency_key, charge]));
  const invoiceById = new Map(invoices.map((invoice) => [invoice.id, invoice]));
  const paymentsByCustomer = new Map<number, (typeof payments)[number][]>();
  for (const payment of payments) {
    paymentsByCustomer.set(payment.customer_id, [
      ...(paymentsByCustomer.get(payment.customer_id) ?? []),
      payment,
    ]);
  }
  const allocationsByInvoice = new Map<number, (typeof allocations)[number][]>();
  for (const allocation of allocations) {
    if (allocation.target_type !== 'invoice') continue;
    allocationsByInvoice.set(allocation.target_id, [
      ...(allocationsByInvoice.get(allocation.target_id) ?? []),
      allocation,
    ]);
  }
  const attemptsByInvoice = new Map<number, (typeof attempts)[number][]>();
  for (const attempt of attempts) {
    attemptsByInvoice.set(attempt.invoice_id, [
      ...(attemptsByInvoice.get(attempt.invoice_id) ?? []),
      attempt,
    ]);
  }

  for (const seededInvoice of seeded.invoices) {
    const id = seededInvoice.id;
    const at = `invoice ${id}`;
    const invoice = invoiceById.get(id);
    if (!invoice) {
      problem(`${at}: missing`);
      continue;
    }
    expect(`${at} total`, invoice.total_minor, seededInvoice.totalMinor);
    const charge = chargeByKey.get(`inv_${id}_try_1`);
    if (!charge) problem(`${at}: no test-gateway charge with key inv_${id}_try_1`);
    else {
      expect(`${at} charge amount`, charge.amount_minor, invoice.total_minor);
      expect(`${at} charge outcome`, charge.outcome, seededInvoice.declines ? 'declined' : 'succeeded');
    }
    const invoiceAttempts = attemptsByInvoice.get(id) ?? [];
    expect(`${at} attempts`, invoiceAttempts.length, 1);
    const attempt = invoiceAttempts[0];
    if (attempt) {
      expect(`${at} attempt state`, attempt.state, seededInvoice.declines ? 'declined' : 'succeeded');
      if (attempt.payment_id === null || attempt.finished_at === null)
        problem(`${at}: attempt left unfinished`);
    }
    expect(`${at} NumTries`, invoice.num_tries, 1);
    expect(`${at} pending paid`, invoice.paid_pending_minor, 0);
    const customerPayments = paymentsByCustomer.get(seededInvoice.customerId) ?? [];
    expect(`${at} payments of its customer`, customerPayments.length, 1);
    const payment = customerPayments[0];
    const invoiceAllocations = allocationsByInvoice.get(id) ?? [];
    if (seededInvoice.declines) {
      expect(`${at} paid`, invoice.paid_actual_minor, 0);
      expect(`${at} NextTryDate`, invoice.next_try_date, NEXT_TRY_AT);
      expect(`${at} allocations`, invoiceAllocations.length, 0);
      if (payment) {
        expect(`${at} payment state`, payment.state, 'failed');
        expect(`${at} payment FailureReason`, payment.failure_reason, DECLINE_REASON);
        expect(`${at} payment allocated`, payment.allocated_minor, 0);
        expect(`${at} payment amount`, payment.amount_minor, invoice.total_minor);
      }
    } else {
      expect(`${at} paid (Paid: all of its total)`, invoice.paid_actual_minor, invoice.total_minor);
      expect(`${at} NextTryDate`, invoice.next_try_date, null);
      expect(`${at} allocations`, invoiceAllocations.length, 1);
      if (payment) {
        expect(`${at} payment state`, payment.state, 'settled');
        expect(`${at} payment method`, payment.method, 'credit_card');
        expect(`${at} payment amount`, payment.amount_minor, invoice.total_minor);
        expect(`${at} payment allocated`, payment.allocated_minor, invoice.total_minor);
        expect(`${at} payment Ref`, payment.ref, charge?.charge_id);
        const allocation = invoiceAllocations[0];
        if (allocation) {
          expect(
            `${at} allocation source`,
            `${allocation.source_type} ${allocation.source_id}`,
            `payment ${payment.id}`,
          );
          expect(`${at} allocation amount`, allocation.amount_minor, invoice.total_minor);
        }
      }
    }
  }
  await verifyEventObjects(db, seeded, invoiceById, { problem, expect });
  failIfAny('the collection collected wrong');
}

interface EventPayload {
  data: { object: Record<string, unknown>; previous?: Record<string, unknown> };
}

/**
 * What the collection's events say, beside their number: each invoice told once, with the invoice as it stands
 * after its record (an approved one Paid with no Balance, a declined one with its try counted and its next one
 * tomorrow, `previous` its NumTries before), and each payment as stored. Events are rendered once for many records
 * together, after all of their changes: a rendering taken from another invoice's record, or before its own, shows
 * here.
 */
async function verifyEventObjects(
  db: Db,
  seeded: Seeded,
  invoiceById: ReadonlyMap<number, unknown>,
  { problem, expect }: Pick<ReturnType<typeof problemList>, 'problem' | 'expect'>,
): Promise<void> {
  const rows = await db
    .selectFrom('events')
    .select(['type', 'resource_type', 'resource_id', 'payload'])
    .where('account_id', '=', seeded.accountId)
    .where('occurred_at', '=', COLLECT_AT)
    .execute();
  const invoiceEvents = new Map<number, { type: string; payload: EventPayload }[]>();
  const paymentObjects = new Map<number, Record<string, unknown>>();
  for (const row of rows) {
    const payload = (typeof row.payload === 'string' ? JSON.parse(row.payload) : row.payload) as EventPayload;
    if (row.resource_type === 'invoice') {
      const id = Number(row.resource_id);
      invoiceEvents.set(id, [...(invoiceEvents.get(id) ?? []), { type: row.type, payload }]);
    } else if (row.type === 'payment.created')
      paymentObjects.set(Number(row.resource_id), payload.data.object);
  }
  for (const seededInvoice of seeded.invoices) {
    const at = `invoice ${seededInvoice.id} event`;
    // A paid invoice tells its payment twice, as Stripe does: invoice.paid for its state and
    // invoice.payment_succeeded for the collection (docs/webhooks.md, "Collection notices").
    const events = invoiceEvents.get(seededInvoice.id) ?? [];
    const told = events.map((e) => e.type).sort();
    const expected = seededInvoice.declines
      ? ['invoice.payment_failed']
      : ['invoice.paid', 'invoice.payment_succeeded'];
    expect(`${at}s`, told.join(' '), expected.join(' '));
    const event = events.find((e) => e.type === expected[0]);
    if (!event) continue;
    const { object, previous } = event.payload.data;
    expect(`${at} invoiceID`, object['invoiceID'], seededInvoice.id);
    expect(`${at} NumTries`, object['NumTries'], 1);
    if (seededInvoice.declines) {
      expect(`${at} type`, event.type, 'invoice.payment_failed');
      expect(`${at} NextTryDate`, object['NextTryDate'], NEXT_TRY_AT);
      expect(`${at} previous NumTries`, previous?.['NumTries'], 0);
      expect(`${at} TotalActualPaid`, object['TotalActualPaid'], 0);
    } else {
      expect(`${at} type`, event.type, 'invoice.paid');
      expect(`${at} Status`, object['Status'], 'Paid');
      expect(`${at} Balance`, object['Balance'], 0);
      expect(`${at} NextTryDate`, object['NextTryDate'], null);
      if (object['Total'] !== object['TotalActualPaid'])
        problem(
          `${at}: TotalActualPaid ${String(object['TotalActualPaid'])}, Total ${String(object['Total'])}`,
        );
    }
  }
  for (const [paymentId, object] of paymentObjects) {
    const at = `payment ${paymentId} event`;
    expect(`${at} paymentID`, object['paymentID'], paymentId);
    const allocations = (object['Allocations'] ?? []) as { invoiceID: number; amountApplied: number }[];
    const declined = object['FailureReason'] !== null;
    expect(`${at} allocations`, allocations.length, declined ? 0 : 1);
    const allocation = allocations[0];
    if (allocation) {
      expect(`${at} amountApplied`, allocation.amountApplied, object['Amount']);
      if (!invoiceById.has(allocation.invoiceID))
        problem(`${at}: allocated to unknown invoice ${allocation.invoiceID}`);
    }
  }
}
