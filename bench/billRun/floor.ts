/**
 * The bill-run benchmark's floor: the rows the run wrote, written again with plain multi-row inserts into a copy of
 * the seeded database.
 */
import { SUBSCRIPTIONS_PER_TRANSACTION } from '../../src/billing/billRun.ts';
import type { Db } from '../../src/storage/database.ts';
import { BenchError } from '../common.ts';
import type { Seeded } from './population.ts';
import { countOf, insertRows, loose, rowsPerStatement } from './rows.ts';
import type { Row } from './rows.ts';

export interface Floor {
  rows: number;
  seconds: number;
}

/**
 * For each stretch of SUBSCRIPTIONS_PER_TRANSACTION subscriptions (in id order, as the run takes them): the
 * invoices, their lines and taxes, the new periods, the queued e-mails (inserted with their ids), the
 * subscriptions' and usage rows' new values (multi-row upserts on the id) and the invoice counter, in one
 * transaction. Only the writes are timed.
 */
export async function measureFloor(source: Db, target: Db, seeded: Seeded): Promise<Floor> {
  const accountId = seeded.accountId;
  let rows = 0;
  let seconds = 0;
  let afterId = 0;
  const upsert = async (db: Db, table: string, list: Row[], columns: string[]) => {
    const size = rowsPerStatement(list[0]);
    for (let at = 0; at < list.length; at += size) {
      await loose(db)
        .insertInto(table)
        .values(list.slice(at, at + size))
        .onConflict((oc) =>
          oc
            .column('id')
            .doUpdateSet((eb) => Object.fromEntries(columns.map((c) => [c, eb.ref(`excluded.${c}`)]))),
        )
        .execute();
    }
  };
  for (;;) {
    const subscriptions = (await loose(source)
      .selectFrom('subscriptions')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('id', '>', afterId)
      .orderBy('id')
      .limit(SUBSCRIPTIONS_PER_TRANSACTION)
      .execute()) as Row[];
    if (subscriptions.length === 0) break;
    const ids = subscriptions.map((s) => Number(s.id));
    afterId = ids.at(-1)!;
    const invoices = (await loose(source)
      .selectFrom('invoices')
      .selectAll()
      .where('subscription_id', 'in', ids)
      .orderBy('id')
      .execute()) as Row[];
    const invoiceIds = invoices.map((i) => Number(i.id));
    const byInvoice = (table: string) =>
      invoiceIds.length === 0
        ? Promise.resolve([] as Row[])
        : (loose(source)
            .selectFrom(table)
            .selectAll()
            .where('invoice_id', 'in', invoiceIds)
            .orderBy('id')
            .execute() as Promise<Row[]>);
    const charges = await byInvoice('invoice_charges');
    const taxes = await byInvoice('invoice_taxes');
    const usage = await byInvoice('subscription_usage');
    const periods = (await loose(source)
      .selectFrom('subscription_periods')
      .selectAll()
      .where('subscription_id', 'in', ids)
      .where('id', '>', seeded.before.periodId)
      .orderBy('id')
      .execute()) as Row[];
    const mails =
      invoiceIds.length === 0
        ? []
        : ((await loose(source)
            .selectFrom('mail_outbox')
            .selectAll()
            .where('attachment_ref', 'in', invoiceIds.map(String))
            .where('id', '>', seeded.before.mailId)
            .orderBy('id')
            .execute()) as Row[]);
    const subscriptionColumns = Object.keys(subscriptions[0]!).filter((c) => c !== 'id');
    const started = performance.now();
    await target.transaction().execute(async (trx) => {
      if (invoices.length > 0) {
        await trx
          .updateTable('accounts')
          .set({ last_invoice_num: invoices.length })
          .where('id', '=', accountId)
          .execute();
      }
      await insertRows(trx, 'invoices', invoices);
      await insertRows(trx, 'invoice_charges', charges);
      await insertRows(trx, 'invoice_taxes', taxes);
      await upsert(trx, 'subscription_usage', usage, ['invoice_id']);
      await insertRows(trx, 'subscription_periods', periods);
      await upsert(trx, 'subscriptions', subscriptions, subscriptionColumns);
      await insertRows(trx, 'mail_outbox', mails);
    });
    seconds += (performance.now() - started) / 1000;
    rows += invoices.length + charges.length + taxes.length + usage.length + periods.length;
    rows += subscriptions.length + mails.length;
  }
  const check = await countOf(target, 'invoices', accountId);
  if (check !== seeded.expectedInvoices) {
    throw new BenchError(`the floor wrote ${check} invoices; expected ${seeded.expectedInvoices}`);
  }
  return { rows, seconds };
}
