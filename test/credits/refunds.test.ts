import { describe, expect, it } from 'vitest';
import { collectDueInvoices } from '../../src/modules/collections/index.ts';
import { editPayment, ok } from '../helpers/billing.ts';
import { systemClock } from '../../src/clock.ts';
import { aMinuteLater, accountContext } from '../helpers/context.ts';
import { fetchApiBytes } from '../helpers/invoices.ts';
import type { TestAccount } from '../helpers/service.ts';
import { useTestService } from '../helpers/testService.ts';
import { expectJournalBalances, invoiceOf } from './credits.fixtures.ts';
import { cardPaidTopUp } from './topUpCardFixture.ts';
import { renderPdf } from '../invoicing/pdf.fixtures.ts';
import { testGatewayCharges } from '../helpers/outside.ts';

// docs/credits.md, "Crediting a top-up" and "Refunding unused credit": money that goes back for a paid top-up takes
// the credit it bought out of the grant, in the same transaction, and never credit already spent.
const t = useTestService();

const grantOf = (as: TestAccount, grantId: number) => ok(as, 'GET', `/v1/credit-grants/${grantId}`);
const refundPayment = (as: TestAccount, paymentId: number, body: Record<string, unknown>) =>
  as.request('POST', `/v1/payments/${paymentId}/refund`, { body });

/** The wallet's journal, oldest first, as [kind, amount, invoice]. */
async function journalOf(as: TestAccount, walletId: number) {
  const entries = await ok(as, 'GET', `/v1/wallets/${walletId}/entries?page_size=200`);
  return (entries as any[]).map((e) => [e.Kind, e.Amount, e.invoiceID]);
}

/** An invoice of `amount` for the customer, which the grant's credit pays as it is issued. */
async function spend(as: TestAccount, customerId: number, amount: number) {
  const sale = await ok(as, 'POST', '/v1/invoices', {
    customerID: customerId,
    Charges: [{ Descrip: 'Work', Qty: 1, UnitCostEx: amount }],
  });
  expect((await ok(as, 'GET', `/v1/invoices/${sale.invoiceID}`)).Balance).toBe(0);
}

const creditNote = (as: TestAccount, customerID: number, invoiceID: number, amount: number) =>
  as.request('POST', '/v1/credits', {
    body: {
      customerID,
      Date: '2026-01-05',
      CurrencyCode: 'USD',
      Amount: amount,
      Allocations: [{ invoiceID, amountApplied: amount }],
    },
  });

