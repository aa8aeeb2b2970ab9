/**
 * The bill-run benchmark's floor: the rows the run wrote, written again with plain multi-row inserts into a copy of
 * the seeded database.
 */
import { SUBSCRIPTIONS_PER_TRANSACTION } from '../../src/billing/billRun.ts';
import { isPostgres } from '../../src/storage/columns.ts';
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
 * subscriptions' and usage rows' new values (multi-row upserts on the id), the invoice counter, and the events of
 * those subscriptions and invoices with their once-keys and resource versions (those of the time-driven events
 * included, which the run writes after the stretches), in one transaction. Only the writes are timed.
 */
/**
 * The run's events of these subscriptions and invoices: read through the index on their resource, those written
 * after the seeding kept (event ids sort in the order written). NOTE: with the id's range in the query, SQLite
 * would walk every event of the account by id instead.
 */
async function eventsOf(source: Db, seeded: Seeded, subscriptionIds: number[], invoiceIds: number[]) {
  const events: Row[] = [];
  for (const [type, ids] of [
    ['subscription', subscriptionIds],
    ['invoice', invoiceIds],
  ] as const) {
    if (ids.length === 0) continue;
    const rows = (await loose(source)
      .selectFrom('events')
      .selectAll()
      .where('account_id', '=', seeded.accountId)
      .where('resource_type', '=', type)
      .where('resource_id', 'in', ids.map(String))
      .execute()) as Row[];
    events.push(...rows.filter((e) => String(e.id) > seeded.before.eventId));
  }
  return events.sort((a, b) => (String(a.id) < String(b.id) ? -1 : 1));
}

/** The once-keys the run claimed, by the event that claimed each (read once: they have no index by event). */
async function onceKeysByEvent(source: Db, seeded: Seeded): Promise<Map<string, Row>> {
  const rows = (await loose(source)
    .selectFrom('events_emitted_once')
    .selectAll()
    .where('account_id', '=', seeded.accountId)
    .where('event_id', '>', seeded.before.eventId)
    .execute()) as Row[];
  return new Map(rows.map((row) => [String(row.event_id), row]));
}

/** The resource versions of these subscriptions and invoices, as the run left them. */
async function versionsOf(source: Db, accountId: number, subscriptionIds: number[], invoiceIds: number[]) {
  const versions: Row[] = [];
  for (const [type, ids] of [
    ['subscription', subscriptionIds],
    ['invoice', invoiceIds],
  ] as const) {
    if (ids.length === 0) continue;
    versions.push(
      ...((await loose(source)
        .selectFrom('resource_versions')
        .selectAll()
        .where('account_id', '=', accountId)
        .where('resource_type', '=', type)
        .where('resource_id', 'in', ids.map(String))
        .execute()) as Row[]),
    );
  }
  return versions;
}

/** A row's key: PostgreSQL's names the account (migration 0079), SQLite's is the rowid alone. */
const primaryKey = (db: Db): string[] => (isPostgres(db) ? ['id', 'account_id'] : ['id']);

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
            .columns(primaryKey(db))
            .doUpdateSet((eb) => Object.fromEntries(columns.map((c) => [c, eb.ref(`excluded.${c}`)]))),
        )
        .execute();
    }
  };
  const claimed = await onceKeysByEvent(source, seeded);
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
    const events = await eventsOf(source, seeded, ids, invoiceIds);
    const eventIds = events.map((e) => String(e.id));
    const onceKeys = eventIds.flatMap((id): Row[] => {
      const row = claimed.get(id);
      return row ? [row] : [];
    });
    const versions = await versionsOf(source, accountId, ids, invoiceIds);
    const subscriptionColumns = Object.keys(subscriptions[0]!).filter((c) => c !== 'id');
    const started = performance.now();
    await target.transaction().execute(async (trx) => {
      if (invoices.length > 0) {
        await trx
          .insertInto('invoice_numbers')
          .values({ account_id: accountId, last_num: invoices.length })
          .onConflict((oc) => oc.column('account_id').doUpdateSet({ last_num: invoices.length }))
          .execute();
      }
      await insertRows(trx, 'invoices', invoices);
      await insertRows(trx, 'invoice_charges', charges);
      await insertRows(trx, 'invoice_taxes', taxes);
      await upsert(trx, 'subscription_usage', usage, ['invoice_id']);
      await insertRows(trx, 'subscription_periods', periods);
      await upsert(trx, 'subscriptions', subscriptions, subscriptionColumns);
      await insertRows(trx, 'mail_outbox', mails);
      await insertRows(trx, 'events', events);
      await insertRows(trx, 'events_emitted_once', onceKeys);
      for (let at = 0; at < versions.length; at += rowsPerStatement(versions[0])) {
        await loose(trx)
          .insertInto('resource_versions')
          .values(versions.slice(at, at + rowsPerStatement(versions[0])))
          .onConflict((oc) =>
            oc
              .columns(['account_id', 'resource_type', 'resource_id'])
              .doUpdateSet((eb) => ({ version: eb.ref('excluded.version') })),
          )
          .execute();
      }
    });
    seconds += (performance.now() - started) / 1000;
    rows += invoices.length + charges.length + taxes.length + usage.length + periods.length;
    rows += subscriptions.length + mails.length + events.length + onceKeys.length + versions.length;
  }
  const check = await countOf(target, 'invoices', accountId);
  if (check !== seeded.expectedInvoices) {
    throw new BenchError(`the floor wrote ${check} invoices; expected ${seeded.expectedInvoices}`);
  }
  return { rows, seconds };
}
