import { describe, expect, it } from 'vitest';
import { createCustomer, createPlan, invoicesOf, movableClock, ok, subscribe } from '../helpers/billing.ts';
import { eventually } from '../helpers/service.ts';
import type { TestAccount } from '../helpers/service.ts';
import { useTestService } from '../helpers/testService.ts';
import { addCard } from '../collections/cards.ts';
import { deliveredTo } from '../collections/notices.fixtures.ts';
import { advanceClock } from '../helpers/clock.ts';

// docs/credits.md, "Automatic top-ups" and "Low-balance alerts": a wallet below its threshold buys credit itself,
// charged to the primary card by the collection loop (receipt, failure notice, retries), never two unpaid at once;
// its low-balance alert fires once a crossing, as an event and an e-mail.
const clock = movableClock('2026-03-01T00:00:00.000Z');
const t = useTestService({ clock, smtp: true });
const { smtp } = t;

const balanceOf = async (as: TestAccount, walletId: number) =>
  (await ok(as, 'GET', `/v1/wallets/${walletId}`)).Balance as number;

/** The account's events of one type, oldest first. */
async function eventsOf(as: TestAccount, type: string) {
  const events = await ok(as, 'GET', `/v1/events?type=${type}&page_size=200`);
  return (events as { type: string; data: { object: Record<string, any> } }[]).reverse();
}

/** The subjects of the e-mails the SMTP receiver got for an address, in arrival order. */
function subjectsTo(address: string): string[] {
  return smtp.messages
    .filter((m) => m.to.includes(address))
    .map((m) => /^Subject: (.*)$/m.exec(m.raw)?.[1] ?? '');
}

/**
 * A test account (UTC; low-balance alerts e-mailed, as by default) on 1 March 2026, a customer with an address and a
 * USD wallet; `account`: settings of `PUT /v1/account`.
 */
async function shop(
  name: string,
  email: string,
  wallet: Record<string, unknown>,
  account: Record<string, unknown> = {},
) {
  const as = await t.newAccount(name, { isTest: true, timeZone: 'UTC' });
  if (Object.keys(account).length > 0) await ok(as, 'PUT', '/v1/account', account);
  const customerId = await createCustomer(as, { Name: 'Ada', Email: email, autoSendInvoice: false });
  const created = await ok(as, 'POST', `/v1/customers/${customerId}/wallets`, {
    CurrencyCode: 'USD',
    ...wallet,
  });
  return { as, customerId, walletId: created.walletID as number };
}