describe('a gateway refund of a top-up payment that credits its invoice', () => {
  it('takes the credit the money bought out of the grant', async () => {
    const { as, walletId, grantId, paymentId, invoiceId } = await cardPaidTopUp(t, 'Refunded top-up', {
      amount: 100,
    });
    const res = await refundPayment(as, paymentId, {});
    expect(res.status, res.text).toBe(200);
    // The invoice stays Paid (credited), and the 100.00 of credit it sold leaves with the money.
    expect((await ok(as, 'GET', `/v1/invoices/${invoiceId}`)).Status).toBe('Paid');
    expect(await grantOf(as, grantId)).toMatchObject({ Remaining: 0, Refunded: 100, Status: 'used' });
    expect((await journalOf(as, walletId)).slice(-1)).toEqual([['refund', 100, invoiceId]]);
    expect(await ok(as, 'GET', `/v1/wallets/${walletId}`)).toMatchObject({ Balance: 0, PaidBalance: 0 });
    const events = await ok(as, 'GET', '/v1/events?type=credit_grant.refunded');
    expect(events.map((e: any) => [e.data.object.creditGrantID, e.data.object.Refunded])).toEqual([
      [grantId, 100],
    ]);
  });

  it('is refused with 409 when it would reopen the top-up instead, and nothing changes', async () => {
    const { as, walletId, grantId, paymentId, invoiceId } = await cardPaidTopUp(t, 'Reopened top-up', {
      amount: 100,
    });
    const res = await refundPayment(as, paymentId, { PaidInvoices: 'reopen' });
    expect(res.status, res.text).toBe(409);
    expect(res.body.code).toBe('top_up_reopen_refused');
    expect(res.body.detail).toContain(`top-up invoice ${invoiceId}`);
    expect(await grantOf(as, grantId)).toMatchObject({ Remaining: 100, Refunded: 0 });
    expect(await ok(as, 'GET', `/v1/payments/${paymentId}`)).toMatchObject({ Status: 'Allocated' });
    expect((await ok(as, 'GET', `/v1/invoices/${invoiceId}`)).Status).toBe('Paid');
    expect((await journalOf(as, walletId)).map(([kind]) => kind)).toEqual(['grant']);
    // Once the credit is voided, the top-up holds none: reopening it is the refund's to choose.
    await ok(as, 'POST', `/v1/credit-grants/${grantId}/void`, {}, 200);
    const reopened = await refundPayment(as, paymentId, { PaidInvoices: 'reopen' });
    expect(reopened.status, reopened.text).toBe(200);
    expect((await ok(as, 'GET', `/v1/invoices/${invoiceId}`)).Status).not.toBe('Paid');
  });

  it('takes as much credit as money from a top-up sold with VAT, and its credit note takes the VAT off', async () => {
    const { as, grantId, paymentId, invoiceId } = await cardPaidTopUp(t, 'Taxed refunded top-up', {
      amount: 100,
      taxed: true,
    });
    // Credit sold with VAT costs what it is worth (docs/tax.md, "Prepaid credit"): 100.00 charged, VAT 13.04 in it.
    expect(await invoiceOf(as, invoiceId)).toMatchObject({ Total: 100, TotalTax: 13.04 });
    const res = await refundPayment(as, paymentId, { Amount: 57.5 });
    expect(res.status, res.text).toBe(200);
    // 57.50 of money is 57.50 of credit; its tax credit note takes 57.50 × 13.04 / 100.00 = 7.498 → 7.50 of VAT off.
    expect(await grantOf(as, grantId)).toMatchObject({ Remaining: 42.5, Refunded: 57.5 });
    const [document] = await ok(as, 'GET', '/v1/tax-credit-notes');
    expect(document).toMatchObject({ Kind: 'credit_note', Amount: 57.5, Tax: 7.5, AmountEx: 50 });
    expect(document.Lines.map((line: any) => line.invoiceID)).toEqual([invoiceId]);
    // Its PDF names the top-up's tax invoice and the VAT it takes off it.
    const { invoiceNum } = await invoiceOf(as, invoiceId);
    const pdf = await fetchApiBytes(t.url, as, document.PdfURL);
    expect(pdf.status).toBe(200);
    const flat = renderPdf(pdf.body, 'refund-credit-note').text.replace(/[ \t]+/g, ' ');
    expect(flat).toContain(`Tax invoice ${invoiceNum} of `);
    expect(flat).toContain(' 50.00 7.50 57.50');
    expect(flat).toContain('VAT 15%: 7.50');
  });

  it('is refused with 409 when the credit was spent, and nothing goes back', async () => {
    const { as, customerId, walletId, grantId, paymentId, invoiceId } = await cardPaidTopUp(
      t,
      'Spent top-up',
      {
        amount: 100,
      },
    );
    await spend(as, customerId, 30);
    const res = await refundPayment(as, paymentId, {});
    expect(res.status, res.text).toBe(409);
    expect(res.body.code).toBe('top_up_credit_spent');
    expect(res.body.detail).toContain('holds only 70.00');
    expect(await grantOf(as, grantId)).toMatchObject({ Remaining: 70, Refunded: 0 });
    expect(await ok(as, 'GET', `/v1/payments/${paymentId}`)).toMatchObject({ Status: 'Allocated' });
    expect((await ok(as, 'GET', `/v1/invoices/${invoiceId}`)).TotalActualPaid).toBe(100);
    expect(await ok(as, 'GET', `/v1/customers/${customerId}/credits`)).toEqual([]);
    // What remains may go back.
    const rest = await refundPayment(as, paymentId, { Amount: 70 });
    expect(rest.status, rest.text).toBe(200);
    expect(await grantOf(as, grantId)).toMatchObject({ Remaining: 0, Refunded: 70, Consumed: 30 });
    await expectJournalBalances(as, walletId);
  });

  it('gives the credit back when the gateway refuses the refund', async () => {
    const { as, walletId, grantId, paymentId, invoiceId } = await cardPaidTopUp(t, 'Declined top-up', {
      amount: 100,
    });
    // The payment's Amount raised by hand to 150.00 (the card was charged 100.00): the gateway refuses 150.00.
    await editPayment(as, paymentId, { Amount: 150 });
    const res = await refundPayment(as, paymentId, {});
    expect(res.status, res.text).toBe(409);
    expect(res.body.code).toBe('refund_declined');
    expect(await grantOf(as, grantId)).toMatchObject({ Remaining: 100, Refunded: 0 });
    expect((await journalOf(as, walletId)).slice(-2)).toEqual([
      ['refund', 100, invoiceId],
      ['refund_undone', 100, invoiceId],
    ]);
    await collectDueInvoices(await accountContext(t, as.accountId), { staleAfterMs: 0 });
    expect(await grantOf(as, grantId)).toMatchObject({ Remaining: 100 });
  });
});

