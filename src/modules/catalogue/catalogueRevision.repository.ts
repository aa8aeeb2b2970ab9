import type { Db } from '../../storage/database.ts';

/**
 * The account's catalogue revision: every write to its packages or components (their versions, rates, terms,
 * currencies and brackets) moves it on in the write's own transaction, so a reader that finds the same revision
 * before and after reading a page knows the page was read whole from one state of the catalogue
 * (docs/architecture.md, "Catalogue pages kept in the process").
 */
export async function catalogueChanged(db: Db, accountId: number): Promise<void> {
  await db
    .insertInto('catalogue_revisions')
    .values({ account_id: accountId, revision: 1 })
    .onConflict((oc) =>
      oc.column('account_id').doUpdateSet((eb) => ({ revision: eb('catalogue_revisions.revision', '+', 1) })),
    )
    .execute();
}

/** The account's revision; an account whose catalogue was never written has no row, and is at revision 0. */
export async function readCatalogueRevision(db: Db, accountId: number): Promise<number> {
  const row = await db
    .selectFrom('catalogue_revisions')
    .select('revision')
    .where('account_id', '=', accountId)
    .executeTakeFirst();
  return Number(row?.revision ?? 0);
}
