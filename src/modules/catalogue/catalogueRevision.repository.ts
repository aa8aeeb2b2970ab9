import type { Db } from '../../storage/database.ts';

/**
 * The account's catalogue revision: every write to its packages or components (their versions, rates, terms,
 * currencies and brackets) moves it on in the write's own transaction, so a reader that finds the same revision
 * before and after reading a page knows the page was read whole from one state of the catalogue
 * (docs/architecture.md, "Catalogue pages kept in the process").
 */
export async function catalogueChanged(db: Db, accountId: number): Promise<void> {
  await db
    .updateTable('accounts')
    .set((eb) => ({ catalogue_revision: eb('catalogue_revision', '+', 1) }))
    .where('id', '=', accountId)
    .execute();
}

export async function readCatalogueRevision(db: Db, accountId: number): Promise<number> {
  const row = await db
    .selectFrom('accounts')
    .select('catalogue_revision')
    .where('id', '=', accountId)
    .executeTakeFirstOrThrow();
  return Number(row.catalogue_revision);
}