describe('a credit note written by hand on a top-up invoice', () => {
  it('takes the credit out, refuses credit already spent, and gives it back when deleted', async () => {
    const { as, customerId, walletId, grantId, paymentId, invoiceId } = await cardPaidTopUp(
      t,
      'Credited top-up',
      {
        amount: 100,
      },
    );
    await spend(as, customerId, 30);
    // The payment's money taken off the invoice (it is the customer's again, and could be paid back): the
    // invoice owes 100.00 and the grant still holds its 70.00.
    await editPayment(as, paymentId, { Allocations: [] });
    const tooMuch = await creditNote(as, customerId, invoiceId, 100);
    expect(tooMuch.status, tooMuch.text).toBe(409);
    expect(tooMuch.body.code).toBe('top_up_credit_spent');
    expect(await ok(as, 'GET', `/v1/customers/${customerId}/credits`)).toEqual([]);
    expect(await grantOf(as, grantId)).toMatchObject({ Remaining: 70 });

    const credited = await creditNote(as, customerId, invoiceId, 60);
    expect(credited.status, credited.text).toBe(201);
    expect(await grantOf(as, grantId)).toMatchObject({ Remaining: 10, Refunded: 60 });
    await ok(as, 'DELETE', `/v1/credits/${credited.body.creditNoteID}`, undefined, 204);
    expect(await grantOf(as, grantId)).toMatchObject({ Remaining: 70, Refunded: 0 });
    expect((await journalOf(as, walletId)).slice(-2)).toEqual([
      ['refund', 60, invoiceId],
      ['refund_undone', 60, invoiceId],
    ]);
    await expectJournalBalances(as, walletId);
  });

  it('counts a negative adjustment on the invoice as a credit note', async () => {
    const { as, customerId, grantId, paymentId, invoiceId } = await cardPaidTopUp(t, 'Adjusted top-up', {
      amount: 100,
      taxed: true,
    });
    await editPayment(as, paymentId, { Allocations: [] });
    // 23.00 of the invoice of 100.00 (its VAT inside) is 23.00 of credit.
    const adjusted = await as.request('POST', '/v1/adjustment/add', {
      body: {
        AdjustmentType: 'credit_note',
        customerID: customerId,
        Type: 'negative',
        Amount: 23,
        Date: '2026-01-05',
        Ref: 'ADJ-TOP-UP',
        Memo: 'Goodwill',
        AutoApply: false,
        Allocations: [{ objectID: invoiceId, AmtAllocated: 23, isAdjustment: false }],
      },
    });
    expect(adjusted.status, adjusted.text).toBeLessThan(300);
    expect(await grantOf(as, grantId)).toMatchObject({ Remaining: 77, Refunded: 23 });
  });

  it('of a top-up not paid yet only lowers what is owed; the grant is made when the rest is paid', async () => {
    const { as, customerId, walletId } = await cardPaidTopUp(t, 'Unpaid credited top-up', { amount: 10 });
    const topUp = await ok(as, 'POST', `/v1/wallets/${walletId}/top-ups`, { Amount: 100 });
    const credited = await creditNote(as, customerId, topUp.invoiceID, 40);
    expect(credited.status, credited.text).toBe(201);
    await ok(as, 'POST', '/v1/payments', {
      customerID: customerId,
      Amount: 60,
      CurrencyCode: 'USD',
      Date: '2026-01-05',
      Method: 'eft',
      allocations: [{ invoiceID: topUp.invoiceID, amountApplied: 60 }],
    });
    const grants = await ok(as, 'GET', `/v1/wallets/${walletId}/grants`);
    expect(grants.map((g: any) => [g.TopUpInvoiceID, g.Amount, g.Remaining])).toContainEqual([
      topUp.invoiceID,
      100,
      100,
    ]);
  });
});

const refundGrant = (as: TestAccount, grantId: number, body: Record<string, unknown>) =>
  as.request('POST', `/v1/credit-grants/${grantId}/refund`, { body });

/** The refunds the test gateway made of the charge that paid the payment, in cents, smallest first. */
async function refundsAtGateway(as: TestAccount, paymentId: number): Promise<number[]> {
  const attempt = await t.service.storage.db
    .selectFrom('collection_attempts')
    .select('charge_id')
    .where('payment_id', '=', paymentId)
    .executeTakeFirstOrThrow();
  return (await testGatewayCharges(t, { refundsChargeId: attempt.charge_id! }))
    .filter((row) => row.outcome === 'refunded')
    .map((row) => row.amountMinor)
    .sort((a, b) => a - b);
}

