import { describe, expect, it } from 'vitest';
import { earliestActionDate, onBusinessDay, returnWindowEnd } from '../../src/core/bankingDays.ts';
import { longDate, signPayLinkToken } from '../../src/modules/collections/index.ts';
import { createCustomer, createPlan, invoicesOf, ok } from '../helpers/billing.ts';
import { eventsOf } from '../helpers/resourceEvents.ts';
import type { TestAccount } from '../helpers/service.ts';
import { useTestService } from '../helpers/testService.ts';
import { addCard } from '../collections/cards.ts';
import { advanceTo, debitAccount, debitCustomer, plusDays } from '../batches/fixtures.ts';
import { midnightUtc } from '../helpers/clock.ts';

/**
 * Subscriptions that start when paid (docs/subscriptions.md, "Subscriptions that start when paid"), over HTTP and
 * the test clock: a card the bank wants confirmed, paid through the pay page's 3-D Secure challenge; one left
 * unpaid, which expires with its invoice cancelled; one collected by a debit order, active once the debit settles.
 */

const t = useTestService();

/** docs/gateways.md, "The test gateway's cards": asks for the cardholder's authentication on every sale. */
const NEEDS_AUTHENTICATION = '4000002500003155';

/** A test account in UTC whose clock stands at midnight of its tomorrow (`today`); its test gateway. */
async function cardAccount(): Promise<{ account: TestAccount; today: string; gatewayId: number }> {
  const account = await t.newAccount('Roastery', { isTest: true, timeZone: 'UTC' });
  const today = plusDays(((await ok(account, 'GET', '/v1/account')).TestClockDate as string).slice(0, 10), 1);
  await ok(account, 'POST', '/v1/test-clock/advance', { To: `${today}T00:00:00.000Z` }, 200);
  const gatewayId = (await ok(account, 'GET', '/v1/gateways'))[0].gatewayID as number;
  return { account, today, gatewayId };
}

const startWhenPaid = (
  account: TestAccount,
  customerId: number,
  plan: { packageId: number; rateTermId: number },
) =>
  ok(account, 'POST', '/v1/subscriptions', {
    customerID: customerId,
    packageID: plan.packageId,
    packageRateTermID: plan.rateTermId,
    ActivateOnPayment: true,
  });

const readSubscription = (account: TestAccount, id: number) => ok(account, 'GET', `/v1/subscriptions/${id}`);
const post = (url: string, body: unknown) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