describe('automatic top-ups over a year', () => {
  it('buys credit as a 30.00 plan uses it, survives a declined card, and alerts once a crossing', async () => {
    const email = 'ada@year.example';
    const { as, customerId, walletId } = await shop('Year shop', email, {
      AutoTopUpThreshold: '40.00',
      AutoTopUpAmount: '60.00',
      LowBalanceAlertThreshold: '50.00',
    });
    await addCard(as, customerId, '4242424242424242');
    await ok(as, 'POST', `/v1/wallets/${walletId}/grants`, { Amount: 100 });
    const plan = await createPlan(as, { chargePrice: 30 });
    await subscribe(as, customerId, plan);
    await advanceClock(as, '2026-03-01T12:00:00.000Z');
    // 1 March: the plan's 30.00 paid from the 100.00 granted: 70.00, above both thresholds.
    expect(await balanceOf(as, walletId)).toBe(70);

    await advanceClock(as, '2026-04-01T12:00:00.000Z');
    // 1 April: 70.00 − 30.00 = 40.00: below the alert's 50.00 (it fires), not below the top-up's 40.00.
    expect(await balanceOf(as, walletId)).toBe(40);
    expect(await eventsOf(as, 'wallet.balance_low')).toHaveLength(1);
    expect(await eventsOf(as, 'wallet.auto_top_up_started')).toHaveLength(0);

    await advanceClock(as, '2026-05-01T12:00:00.000Z');
    // 1 May: 40.00 − 30.00 = 10.00 < 40.00: a top-up of 60.00, charged to the card the same day and granted:
    // 10.00 + 60.00 = 70.00, back over the alert's threshold (rearmed).
    expect(await balanceOf(as, walletId)).toBe(70);
    expect(await ok(as, 'GET', `/v1/wallets/${walletId}`)).toMatchObject({ LowBalanceAlerted: false });

    await advanceClock(as, '2026-06-01T12:00:00.000Z');
    // 1 June: 70.00 − 30.00 = 40.00: the alert fires again (its second crossing).
    expect(await balanceOf(as, walletId)).toBe(40);
    expect(await eventsOf(as, 'wallet.balance_low')).toHaveLength(2);

    // The card on file is now one the bank declines (insufficient funds, a soft decline: retried).
    await addCard(as, customerId, '4000000000009995');
    await advanceClock(as, '2026-07-01T12:00:00.000Z');
    // 1 July: 40.00 − 30.00 = 10.00 < 40.00: a top-up of 60.00, declined.
    expect(await balanceOf(as, walletId)).toBe(10);
    const failed = await eventsOf(as, 'wallet.auto_top_up_failed');
    expect(failed).toHaveLength(1);
    expect(failed[0]!.data.object).toMatchObject({ walletID: walletId, Balance: 10 });
    const july = (await invoicesOf(as, customerId)).filter((i) => i.InvoiceDate.startsWith('2026-07-01'));
    const openTopUp = july.find((i) => i.Total === 60)!;
    expect(openTopUp).toMatchObject({ Balance: 60 });

    // A second crossing while that top-up is unpaid makes nothing: 10.00 − 5.00 = 5.00, no new top-up.
    await ok(as, 'POST', '/v1/invoices', {
      customerID: customerId,
      Charges: [{ Descrip: 'Extra', Qty: 1, UnitCostEx: 5 }],
    });
    expect(await balanceOf(as, walletId)).toBe(5);
    expect(await eventsOf(as, 'wallet.auto_top_up_started')).toHaveLength(2);

    // A good card made primary: the declined top-up is tried again on it and paid: 5.00 + 60.00 = 65.00.
    await addCard(as, customerId, '4242424242424242');
    await advanceClock(as, '2026-07-02T12:00:00.000Z');
    expect(await balanceOf(as, walletId)).toBe(65);
    expect(await ok(as, 'GET', `/v1/invoices/${openTopUp.invoiceID}`)).toMatchObject({ Balance: 0 });

    // August to next March, a month at a time: 65 → 35 (alert, top-up: 95) → 65 → 35 (alert, top-up: 95) → 65 →
    // 35 (alert, top-up: 95) → 65 → 35 (alert, top-up: 95) → 65.
    const expected = [95, 65, 95, 65, 95, 65, 95, 65];
    const months = ['08', '09', '10', '11', '12', '01', '02', '03'];
    for (const [i, month] of months.entries()) {
      const year = i < 5 ? 2026 : 2027;
      await advanceClock(as, `${year}-${month}-01T12:00:00.000Z`);
      expect(await balanceOf(as, walletId), `${year}-${month}`).toBe(expected[i]);
    }

    // Six top-ups started (May, July, August, October, December, February), July's declined once. Six alerts:
    // April, June, August, October, December, February (July's fall to 10.00 came before June's was rearmed).
    expect(await eventsOf(as, 'wallet.auto_top_up_started')).toHaveLength(6);
    expect(await eventsOf(as, 'wallet.balance_low')).toHaveLength(6);
    const topUps = (await invoicesOf(as, customerId)).filter(
      (i) => i.Charges[0].Descrip === 'Prepaid credit',
    );
    expect(topUps.map((i) => [i.InvoiceDate.slice(0, 10), i.Total, i.Balance])).toEqual([
      ['2026-05-01', 60, 0],
      ['2026-07-01', 60, 0],
      ['2026-08-01', 60, 0],
      ['2026-10-01', 60, 0],
      ['2026-12-01', 60, 0],
      ['2027-02-01', 60, 0],
    ]);
    // Plan invoices: 13 months of 30.00 and the 5.00 one, all paid from credit. Granted 100.00, bought 6 × 60.00 =
    // 360.00; used 13 × 30.00 + 5.00 = 395.00; left 100.00 + 360.00 − 395.00 = 65.00.
    const grants = await ok(as, 'GET', `/v1/wallets/${walletId}/grants?page_size=200`);
    expect(grants.map((g: any) => [g.Kind, g.Amount])).toEqual([
      ['granted', 100],
      ...Array.from({ length: 6 }, () => ['paid', 60]),
    ]);
    const subjects = await eventually(() => {
      const got = subjectsTo(email);
      return got.filter((s) => s.startsWith('Receipt')).length >= 6 ? got : undefined;
    });
    expect(subjects.filter((s) => s === 'Your prepaid credit is running low')).toHaveLength(6);
    expect(subjects.filter((s) => s.startsWith('Receipt'))).toHaveLength(6);
    expect(subjects.filter((s) => s.startsWith('Payment of invoice'))).toHaveLength(1);
    // NOTE: sixteen moves of a test clock, each a month of daily runs and collection: 7 s on SQLite, 20 to 30 s on
    // PostgreSQL on a loaded machine; the limit is the card year story's (test/collections).
  }, 90_000);
});