describe('POST /v1/credit-grants/{id}/refund', () => {
  it('refunds unused credit sold with VAT as its money, in parts whose VAT adds up to the invoice', async () => {
    const { as, customerId, walletId, grantId, paymentId, invoiceId } = await cardPaidTopUp(
      t,
      'Taxed refund',
      {
        amount: 100,
        taxed: true,
      },
    );
    // 100.00 of credit sold with its 15 % VAT inside (13.04): 100.00 charged. An invoice of 23.00 consumes 23.00 of
    // it: 77.00 left.
    await spend(as, customerId, 23);
    expect(await grantOf(as, grantId)).toMatchObject({ Remaining: 77, Consumed: 23 });

    // 40.00 of credit is 40.00 of the top-up's money.
    const first = await refundGrant(as, grantId, { Amount: 40, Memo: 'Customer leaving' });
    expect(first.status, first.text).toBe(200);
    expect(first.body).toMatchObject({ Remaining: 37, Refunded: 40, Consumed: 23, Status: 'active' });
    const rest = await refundGrant(as, grantId, {});
    expect(rest.status, rest.text).toBe(200);
    expect(rest.body).toMatchObject({ Remaining: 0, Refunded: 77, Consumed: 23, Status: 'used' });
    expect(await refundsAtGateway(as, paymentId)).toEqual([3700, 4000]);

    // The top-up invoice stays Paid: 23.00 paid (the credit used), 77.00 credited by two credit notes; the
    // payment's 77.00 went to refund adjustments.
    expect(await ok(as, 'GET', `/v1/invoices/${invoiceId}`)).toMatchObject({
      Status: 'Paid',
      TotalActualPaid: 23,
      TotalNegativeAdjs: 77,
      // The credit notes take 77.00 × 13.04 / 100.00 = 10.04 of the VAT off: 3.00 stays, on the 23.00 kept.
      CreditedTax: 10.04,
    });
    const credits = await ok(as, 'GET', `/v1/customers/${customerId}/credits`);
    expect(credits.map((c: any) => c.Amount)).toEqual([40, 37]);
    // 40.00 carries 5.216 → 5.22; 77.00 in all carries 10.04, so the second 4.82.
    const documents = await ok(as, 'GET', `/v1/tax-credit-notes?customerID=${customerId}`);
    expect(documents.map((d: any) => [d.Amount, d.Tax])).toEqual([
      [40, 5.22],
      [37, 4.82],
    ]);
    const payment = await ok(as, 'GET', `/v1/payments/${paymentId}`);
    expect(payment.Allocations.map((a: any) => [a.invoiceID, a.amountApplied])).toEqual([
      [invoiceId, 23],
      [0, 40],
      [0, 37],
    ]);
    expect((await ok(as, 'GET', `/v1/customers/${customerId}`)).Balance).toBe(0);
    expect((await journalOf(as, walletId)).slice(-2)).toEqual([
      ['refund', 40, invoiceId],
      ['refund', 37, invoiceId],
    ]);
    await expectJournalBalances(as, walletId);
    const events = await ok(as, 'GET', '/v1/events?type=credit_grant.refunded');
    expect(events.map((e: any) => e.data.object.Refunded).sort()).toEqual([40, 77]);

    // Nothing is left: a 409 without Amount, a 422 naming Amount with one.
    const again = await refundGrant(as, grantId, {});
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('credit_grant_used');
    expect((await refundGrant(as, grantId, { Amount: 1 })).body.fields).toEqual([
      { field: 'Amount', message: expect.stringContaining('at most 0.00') },
    ]);
    expect(await refundsAtGateway(as, paymentId)).toHaveLength(2);
  });

  it('refuses bad amounts, free credit, a top-up paid by hand, and another account’s grant', async () => {
    const { as, customerId, walletId, grantId, paymentId } = await cardPaidTopUp(t, 'Refusals', {
      amount: 50,
    });
    for (const Amount of [0, -5, 1.001, 'ten', 50.01]) {
      const bad = await refundGrant(as, grantId, { Amount });
      expect(bad.status, JSON.stringify(Amount)).toBe(422);
      expect(bad.body.fields[0].field).toBe('Amount');
    }
    const free = await ok(as, 'POST', `/v1/wallets/${walletId}/grants`, { Amount: 10 });
    const freeRefund = await refundGrant(as, free.creditGrantID, {});
    expect(freeRefund.status).toBe(409);
    expect(freeRefund.body.code).toBe('credit_grant_not_refundable');
    expect(freeRefund.body.detail).toContain('void');

    const byHand = await ok(as, 'POST', `/v1/wallets/${walletId}/top-ups`, { Amount: 20 });
    await ok(as, 'POST', '/v1/payments', {
      customerID: customerId,
      Amount: 20,
      CurrencyCode: 'USD',
      Date: '2026-01-05',
      Method: 'eft',
      allocations: [{ invoiceID: byHand.invoiceID, amountApplied: 20 }],
    });
    const handGrant = (await ok(as, 'GET', `/v1/wallets/${walletId}/grants`)).find(
      (g: any) => g.TopUpInvoiceID === byHand.invoiceID,
    );
    const handRefund = await refundGrant(as, handGrant.creditGrantID, { Amount: 5 });
    expect(handRefund.status).toBe(409);
    expect(handRefund.body.code).toBe('credit_grant_not_refundable');
    expect(handRefund.body.detail).toContain('by hand');

    const other = await t.newAccount('Elsewhere refunds');
    expect((await refundGrant(other, grantId, {})).status).toBe(404);
    expect((await refundGrant(as, 999_999_999, {})).status).toBe(404);
    await ok(as, 'POST', `/v1/credit-grants/${grantId}/void`, undefined, 200);
    expect((await refundGrant(as, grantId, {})).body.code).toBe('credit_grant_voided');
    expect(await refundsAtGateway(as, paymentId)).toEqual([]);
  });

  it('replays an Idempotency-Key, and keeps a refund whose answer was lost for the next run, once', async () => {
    const { as, grantId, paymentId } = await cardPaidTopUp(t, 'Lost refund', {
      amount: 100,
      card: '4000000000000408',
    });
    const headers = { 'Idempotency-Key': 'refund-lost-credit' };
    const lost = await as.request('POST', `/v1/credit-grants/${grantId}/refund`, {
      body: { Amount: 30 },
      headers,
    });
    expect(lost.status, lost.text).toBe(409);
    expect(lost.body.code).toBe('refund_unanswered');
    // Reserved: the credit is out of the grant while the gateway's answer is awaited.
    expect(await grantOf(as, grantId)).toMatchObject({ Remaining: 70, Refunded: 30 });
    const replay = await as.request('POST', `/v1/credit-grants/${grantId}/refund`, {
      body: { Amount: 30 },
      headers,
    });
    expect([replay.status, replay.body.code]).toEqual([409, 'refund_unanswered']);
    const nextRun = await accountContext(t, as.accountId, systemClock, aMinuteLater);
    await collectDueInvoices(nextRun, { staleAfterMs: 0 });
    await collectDueInvoices(nextRun, { staleAfterMs: 0 });
    expect(await refundsAtGateway(as, paymentId)).toEqual([3000]);
    expect(await grantOf(as, grantId)).toMatchObject({ Remaining: 70, Refunded: 30 });
  });

  it('never lets a refund and consumptions at once take the same credit', async () => {
    const { as, customerId, walletId, grantId, paymentId } = await cardPaidTopUp(t, 'Racing refund', {
      amount: 100,
    });
    // 70.00 refunded and three invoices of 20.00 consumed would be 130.00 of a 100.00 grant.
    const answers = await Promise.all([
      refundGrant(as, grantId, { Amount: 70 }),
      ...[1, 2, 3].map(() =>
        as.request('POST', '/v1/invoices', {
          body: { customerID: customerId, Charges: [{ Descrip: 'Work', Qty: 1, UnitCostEx: 20 }] },
        }),
      ),
    ]);
    expect(answers.slice(1).map((a) => a.status)).toEqual([201, 201, 201]);
    const [refund] = answers;
    const after = await grantOf(as, grantId);
    if (refund!.status === 200) {
      // The refund first: 30.00 left for the invoices.
      expect(after).toMatchObject({ Refunded: 70, Consumed: 30, Remaining: 0 });
      expect(await refundsAtGateway(as, paymentId)).toEqual([7000]);
    } else {
      // The invoices first: 40.00 left, too little for 70.00.
      expect([409, 422]).toContain(refund!.status);
      expect(after).toMatchObject({ Refunded: 0, Consumed: 60, Remaining: 40 });
      expect(await refundsAtGateway(as, paymentId)).toEqual([]);
    }
    await expectJournalBalances(as, walletId);
  });
});
