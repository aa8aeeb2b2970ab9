import type { Db } from '../../storage/database.ts';
import { preparedQuery } from '../../storage/prepared.ts';
import type { Insertable } from 'kysely';
import { newPaymentToRow } from './payment.mapper.ts';
import type { NewPayment } from './payment.ts';
import type { PaymentsTable } from './tables.ts';

/**
 * The payments of a batch of collected payments (collectedPayments.service.ts; their allocations are the
 * engine's, insertAllocations): one statement, compiled once per number of rows (a collection batch has at most 25), since building them anew for every batch costs as
 * much as running them (docs/benchmarks.md, "Collections").
 */

const insertedPayments = preparedQuery((db, rows: Insertable<PaymentsTable>[]) =>
  db.insertInto('payments').values(rows).returning(['id', 'customer_id', 'ref']),
);

/**
 * Inserts the payments with one statement and returns their ids in the rows' order. NOTE: RETURNING does not
 * promise the rows' order on either dialect, but both assign identity values to a VALUES list in its order, so the
 * ids sorted ascending are the rows' ids in order (as insertInvoiceRows in invoicing); each row's customer and
 * charge id check that pairing, and a mismatch throws (and rolls the transaction back) rather than misfile money.
 */
export async function insertPayments(db: Db, payments: readonly NewPayment[]): Promise<number[]> {
  if (payments.length === 0) return [];
  const inserted = (await insertedPayments(db, payments.map(newPaymentToRow))).sort((a, b) => a.id - b.id);
  return inserted.map((row, i) => {
    const sent = payments[i]!;
    if (row.customer_id !== sent.customerId || (row.ref ?? null) !== (sent.ref ?? null)) {
      throw new Error('inserted payments came back out of order');
    }
    return row.id;
  });
}
