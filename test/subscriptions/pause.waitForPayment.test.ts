import { describe, expect, it } from 'vitest';
import type { TestAccount } from '../helpers/service.ts';
import { createCustomer, createPlan, invoicesOf, movableClock, ok, subscribe } from '../helpers/billing.ts';
import { eventsOf } from '../helpers/resourceEvents.ts';
import { useTestService } from '../helpers/testService.ts';
import { addCard } from '../collections/cards.ts';
import { advanceToDay } from '../helpers/clock.ts';

// A resume that waits for its invoice to be paid (docs/subscriptions.md, "Resuming when paid"; Stripe's
// resume_on_payment_success), over HTTP on test accounts in UTC whose clock is moved. The resumption invoice is
// issued on the resume day as any; the subscription stays Paused until a payment makes it Paid, and resumes that
// day; unpaid on ResumePayByDate (the day after the resume day for a card or a manual payer, the expiry rule of a
// subscription that starts when paid) the invoice is cancelled and the subscription stays paused until resumed.
// Every invoice is computed by hand in the comment beside it.

const clock = movableClock('2026-01-01T10:00:00.000Z');
const t = useTestService({ clock });

const day = (wire: string | null | undefined) => (wire ? wire.slice(0, 10) : null);

/** A fresh test account on 1 January 2026, a plan at 30.00 a month with an SSO feature, a customer, subscribed. */
async function subscribed(customer: Record<string, unknown> = {}, card = false) {
  clock.set('2026-01-01T10:00:00.000Z');
  const as = await t.newAccount('Resume when paid', { isTest: true, timeZone: 'UTC' });
  const plan = await createPlan(as, { chargePrice: 30 });
  const feature = await ok(as, 'POST', '/v1/features', { Code: 'sso', Name: 'SSO', Type: 'boolean' });
  const set = await as.request('PUT', `/v1/packages/${plan.packageId}/features/${feature.Code}`, {
    body: { Enabled: true },
  });
  expect(set.status, set.text).toBe(200);
  let customerId: number;
  if (card) {
    const gatewayId = (await ok(as, 'GET', '/v1/gateways'))[0].gatewayID as number;
    customerId = await createCustomer(as, { PaymentMethod: 'credit_card', PrimaryGatewayID: gatewayId });
    await addCard(as, customerId, '4242424242424242');
  } else {
    customerId = await createCustomer(as, customer);
  }
  const id = (await subscribe(as, customerId, plan, {})).subscriptionID as number;
  const path = `/v1/subscriptions/${id}`;
  const allowed = async () =>
    (await ok(as, 'GET', `/v1/customers/${customerId}/entitlements/sso`)).Allowed as boolean;
  return { as, customerId, id, path, allowed };
}

const invoiceFigures = async (as: TestAccount, customerId: number) =>
  (await invoicesOf(as, customerId)).map((i) => [day(i.InvoiceDate), i.Total, i.Balance, i.isCancelled]);
const stateOf = async (as: TestAccount, path: string) => {
  const s = await ok(as, 'GET', path);
  return {
    status: s.comp_Status,
    resume: day(s.ResumeDate),
    waits: s.ResumeWaitsForPayment ?? false,
    payBy: day(s.ResumePayByDate),
    paid: day(s.ResumePaidDate),
  };
};
const pauseEvents = async (as: TestAccount, id: number) =>
  (await eventsOf(as, 'subscription', id))
    .filter((e) =>
      ['subscription.paused', 'subscription.resumed', 'subscription.resume_expired'].includes(e.type),
    )
    .map((e) => [e.type, e.data.object.comp_Status]);
/** A payment recorded by hand (an EFT), allocated to one invoice. */
const recordPayment = (as: TestAccount, customerId: number, invoiceId: number, amount: number, on: string) =>
  ok(as, 'POST', '/v1/payments', {
    customerID: customerId,
    Amount: amount,
    CurrencyCode: 'USD',
    Date: on,
    Method: 'eft',
    Allocations: [{ invoiceID: invoiceId, amountApplied: amount }],
  });