describe('a wallet without a card to charge', () => {
  it('makes no top-up, says why once, and still alerts once a crossing', async () => {
    const email = 'ada@nocard.example';
    const { as, customerId, walletId } = await shop('No card shop', email, {
      AutoTopUpThreshold: 40,
      AutoTopUpAmount: 60,
      LowBalanceAlertThreshold: 50,
    });
    await ok(as, 'POST', `/v1/wallets/${walletId}/grants`, { Amount: 50 });
    const spend = (amount: number) =>
      ok(as, 'POST', '/v1/invoices', {
        customerID: customerId,
        Charges: [{ Descrip: 'Work', Qty: 1, UnitCostEx: amount }],
      });
    await spend(20);
    // 50.00 − 20.00 = 30.00: below both thresholds; no primary card, so no top-up, and the reason kept.
    expect(await ok(as, 'GET', `/v1/wallets/${walletId}`)).toMatchObject({
      Balance: 30,
      LowBalanceAlerted: true,
      AutoTopUpProblem: 'no_payment_method: the customer has no primary payment method',
    });
    await spend(5);
    // 25.00: the same problem is not told again, and the alert stays fired.
    expect((await eventsOf(as, 'wallet.auto_top_up_failed')).map((e) => e.data.object.Balance)).toEqual([30]);
    expect((await eventsOf(as, 'wallet.balance_low')).map((e) => e.data.object.Balance)).toEqual([30]);
    expect(await eventsOf(as, 'wallet.auto_top_up_started')).toEqual([]);
    expect((await invoicesOf(as, customerId)).map((i) => i.Charges[0].Descrip)).toEqual(['Work', 'Work']);

    // A grant lifts it to 125.00 (rearmed); 80.00 more brings it to 45.00: the alert's second crossing, above 40.00.
    await ok(as, 'POST', `/v1/wallets/${walletId}/grants`, { Amount: 100 });
    expect(await ok(as, 'GET', `/v1/wallets/${walletId}`)).toMatchObject({
      Balance: 125,
      LowBalanceAlerted: false,
    });
    await spend(80);
    expect((await eventsOf(as, 'wallet.balance_low')).map((e) => e.data.object.Balance)).toEqual([30, 45]);
    const mails = await eventually(() => {
      const got = subjectsTo(email).filter((s) => s === 'Your prepaid credit is running low');
      return got.length === 2 ? got : undefined;
    });
    expect(mails).toHaveLength(2);
  });
});

describe('the low-balance alert', () => {
  it('e-mails the customer by default, and only raises its event when the account sends none', async () => {
    for (const send of [true, false]) {
      const email = `ada.${send}@alerts.example`;
      const { as, customerId, walletId } = await shop(
        `Alert shop ${send}`,
        email,
        { LowBalanceAlertThreshold: 50 },
        send ? {} : { SendLowBalanceAlerts: false },
      );
      expect((await ok(as, 'GET', '/v1/account')).SendLowBalanceAlerts).toBe(send);
      await ok(as, 'POST', `/v1/wallets/${walletId}/grants`, { Amount: 60 });
      // 60.00 − 20.00 = 40.00: below the alert's 50.00.
      await ok(as, 'POST', '/v1/invoices', {
        customerID: customerId,
        Charges: [{ Descrip: 'Work', Qty: 1, UnitCostEx: 20 }],
      });
      expect((await eventsOf(as, 'wallet.balance_low')).map((e) => e.data.object.Balance)).toEqual([40]);
      const mails = await deliveredTo(t, smtp, as.accountId, email);
      expect(mails.map((mail) => mail.subject)).toEqual(send ? ['Your prepaid credit is running low'] : []);
    }
  });
});