describe('a subscription that starts when paid', () => {
  it('paid through the pay page with 3-D Secure: Incomplete until the challenge is approved, then Active', async () => {
    const { account, today, gatewayId } = await cardAccount();
    const customerId = await createCustomer(account, {
      PaymentMethod: 'credit_card',
      PrimaryGatewayID: gatewayId,
    });
    await addCard(account, customerId, NEEDS_AUTHENTICATION);
    const plan = await createPlan(account, { chargePrice: 30 });

    const created = await startWhenPaid(account, customerId, plan);
    expect(created).toMatchObject({
      comp_Status: 'Incomplete',
      StartDate: midnightUtc(today),
      IncompleteExpiryDate: midnightUtc(plusDays(today, 1)),
      ActivationDate: null,
    });
    const id = created.subscriptionID as number;
    // Issued at once: one month of 30.00 from today.
    const [invoice] = await invoicesOf(account, customerId);
    expect(invoice).toMatchObject({ Balance: 30, isCancelled: false });

    // The day's run charges the card off session; the bank wants the cardholder, so nothing is taken.
    await advanceTo(account, today);
    expect((await readSubscription(account, id)).comp_Status).toBe('Incomplete');
    const payments = await ok(account, 'GET', `/v1/customers/${customerId}/payments`);
    expect(payments[0]).toMatchObject({ FailureReason: 'authentication_required' });

    // The pay page's "Confirm payment" asks the bank again; the challenge approved, the invoice is paid.
    const link = `${t.url}/pay/${signPayLinkToken(t.service.secrets, {
      accountId: account.accountId,
      invoiceId: invoice.invoiceID,
      expiresAt: new Date(
        Math.floor(Date.parse(`${plusDays(today, 7)}T00:00:00Z`) / 1000) * 1000,
      ).toISOString(),
    })}`;
    const html = await (await fetch(link)).text();
    // The page says what paying it starts.
    expect(html).toContain(
      `Paying this invoice starts your subscription to ${plan.name}, from the day it is paid. If it is still ` +
        `unpaid on ${longDate(plusDays(today, 1))}, the subscription and this invoice are cancelled.`,
    );
    const session = /id="confirm"[^>]*data-session="([0-9a-f]{64})"/.exec(html)![1]!;
    const confirmed = await post(`${link}/confirm`, { session });
    expect(confirmed.status).toBe(200);
    const { challenge } = (await confirmed.json()) as { challenge: { id: string } };
    const approved = await post(`${t.url}/widget/capture/${session}/challenge`, {
      challengeId: challenge.id,
      outcome: 'approve',
    });
    expect(approved.status).toBe(200);
    expect((await post(`${link}/complete`, { session, way: 'confirm' })).status).toBe(200);

    expect(await ok(account, 'GET', `/v1/invoices/${invoice.invoiceID}`)).toMatchObject({ Status: 'Paid' });
    expect(await readSubscription(account, id)).toMatchObject({
      comp_Status: 'Active',
      ActivationDate: midnightUtc(today),
    });
    const types = (await eventsOf(account, 'subscription', id)).map((e) => e.type);
    expect(types).toEqual([
      'subscription.created',
      'subscription.incomplete',
      // The bill run's event of the first period billed, at once.
      'subscription.renewed',
      'subscription.activated',
    ]);

    // Past its expiry day it stays active, and the next month is billed as any renewal: 30.00 more.
    await advanceTo(account, plusDays(today, 2));
    expect((await readSubscription(account, id)).comp_Status).toBe('Active');
    const renewal = (await readSubscription(account, id)).nextRenewDate.slice(0, 10) as string;
    await advanceTo(account, renewal);
    const invoices = await invoicesOf(account, customerId);
    expect(invoices.map((i) => [i.Total, i.isCancelled])).toEqual([
      [30, false],
      [30, false],
    ]);
  });

  it('left unpaid: IncompleteExpired on its expiry day, its invoice cancelled, nothing more billed', async () => {
    const { account, today } = await cardAccount();
    const customerId = await createCustomer(account);
    const plan = await createPlan(account, { chargePrice: 30 });
    const id = (await startWhenPaid(account, customerId, plan)).subscriptionID as number;
    const [invoice] = await invoicesOf(account, customerId);

    // Unpaid the whole of its creation day.
    await advanceTo(account, today);
    expect((await readSubscription(account, id)).comp_Status).toBe('Incomplete');
    await advanceTo(account, plusDays(today, 1));
    expect(await readSubscription(account, id)).toMatchObject({
      comp_Status: 'IncompleteExpired',
      ActivationDate: null,
      comp_nextInvDate: null,
    });
    expect(await ok(account, 'GET', `/v1/invoices/${invoice.invoiceID}`)).toMatchObject({
      isCancelled: true,
      Status: 'Cancelled',
    });
    const types = (await eventsOf(account, 'subscription', id)).map((e) => e.type);
    expect(types).toEqual([
      'subscription.created',
      'subscription.incomplete',
      'subscription.renewed',
      'subscription.incomplete_expired',
    ]);

    // Two months on, nothing more was billed; it cannot be reactivated nor changed.
    await advanceTo(account, plusDays(today, 62));
    expect(await invoicesOf(account, customerId)).toHaveLength(1);
    const reactivate = await account.request('PUT', `/v1/subscriptions/${id}/reactivate`, { body: {} });
    expect(reactivate.status, reactivate.text).toBe(409);
  });

  it('collected by a debit order: Incomplete while the debit is pending, Active the day it settles', async () => {
    const setup = await debitAccount(t, 'ZAR');
    const { account, today } = setup;
    const { customerId } = await debitCustomer(setup, 'debit_order', undefined, { followsCustomer: true });
    await ok(account, 'PUT', `/v1/customers/${customerId}`, {
      PaymentMethod: 'debit_order',
      PrimaryGatewayID: setup.gatewayId,
    });
    const plan = await createPlan(account, { chargePrice: 250, currency: 'ZAR' });
    const actionDate = onBusinessDay(earliestActionDate('debit_order', today), 'debit_order');
    const settledOn = plusDays(returnWindowEnd('debit_order', actionDate), 1);

    const created = await startWhenPaid(account, customerId, plan);
    // A debit order cannot be paid before its return window passes: the expiry waits for it.
    expect(created).toMatchObject({
      comp_Status: 'Incomplete',
      IncompleteExpiryDate: midnightUtc(settledOn),
    });
    const id = created.subscriptionID as number;

    await advanceTo(account, today);
    const [open] = (await ok(account, 'GET', '/v1/batches')).filter((b: any) => b.State === 'open');
    expect(open).toMatchObject({ NumberOfPayments: 1, PaymentsTotal: '250.00' });
    await ok(account, 'PUT', '/v1/batches/submit', { BatchToken: open.BatchToken, ActionDate: actionDate });
    await advanceTo(account, plusDays(settledOn, -1));
    expect((await readSubscription(account, id)).comp_Status).toBe('Incomplete');

    // The day the return window has passed the debit settles, before the day's expiry step looks at it.
    await advanceTo(account, settledOn);
    expect((await ok(account, 'GET', `/v1/batches/${open.BatchToken}`)).State).toBe('processed');
    expect((await invoicesOf(account, customerId))[0]).toMatchObject({ Status: 'Paid' });
    expect(await readSubscription(account, id)).toMatchObject({
      comp_Status: 'Active',
      ActivationDate: midnightUtc(settledOn),
    });
    const types = (await eventsOf(account, 'subscription', id)).map((e) => e.type);
    expect(types).toEqual([
      'subscription.created',
      'subscription.incomplete',
      // The bill run's event of the first period billed, at once.
      'subscription.renewed',
      'subscription.activated',
    ]);
  });

  it('collected by a debit order submitted late: not expired while the debit is pending, Active once it settles', async () => {
    const setup = await debitAccount(t, 'ZAR');
    const { account, today } = setup;
    const { customerId } = await debitCustomer(setup, 'debit_order', undefined, { followsCustomer: true });
    await ok(account, 'PUT', `/v1/customers/${customerId}`, {
      PaymentMethod: 'debit_order',
      PrimaryGatewayID: setup.gatewayId,
    });
    const plan = await createPlan(account, { chargePrice: 250, currency: 'ZAR' });
    const created = await startWhenPaid(account, customerId, plan);
    const id = created.subscriptionID as number;
    const expiresOn = (created.IncompleteExpiryDate as string).slice(0, 10);

    // Bundled the first day, the batch is left unsubmitted past the expiry day: the debit is still pending on the
    // invoice (250.00), so the money decides and nothing is cancelled.
    await advanceTo(account, today);
    const [open] = (await ok(account, 'GET', '/v1/batches')).filter((b: any) => b.State === 'open');
    await advanceTo(account, plusDays(expiresOn, 1));
    expect((await readSubscription(account, id)).comp_Status).toBe('Incomplete');
    expect((await invoicesOf(account, customerId))[0]).toMatchObject({
      isCancelled: false,
      TotalPendingPaid: 250,
    });

    // Submitted now, it settles once its own return window has passed, and the subscription starts that day.
    const lateDay = plusDays(expiresOn, 1);
    const actionDate = onBusinessDay(earliestActionDate('debit_order', lateDay), 'debit_order');
    await ok(account, 'PUT', '/v1/batches/submit', { BatchToken: open.BatchToken, ActionDate: actionDate });
    const settledOn = plusDays(returnWindowEnd('debit_order', actionDate), 1);
    await advanceTo(account, settledOn);
    expect((await invoicesOf(account, customerId))[0]).toMatchObject({ Status: 'Paid' });
    expect(await readSubscription(account, id)).toMatchObject({
      comp_Status: 'Active',
      ActivationDate: midnightUtc(settledOn),
    });
  });

  it('with a later StartDate: Future once paid, Active on its StartDate', async () => {
    const { account, today } = await cardAccount();
    const customerId = await createCustomer(account);
    const plan = await createPlan(account, { chargePrice: 30 });
    const startDate = plusDays(today, 3);
    const created = await ok(account, 'POST', '/v1/subscriptions', {
      customerID: customerId,
      packageID: plan.packageId,
      packageRateTermID: plan.rateTermId,
      StartDate: startDate,
      numDaysBeforeToInv: 3,
      ActivateOnPayment: true,
    });
    const id = created.subscriptionID as number;
    // Issued today all the same, three days before its period starts.
    const [invoice] = await invoicesOf(account, customerId);
    expect(invoice).toMatchObject({ InvoiceDate: midnightUtc(today), Total: 30 });
    await ok(account, 'POST', '/v1/payments', {
      customerID: customerId,
      Amount: 30,
      CurrencyCode: 'USD',
      Date: today,
      Method: 'eft',
      AutoApply: true,
    });
    expect(await readSubscription(account, id)).toMatchObject({
      comp_Status: 'Future',
      ActivationDate: midnightUtc(today),
    });
    await advanceTo(account, startDate);
    expect((await readSubscription(account, id)).comp_Status).toBe('Active');
    const types = (await eventsOf(account, 'subscription', id)).map((e) => e.type);
    expect(types).toEqual([
      'subscription.created',
      'subscription.incomplete',
      'subscription.renewed',
      // Paid: Incomplete to Future.
      'subscription.updated',
      // Its StartDate came (the bill run of that day).
      'subscription.activated',
    ]);
  });

  it('refuses a backdated start and a rate term with a trial (422, naming the field)', async () => {
    const { account, today } = await cardAccount();
    const customerId = await createCustomer(account);
    const plan = await createPlan(account, { chargePrice: 30 });
    const backdated = await account.request('POST', '/v1/subscriptions', {
      body: {
        customerID: customerId,
        packageID: plan.packageId,
        packageRateTermID: plan.rateTermId,
        StartDate: midnightUtc(plusDays(today, -3)),
        ActivateOnPayment: true,
      },
    });
    expect(backdated.status, backdated.text).toBe(422);
    expect(backdated.body.fields.map((f: { field: string }) => f.field)).toEqual(['StartDate']);
    const trial = await createPlan(account, { chargePrice: 30, trialPeriod: 7 });
    const withTrial = await account.request('POST', '/v1/subscriptions', {
      body: {
        customerID: customerId,
        packageID: trial.packageId,
        packageRateTermID: trial.rateTermId,
        ActivateOnPayment: true,
      },
    });
    expect(withTrial.status, withTrial.text).toBe(422);
    expect(withTrial.body.fields.map((f: { field: string }) => f.field)).toEqual(['ActivateOnPayment']);
  });
});
