import { describe, expect, it } from 'vitest';
import { ok } from '../helpers/billing.ts';
import {
  clock,
  expectJournalBalances,
  grant,
  grantOf,
  invoice,
  invoiceOf,
  journalOf,
  useCreditsService,
  walletOf,
} from './credits.fixtures.ts';

// docs/credits.md, "Consumption order": grants pay invoices as they are issued, after the customer's own money, by
// Priority, then the earliest expiry, then the oldest; never from an expired grant; a cancelled invoice gives its
// credit back, to an expired grant released and expired at once. Every figure by hand, in cents.
useCreditsService();

describe('credit consumed by issued invoices', () => {
  it('draws by priority, then the earliest expiry (none last), then the oldest', async () => {
    clock.set('2026-03-01T10:00:00.000Z');
    const { as, customerId, walletId } = await walletOf('Order shop');
    const a = await grant(as, walletId, { Amount: 10, Priority: 2 });
    const b = await grant(as, walletId, { Amount: 10, ExpiresAt: '2026-06-01' });
    const c = await grant(as, walletId, { Amount: 10, ExpiresAt: '2026-04-01' });
    const d = await grant(as, walletId, { Amount: 10 });
    const e = await grant(as, walletId, { Amount: 10 });
    expect(await ok(as, 'GET', `/v1/wallets/${walletId}`)).toMatchObject({
      Balance: 50,
      GrantedBalance: 50,
      PaidBalance: 0,
    });

    // 25.00: priority 1 first; among them c (1 Apr) then b (1 Jun) then d (no expiry, older than e).
    // c 10.00 + b 10.00 + d 5.00 = 25.00; a (priority 2) and e untouched.
    const issued = await invoice(as, customerId, 25);
    expect(await invoiceOf(as, issued.invoiceID)).toMatchObject({
      Status: 'Paid',
      Total: 25,
      TotalNegativeAdjs: 25,
      Balance: 0,
    });
    const remaining = async (g: any) => (await grantOf(as, g.creditGrantID)).Remaining;
    expect([
      await remaining(a),
      await remaining(b),
      await remaining(c),
      await remaining(d),
      await remaining(e),
    ]).toEqual([10, 0, 0, 5, 10]);
    expect((await grantOf(as, d.creditGrantID)).Invoices).toEqual([
      { invoiceID: issued.invoiceID, Amount: 5 },
    ]);
    expect((await ok(as, 'GET', `/v1/wallets/${walletId}`)).Balance).toBe(25);
    await expectJournalBalances(as, walletId);
  });

  it('never takes from an expired grant, before any job has written it off', async () => {
    clock.set('2026-03-01T10:00:00.000Z');
    const { as, customerId, walletId } = await walletOf('Expiry shop');
    const early = await grant(as, walletId, { Amount: 50, ExpiresAt: '2026-03-10' });
    const late = await grant(as, walletId, { Amount: 5, Priority: 50 });
    clock.set('2026-03-05T10:00:00.000Z');
    // 20.00 from the grant expiring on 10 March (priority 1): 30.00 left of it.
    const first = await invoice(as, customerId, 20);
    expect((await invoiceOf(as, first.invoiceID)).Balance).toBe(0);
    expect((await grantOf(as, early.creditGrantID)).Remaining).toBe(30);

    // 10 March 00:00 UTC has passed: its 30.00 may not pay; the other 5.00 pays 5.00 of 20.00, 15.00 left to owe.
    clock.set('2026-03-10T00:00:00.000Z');
    const second = await invoice(as, customerId, 20);
    expect(await invoiceOf(as, second.invoiceID)).toMatchObject({ Balance: 15, TotalNegativeAdjs: 5 });
    expect(await grantOf(as, early.creditGrantID)).toMatchObject({
      Status: 'expired',
      Remaining: 0,
      Consumed: 20,
    });
    expect(await grantOf(as, late.creditGrantID)).toMatchObject({
      Status: 'used',
      Remaining: 0,
      Consumed: 5,
    });
    expect((await ok(as, 'GET', `/v1/wallets/${walletId}`)).Balance).toBe(0);
  });

  it("keeps the customer's own unapplied money for the invoice and takes only the rest from grants", async () => {
    clock.set('2026-03-01T10:00:00.000Z');
    const { as, customerId, walletId } = await walletOf('Cash first shop');
    const g = await grant(as, walletId, { Amount: 100 });
    await ok(as, 'POST', '/v1/payments', {
      customerID: customerId,
      Amount: 8,
      CurrencyCode: 'USD',
      Date: '2026-03-01',
      Method: 'cash',
      allocations: [],
    });
    // 20.00 − 8.00 kept for the customer's own money = 12.00 from the grant; 8.00 open until credit first applies it.
    const issued = await invoice(as, customerId, 20);
    expect(await invoiceOf(as, issued.invoiceID)).toMatchObject({ Balance: 8, TotalNegativeAdjs: 12 });
    expect((await grantOf(as, g.creditGrantID)).Remaining).toBe(88);
  });

  it('gives credit back when the invoice is cancelled, the most recent first; to an expired grant released then expired', async () => {
    clock.set('2026-03-01T10:00:00.000Z');
    const { as, customerId, walletId } = await walletOf('Void shop');
    const g = await grant(as, walletId, { Amount: 10, ExpiresAt: '2026-03-10' });
    const h = await grant(as, walletId, { Amount: 10, Priority: 2 });
    clock.set('2026-03-05T10:00:00.000Z');
    // 15.00: g 10.00 (priority 1), then h 5.00.
    const issued = await invoice(as, customerId, 15);
    expect((await invoiceOf(as, issued.invoiceID)).Balance).toBe(0);

    clock.set('2026-03-12T10:00:00.000Z');
    await ok(as, 'DELETE', `/v1/invoices/${issued.invoiceID}`);
    expect(await invoiceOf(as, issued.invoiceID)).toMatchObject({
      Status: 'Cancelled',
      TotalNegativeAdjs: 0,
    });
    const gid = g.creditGrantID;
    const hid = h.creditGrantID;
    const id = issued.invoiceID;
    expect(await journalOf(as, walletId)).toEqual([
      [gid, 'grant', 10, null],
      [hid, 'grant', 10, null],
      [gid, 'consume', 10, id],
      [hid, 'consume', 5, id],
      // h's allocation is the more recent: given back first.
      [hid, 'release', 5, id],
      [gid, 'release', 10, id],
      [gid, 'expire', 10, id],
    ]);
    expect(await grantOf(as, hid)).toMatchObject({ Remaining: 10, Consumed: 0, Invoices: [] });
    expect(await grantOf(as, gid)).toMatchObject({
      Status: 'expired',
      Remaining: 0,
      Expired: 10,
      Consumed: 0,
    });
    expect((await ok(as, 'GET', `/v1/wallets/${walletId}`)).Balance).toBe(10);
    await expectJournalBalances(as, walletId);

    const types = ((await ok(as, 'GET', '/v1/events?page_size=200')) as any[]).map((e) => e.type);
    expect(types.filter((type) => type.startsWith('credit_grant.'))).toEqual(
      expect.arrayContaining(['credit_grant.released', 'credit_grant.expired', 'credit_grant.consumed']),
    );
  });

  it("lets a credit note for an invoice paid with credit take the credit's place", async () => {
    clock.set('2026-03-01T10:00:00.000Z');
    const { as, customerId, walletId } = await walletOf('Credit note shop');
    const g = await grant(as, walletId, { Amount: 30 });
    const issued = await invoice(as, customerId, 20);
    await ok(as, 'POST', '/v1/credits', {
      customerID: customerId,
      Amount: 8,
      CurrencyCode: 'USD',
      Date: '2026-03-01',
      allocations: [{ invoiceID: issued.invoiceID, amountApplied: 8 }],
    });
    // A webhook receiver hears of the invoice before the credit that paid it.
    const types = ((await ok(as, 'GET', '/v1/events?page_size=200')) as any[]).map((e) => e.type).reverse();
    const paying = types.filter((type) => /^invoice\.(created|paid)$|^credit_grant\.consumed$/.test(type));
    expect(paying.slice(0, 3)).toEqual(['invoice.created', 'credit_grant.consumed', 'invoice.paid']);
    // 20.00 paid by the grant; the credit note's 8.00 takes the place of 8.00 of it: 12.00 credit + 8.00 credit note.
    expect(await invoiceOf(as, issued.invoiceID)).toMatchObject({ TotalNegativeAdjs: 20, Balance: 0 });
    expect(await grantOf(as, g.creditGrantID)).toMatchObject({ Remaining: 18, Consumed: 12 });
    expect(await journalOf(as, walletId)).toEqual([
      [g.creditGrantID, 'grant', 30, null],
      [g.creditGrantID, 'consume', 20, issued.invoiceID],
      [g.creditGrantID, 'release', 8, issued.invoiceID],
    ]);
    await expectJournalBalances(as, walletId);
  });

  it('lets a credit note pay what credit left open on an invoice before it gives any credit back', async () => {
    clock.set('2026-03-01T10:00:00.000Z');
    const { as, customerId, walletId } = await walletOf('Part credit note shop');
    const g = await grant(as, walletId, { Amount: 12 });
    // 20.00: 12.00 from the grant, 8.00 open.
    const issued = await invoice(as, customerId, 20);
    expect((await invoiceOf(as, issued.invoiceID)).Balance).toBe(8);
    const creditNote = (amount: number) =>
      ok(as, 'POST', '/v1/credits', {
        customerID: customerId,
        Amount: amount,
        CurrencyCode: 'USD',
        Date: '2026-03-01',
        allocations: [{ invoiceID: issued.invoiceID, amountApplied: amount }],
      });
    // A credit note of 5.00 pays 5.00 of the open 8.00; the grant's 12.00 stays on the invoice.
    await creditNote(5);
    expect(await invoiceOf(as, issued.invoiceID)).toMatchObject({ Balance: 3 });
    expect((await grantOf(as, g.creditGrantID)).Remaining).toBe(0);
    // One of 7.00: 3.00 pays the rest, and 4.00 takes the place of 4.00 of the credit, given back to the grant.
    await creditNote(7);
    expect(await invoiceOf(as, issued.invoiceID)).toMatchObject({ Balance: 0, TotalNegativeAdjs: 20 });
    expect(await grantOf(as, g.creditGrantID)).toMatchObject({ Remaining: 4, Consumed: 8 });
    expect(await journalOf(as, walletId)).toEqual([
      [g.creditGrantID, 'grant', 12, null],
      [g.creditGrantID, 'consume', 12, issued.invoiceID],
      [g.creditGrantID, 'release', 4, issued.invoiceID],
    ]);
    await expectJournalBalances(as, walletId);
  });

  it('keeps an invoice with a payment from being cancelled, and the credit stays where it was', async () => {
    clock.set('2026-03-01T10:00:00.000Z');
    const { as, customerId, walletId } = await walletOf('Refused void shop');
    const g = await grant(as, walletId, { Amount: 10 });
    const issued = await invoice(as, customerId, 30);
    await ok(as, 'POST', '/v1/payments', {
      customerID: customerId,
      Amount: 5,
      CurrencyCode: 'USD',
      Date: '2026-03-01',
      Method: 'cash',
      allocations: [{ invoiceID: issued.invoiceID, amountApplied: 5 }],
    });
    const refused = await as.request('DELETE', `/v1/invoices/${issued.invoiceID}`);
    expect(refused.status, refused.text).toBe(409);
    expect(await invoiceOf(as, issued.invoiceID)).toMatchObject({ TotalNegativeAdjs: 10, Balance: 15 });
    expect((await grantOf(as, g.creditGrantID)).Consumed).toBe(10);
    expect((await journalOf(as, walletId)).map((entry) => entry[1])).toEqual(['grant', 'consume']);
  });

  it('pays a draft when it is finalized, not before', async () => {
    clock.set('2026-03-01T10:00:00.000Z');
    const { as, customerId, walletId } = await walletOf('Draft shop');
    const g = await grant(as, walletId, { Amount: 10 });
    const draft = await ok(as, 'POST', '/v1/invoices', {
      customerID: customerId,
      isDraft: true,
      Charges: [{ Descrip: 'Work', Qty: 1, UnitCostEx: 4 }],
    });
    expect((await grantOf(as, g.creditGrantID)).Remaining).toBe(10);
    await ok(as, 'PUT', `/v1/invoices/${draft.invoiceID}/finalize`);
    expect((await invoiceOf(as, draft.invoiceID)).Status).toBe('Paid');
    expect((await grantOf(as, g.creditGrantID)).Remaining).toBe(6);
  });

  it('50 invoices issued at once never consume a grant beyond its amount', async () => {
    clock.set('2026-03-01T10:00:00.000Z');
    const { as, customerId, walletId } = await walletOf('Race shop');
    const g = await grant(as, walletId, { Amount: 30 });
    const issued = await Promise.all(Array.from({ length: 50 }, () => invoice(as, customerId, 1)));
    const read = await Promise.all(issued.map((i) => invoiceOf(as, i.invoiceID)));
    // 30.00 of credit pays exactly thirty of the fifty 1.00 invoices.
    expect(read.filter((i) => i.Status === 'Paid')).toHaveLength(30);
    expect(read.reduce((sum, i) => sum + Math.round(i.TotalNegativeAdjs * 100), 0)).toBe(3000);
    expect(await grantOf(as, g.creditGrantID)).toMatchObject({ Remaining: 0, Consumed: 30, Status: 'used' });
    await expectJournalBalances(as, walletId);
  });
});
