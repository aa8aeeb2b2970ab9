import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { ok } from '../helpers/billing.ts';
import { customerWithLogin, hiddenFieldsOf, signedIn, t, usePortalService } from './fixtures.ts';

// docs/portal.md, "Sign-in, sessions and passwords": a signed-in contact's counted actions (password checks, e-mail
// changes, plan changes, credit bought) hold their caps under parallel requests. PostgreSQL only: there a row takes
// its id before it commits, and a count made beside another request's insert not yet committed missed it, so a cap
// could be passed by one; SQLite's transactions take turns on the database's write lock.

usePortalService();

describe('counted portal actions at once', () => {
  it('counts a purchase another request counted but has not committed yet: the eleventh of a day is refused', async () => {
    const login = await customerWithLogin();
    const wallet = await ok(t, 'POST', `/v1/customers/${login.customerId}/wallets`, { CurrencyCode: 'USD' });
    const client = await signedIn(login);
    const page = `${client.base}credit/${wallet.walletID}`;
    const buy = async () => {
      const form = hiddenFieldsOf((await client.get(page)).text, `${page}/buy`);
      return client.post(`${page}/buy`, { ...form, amount: '5' });
    };
    for (let n = 1; n <= 9; n++) expect((await buy()).status, `purchase ${n}`).toBe(303);

    // The tenth purchase of another request, counted in its transaction under the contact's turn and not yet
    // committed (portal.repository.ts, lockContactActions), while this one is sent.
    const db = t.service.storage.db;
    const session = await db
      .selectFrom('portal_contact_actions')
      .select(['session_id', 'acted_at'])
      .where('contact_id', '=', login.contactId)
      .executeTakeFirstOrThrow();
    let sent: ReturnType<typeof buy> | undefined;
    await db.transaction().execute(async (trx) => {
      const key = `${t.accountId}:${login.contactId}`;
      await sql`select pg_advisory_xact_lock(hashtext('portal_contact_actions'), hashtext(${key}))`.execute(
        trx,
      );
      await trx
        .insertInto('portal_contact_actions')
        .values({
          account_id: t.accountId,
          contact_id: login.contactId,
          session_id: session.session_id,
          action: 'top_up',
          acted_at: session.acted_at,
        })
        .execute();
      let answered = false;
      sent = buy().finally(() => (answered = true));
      // Committed once this request waits for its turn, or once it has answered without waiting.
      await waitingForTurn(() => answered);
    });
    const eleventh = await sent!;
    expect(eleventh.status, eleventh.text).toBe(429);
    expect(eleventh.text).toContain('at most 10 times a day');
  });
});

/** Resolves once a session of this database waits for the contact's turn, or `gaveUp` says to stop looking. */
async function waitingForTurn(gaveUp: () => boolean): Promise<void> {
  while (!gaveUp()) {
    const { rows } = await sql<{ n: number }>`
      select count(*)::int as n from pg_locks l join pg_stat_activity a on a.pid = l.pid
      where not l.granted and l.locktype = 'advisory' and a.datname = current_database()
        and a.query like '%portal_contact_actions%'`.execute(t.service.storage.db);
    if (rows[0]!.n > 0) return;
    await new Promise((resolve) => setImmediate(resolve));
  }
}