describe('wallet settings', () => {
  async function problem(as: TestAccount, method: string, path: string, body: unknown, status = 422) {
    const res = await as.request(method, path, { body });
    expect(res.status, res.text).toBe(status);
    return (res.body as { fields?: { field: string }[] }).fields?.map((f) => f.field);
  }

  it('are refused naming the field, changing nothing; off by default; whole on PUT', async () => {
    const { as, walletId } = await shop('Settings shop', 'ada@settings.example', {});
    expect(await ok(as, 'GET', `/v1/wallets/${walletId}`)).toMatchObject({
      AutoTopUpThreshold: null,
      AutoTopUpAmount: null,
      AutoTopUpProblem: null,
      LowBalanceAlertThreshold: null,
      LowBalanceAlerted: false,
    });
    const put = (body: Record<string, unknown>) =>
      problem(as, 'PUT', `/v1/wallets/${walletId}`, { Name: null, ...body });
    expect(await put({ AutoTopUpThreshold: 0, AutoTopUpAmount: 10 })).toEqual(['AutoTopUpThreshold']);
    expect(await put({ AutoTopUpThreshold: 10, AutoTopUpAmount: '10.001' })).toEqual(['AutoTopUpAmount']);
    expect(await put({ AutoTopUpThreshold: 10 })).toEqual(['AutoTopUpAmount']);
    expect(await put({ AutoTopUpAmount: 10 })).toEqual(['AutoTopUpThreshold']);
    expect(await put({ LowBalanceAlertThreshold: -5 })).toEqual(['LowBalanceAlertThreshold']);
    const second = await createCustomer(as, { Name: 'Bea' });
    expect(
      await problem(as, 'POST', `/v1/customers/${second}/wallets`, {
        CurrencyCode: 'USD',
        LowBalanceAlertThreshold: 'ten',
      }),
    ).toEqual(['LowBalanceAlertThreshold']);
    expect(await ok(as, 'GET', `/v1/customers/${second}/wallets`)).toEqual([]);

    await ok(
      as,
      'PUT',
      `/v1/wallets/${walletId}`,
      {
        Name: 'Main',
        AutoTopUpThreshold: '10.50',
        AutoTopUpAmount: 25,
        LowBalanceAlertThreshold: 20,
      },
      200,
    );
    expect(await ok(as, 'GET', `/v1/wallets/${walletId}`)).toMatchObject({
      Name: 'Main',
      AutoTopUpThreshold: 10.5,
      AutoTopUpAmount: 25,
      LowBalanceAlertThreshold: 20,
    });
    // A PUT is the whole resource: a setting left out is off.
    await ok(as, 'PUT', `/v1/wallets/${walletId}`, { Name: 'Main', LowBalanceAlertThreshold: 20 }, 200);
    expect(await ok(as, 'GET', `/v1/wallets/${walletId}`)).toMatchObject({
      AutoTopUpThreshold: null,
      AutoTopUpAmount: null,
      LowBalanceAlertThreshold: 20,
    });

    // Another account's wallet is a 404, and stays as it was.
    const other = await t.newAccount('Settings intruder');
    await problem(
      other,
      'PUT',
      `/v1/wallets/${walletId}`,
      { Name: 'Taken', AutoTopUpThreshold: 1, AutoTopUpAmount: 1 },
      404,
    );
    expect(await ok(as, 'GET', `/v1/wallets/${walletId}`)).toMatchObject({
      Name: 'Main',
      AutoTopUpThreshold: null,
    });
  });
});

describe('one automatic top-up open at a time', () => {
  it('two invoices issued at once below the threshold make one top-up', async () => {
    const { as, customerId, walletId } = await shop('Busy shop', 'ada@busy.example', {
      AutoTopUpThreshold: 80,
      AutoTopUpAmount: 50,
    });
    await addCard(as, customerId, '4242424242424242');
    await ok(as, 'POST', `/v1/wallets/${walletId}/grants`, { Amount: 100 });
    const spend = () =>
      ok(as, 'POST', '/v1/invoices', {
        customerID: customerId,
        Charges: [{ Descrip: 'Work', Qty: 1, UnitCostEx: 30 }],
      });
    await Promise.all([spend(), spend(), spend()]);
    // 100.00 − 3 × 30.00 = 10.00: each invoice left it below 80.00, but the first one's top-up is unpaid.
    expect(await balanceOf(as, walletId)).toBe(10);
    const topUps = (await invoicesOf(as, customerId)).filter(
      (i) => i.Charges[0].Descrip === 'Prepaid credit',
    );
    expect(topUps.map((i) => [i.Total, i.Balance])).toEqual([[50, 50]]);
    expect(await eventsOf(as, 'wallet.auto_top_up_started')).toHaveLength(1);
  });
});