describe('a resume that waits for its invoice to be paid', () => {
  it('resumed now, paid by a recorded payment: Paused until paid, then Active from that day', async () => {
    const { as, customerId, id, path, allowed } = await subscribed();
    // Jan 1 – Feb 1 invoiced on Jan 1 (30.00); Credit none: served to its end, the pause starts on Feb 1.
    await advanceToDay(as, '2026-01-16');
    await ok(as, 'PUT', `${path}/pause`, {});
    await advanceToDay(as, '2026-04-20');

    const preview = await ok(as, 'PUT', `${path}/resume?preview=true`, { WaitForPayment: true }, 200);
    // The resumption: a new cycle from Apr 20, Apr 20 – May 20 at 30.00; still Paused until paid by Apr 21.
    expect(preview.Invoices.map((i: any) => [day(i.InvoiceDate), i.Total])).toEqual([['2026-04-20', 30]]);
    expect([preview.comp_Status, day(preview.ResumePayByDate)]).toEqual(['Paused', '2026-04-21']);
    expect(await invoiceFigures(as, customerId)).toEqual([['2026-01-01', 30, 30, false]]);

    await ok(as, 'PUT', `${path}/resume`, { WaitForPayment: true });
    expect(await stateOf(as, path)).toEqual({
      status: 'Paused',
      resume: '2026-04-20',
      waits: true,
      payBy: '2026-04-21',
      paid: null,
    });
    expect(await allowed()).toBe(false);
    const invoices = await invoicesOf(as, customerId);
    expect(await invoiceFigures(as, customerId)).toEqual([
      ['2026-01-01', 30, 30, false],
      ['2026-04-20', 30, 30, false],
    ]);
    // Waiting: a second resume is refused, as are a pause and a change.
    const again = await as.request('PUT', `${path}/resume`, { body: {} });
    expect([again.status, again.body.code], again.text).toEqual([409, 'subscription_awaiting_payment']);
    const pause = await as.request('PUT', `${path}/pause`, { body: {} });
    expect([pause.status, pause.body.code], pause.text).toEqual([409, 'subscription_paused']);
    expect(await pauseEvents(as, id)).toEqual([['subscription.paused', 'Paused']]);

    // The customer pays the 30.00 by EFT the same day: the invoice is Paid and the subscription resumes.
    await recordPayment(as, customerId, invoices[1].invoiceID, 30, '2026-04-20');
    expect(await stateOf(as, path)).toEqual({
      status: 'Active',
      resume: '2026-04-20',
      waits: true,
      payBy: '2026-04-21',
      paid: '2026-04-20',
    });
    expect(await allowed()).toBe(true);
    expect(await pauseEvents(as, id)).toEqual([
      ['subscription.paused', 'Paused'],
      ['subscription.resumed', 'Active'],
    ]);
    // Past the pay-by day nothing is voided; May 20 – Jun 20 is the next month on the new cycle, 30.00.
    await advanceToDay(as, '2026-05-20');
    expect(await invoiceFigures(as, customerId)).toEqual([
      ['2026-01-01', 30, 30, false],
      ['2026-04-20', 30, 0, false],
      ['2026-05-20', 30, 30, false],
    ]);
    // The bill run's days did not announce the resume a second time.
    expect((await pauseEvents(as, id)).length).toBe(2);
  });

  it('left unpaid: the invoice is voided on its pay-by day, still Paused, nothing more billed', async () => {
    const { as, customerId, id, path, allowed } = await subscribed();
    await advanceToDay(as, '2026-01-16');
    await ok(as, 'PUT', `${path}/pause`, {});
    await advanceToDay(as, '2026-04-20');
    await ok(as, 'PUT', `${path}/resume`, { WaitForPayment: true });
    // Apr 20 – May 20, 30.00, issued and unpaid.
    expect(await invoiceFigures(as, customerId)).toEqual([
      ['2026-01-01', 30, 30, false],
      ['2026-04-20', 30, 30, false],
    ]);
    // The bill run of Apr 21 (ResumePayByDate) cancels it (a cancelled invoice keeps its Balance as issued); the subscription stays paused, with no resume date.
    await advanceToDay(as, '2026-04-21');
    expect(await stateOf(as, path)).toEqual({
      status: 'Paused',
      resume: null,
      waits: false,
      payBy: null,
      paid: null,
    });
    expect(await invoiceFigures(as, customerId)).toEqual([
      ['2026-01-01', 30, 30, false],
      ['2026-04-20', 30, 30, true],
    ]);
    expect(await allowed()).toBe(false);
    expect(await pauseEvents(as, id)).toEqual([
      ['subscription.paused', 'Paused'],
      ['subscription.resume_expired', 'Paused'],
    ]);
    // Paused indefinitely: nothing for May or June, no upcoming invoice.
    await advanceToDay(as, '2026-07-01');
    expect((await invoicesOf(as, customerId)).length).toBe(2);
    expect((await as.request('GET', `${path}/upcoming-invoice`)).status).toBe(404);
    expect((await stateOf(as, path)).status).toBe('Paused');
    // Resumed again (not waiting): a new cycle from Jul 1, Jul 1 – Aug 1 at 30.00; the voided month is not credited.
    await ok(as, 'PUT', `${path}/resume`, {});
    expect(await invoiceFigures(as, customerId)).toEqual([
      ['2026-01-01', 30, 30, false],
      ['2026-04-20', 30, 30, true],
      ['2026-07-01', 30, 30, false],
    ]);
    expect(await stateOf(as, path)).toMatchObject({ status: 'Active', resume: '2026-07-01', waits: false });
    expect(await allowed()).toBe(true);
  });

  it('a dated resume through the bill run, paid by card: Paused until the day’s charge, then Active', async () => {
    const { as, customerId, id, path, allowed } = await subscribed({}, true);
    await advanceToDay(as, '2026-01-16');
    await ok(as, 'PUT', `${path}/pause`, {});
    await advanceToDay(as, '2026-02-10');
    await ok(as, 'PUT', `${path}/resume`, { ResumeDate: '2026-05-01', WaitForPayment: true });
    // Scheduled: paused until then, its pay-by day the day after.
    expect(await stateOf(as, path)).toEqual({
      status: 'Paused',
      resume: '2026-05-01',
      waits: true,
      payBy: '2026-05-02',
      paid: null,
    });
    // The bill run of May 1 issues May 1 – Jun 1 at 30.00 and the same day's collection charges the card: Paid.
    await advanceToDay(as, '2026-05-01');
    const figures = await invoiceFigures(as, customerId);
    expect(figures.map(([date, total, , cancelled]) => [date, total, cancelled])).toEqual([
      ['2026-01-01', 30, false],
      ['2026-05-01', 30, false],
    ]);
    expect(figures[1]![2]).toBe(0);
    expect(await stateOf(as, path)).toEqual({
      status: 'Active',
      resume: '2026-05-01',
      waits: true,
      payBy: '2026-05-02',
      paid: '2026-05-01',
    });
    expect(await allowed()).toBe(true);
    // Then Jun 1 – Jul 1, 30.00, charged the same way.
    await advanceToDay(as, '2026-06-01');
    expect(
      (await invoiceFigures(as, customerId)).map(([date, total, balance]) => [date, total, balance]),
    ).toEqual([
      ['2026-01-01', 30, 0],
      ['2026-05-01', 30, 0],
      ['2026-06-01', 30, 0],
    ]);
    expect(await pauseEvents(as, id)).toEqual([
      ['subscription.paused', 'Paused'],
      ['subscription.resumed', 'Active'],
    ]);
  });

  it('a dated resume through the bill run left unpaid: voided the next day, no more invoices', async () => {
    const { as, customerId, path, allowed } = await subscribed();
    await advanceToDay(as, '2026-01-16');
    await ok(as, 'PUT', `${path}/pause`, { ResumeDate: '2026-05-01' });
    await advanceToDay(as, '2026-02-10');
    // The dated resume made to wait for its payment.
    await ok(as, 'PUT', `${path}/resume`, { ResumeDate: '2026-05-01', WaitForPayment: true });
    // The bill run of May 1 issues May 1 – Jun 1 at 30.00: unpaid, the subscription is still Paused.
    await advanceToDay(as, '2026-05-01');
    expect(await stateOf(as, path)).toMatchObject({ status: 'Paused', resume: '2026-05-01', paid: null });
    expect(await allowed()).toBe(false);
    expect(await invoiceFigures(as, customerId)).toEqual([
      ['2026-01-01', 30, 30, false],
      ['2026-05-01', 30, 30, false],
    ]);
    // May 2: voided; June's renewal is never billed.
    await advanceToDay(as, '2026-06-15');
    expect(await invoiceFigures(as, customerId)).toEqual([
      ['2026-01-01', 30, 30, false],
      ['2026-05-01', 30, 30, true],
    ]);
    expect(await stateOf(as, path)).toMatchObject({ status: 'Paused', resume: null });
  });
});
