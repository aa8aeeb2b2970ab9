import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { withLockedCustomer } from '../../src/modules/ledger/index.ts';
import type { Db } from '../../src/storage/database.ts';
import { ok } from '../helpers/billing.ts';
import { accountContext } from '../helpers/context.ts';
import { useTestService } from '../helpers/testService.ts';
import { expectJournalBalances } from './credits.fixtures.ts';
import { cardPaidTopUp } from './topUpCardFixture.ts';

// docs/credits.md, "Refunding unused credit": a refund that finds too little credit under the customer's lock, spent
// between its first look and the lock, is a 409 `top_up_credit_spent`. PostgreSQL only: there a request reads beside
// another's open transaction, so the test can hold the customer's lock while the refund looks and then waits. On
// SQLite one connection carries every statement, and a held transaction holds the refund's first look too.
const t = useTestService();

/** Waits until `count` sessions wait, directly or behind one another, on locks the session `holder` holds. */
async function waitingBehind(db: Db, holder: number, count: number): Promise<void> {
  for (;;) {
    const { rows } = await sql<{ n: number }>`
      with recursive waiting(pid) as (
        select pid from pg_stat_activity where ${holder}::int = any(pg_blocking_pids(pid))
        union
        select a.pid from pg_stat_activity a join waiting w on w.pid = any(pg_blocking_pids(a.pid))
      )
      select count(*)::int as n from waiting`.execute(db);
    if (rows[0]!.n >= count) return;
    await new Promise((resolve) => setImmediate(resolve));
  }
}

describe('POST /v1/credit-grants/{id}/refund, credit spent while it waits for the lock', () => {
  it('answers 409 top_up_credit_spent, and nothing goes back', async () => {
    // PostgreSQL does not promise which of two requests queued on one lock goes first when it is given up: a try
    // where the refund went first stages no race (it refunds all, the invoice takes none), and is staged again.
    for (let attempt = 1; ; attempt += 1) {
      const staged = await stageRace(`Refund finding too little ${attempt}`);
      const refundWentFirst = staged.refused.status === 200 && staged.grant.Consumed === 0;
      if (refundWentFirst && attempt < 5) continue;
      const { refused, grant, as, paymentId, walletId } = staged;
      expect(refused.status, refused.text).toBe(409);
      expect(refused.body as object).toMatchObject({ code: 'top_up_credit_spent' });
      expect((refused.body as { detail: string }).detail).toContain('holds only 70.00');
      expect(grant).toMatchObject({ Remaining: 70, Consumed: 30, Refunded: 0 });
      expect(await ok(as, 'GET', `/v1/payments/${paymentId}`)).toMatchObject({ Status: 'Allocated' });
      await expectJournalBalances(as, walletId);
      return;
    }
  });
});

/**
 * A top-up of 100.00 paid by card, then, with the customer's lock held: issuing a draft that consumes 30.00 of
 * credit waits for it first (its first step), then the refund of all 100.00, which has seen the grant hold 100.00.
 * What the refund answered and the grant once both are done.
 */
async function stageRace(name: string) {
  const { as, customerId, walletId, grantId, paymentId } = await cardPaidTopUp(t, name, { amount: 100 });
  const ctx = await accountContext(t, as.accountId);
  const draft = await ok(as, 'POST', '/v1/invoices', {
    customerID: customerId,
    isDraft: true,
    Charges: [{ Descrip: 'Work', Qty: 1, UnitCostEx: 30 }],
  });
  let sale: ReturnType<typeof as.request> | undefined;
  let refund: ReturnType<typeof as.request> | undefined;
  await withLockedCustomer(ctx, customerId, async (locked) => {
    const { rows } = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(locked.db);
    const holder = rows[0]!.pid;
    sale = as.request('PUT', `/v1/invoices/${draft.invoiceID}/finalize`);
    await waitingBehind(t.service.storage.db, holder, 1);
    refund = as.request('POST', `/v1/credit-grants/${grantId}/refund`, { body: { Amount: 100 } });
    await waitingBehind(t.service.storage.db, holder, 2);
  });
  const issued = await sale!;
  expect(issued.status, issued.text).toBeLessThan(300);
  const refused = await refund!;
  const grant = await ok(as, 'GET', `/v1/credit-grants/${grantId}`);
  return { as, walletId, paymentId, refused, grant };
}
