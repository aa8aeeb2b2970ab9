import { describe, expect, it } from 'vitest';
import { runBilling } from '../../src/billing/billRun.ts';
import { systemClock } from '../../src/clock.ts';
import { EVENT_BATCH_SIZE } from '../../src/modules/events/index.ts';
import { createCustomer, createPlan, ok, subscribe } from '../helpers/billing.ts';
import type { TestAccount } from '../helpers/service.ts';
import { eventsOf, read } from '../helpers/resourceEvents.ts';
import { useTestService } from '../helpers/testService.ts';
import { advanceClock, midnightUtc, plusDays } from '../helpers/clock.ts';
import { modulePorts } from '../../src/modulePorts.ts';

// Status moves that happen by the passage of time, emitted once by the bill run of the day they happen, on a test
// account's clock: never the day before, never twice, whatever runs again (test-clock moves, `billing run`).

const t = useTestService();

/** A test account in a zone ahead of UTC, so that "the day" is the account's, not UTC's. */
async function clockedAccount(name: string) {
  const account = await t.newAccount(name, { isTest: true, timeZone: 'Pacific/Auckland' });
  const clock = (await read(account, '/v1/account')).TestClockDate as string;
  const today = new Intl.DateTimeFormat('en-CA', { timeZone: 'Pacific/Auckland' }).format(new Date(clock));
  return { account, today };
}

/** Moves the clock to midnight UTC of a calendar date: late morning of that date in Auckland (UTC+12 or +13). */
async function advance(account: TestAccount, date: string) {
  await advanceClock(account, midnightUtc(date));
}

async function typesOf(account: TestAccount, type: string, id: number) {
  return (await eventsOf(account, type, id)).map((event) => event.type);
}

/** Runs the bill run again for the account, as the worker or `billing run` would. */
async function billAgain(account: TestAccount) {
  await runBilling(
    {
      ports: modulePorts(),
      db: t.service.storage.db,
      clock: systemClock,
      wallClock: systemClock,
      log: t.service.log,
      secrets: t.service.secrets,
      mailQueued: () => {},
    },
    { accountId: account.accountId },
  );
}

describe('invoice.past_due', () => {
  it('is emitted once, on the day after the due date in the account’s zone, with previous Status Due', async () => {
    const { account, today } = await clockedAccount('Past due');
    // Reminders (docs/gateways.md, "The collection loop") have events of their own: none here, to read past_due's.
    await ok(account, 'PUT', '/v1/account', { InvoiceReminderDays: [] }, 204);
    const customerID = await createCustomer(account);
    const dueDate = plusDays(today, 2);
    const owed = await ok(account, 'POST', '/v1/invoices', {
      customerID,
      DueDate: dueDate,
      Charges: [{ Descrip: 'Work', Qty: 1, UnitCostEx: 100 }],
    });
    const settled = await ok(account, 'POST', '/v1/invoices', {
      customerID,
      DueDate: dueDate,
      Charges: [{ Descrip: 'Paid work', Qty: 1, UnitCostEx: 10 }],
    });
    await ok(account, 'POST', '/v1/payments', {
      customerID,
      Amount: 10,
      CurrencyCode: 'USD',
      Date: today,
      Method: 'cash',
      allocations: [{ invoiceID: settled.invoiceID, amountApplied: 10 }],
    });

    await advance(account, dueDate);
    expect(await typesOf(account, 'invoice', owed.invoiceID)).toEqual(['invoice.created']);

    const dayAfter = plusDays(dueDate, 1);
    await advance(account, dayAfter);
    const object = await read(account, `/v1/invoices/${owed.invoiceID}`);
    expect(object.Status).toBe('Past Due');
    const events = await eventsOf(account, 'invoice', owed.invoiceID);
    expect(events.map((e) => e.type)).toEqual(['invoice.created', 'invoice.past_due']);
    expect(events[1]!.data).toEqual({ object, previous: { Status: 'Due' } });
    expect(events[1]!.resource.version).toBe(2);
    expect(events[1]!.timestamp).toBe(midnightUtc(dayAfter));

    await billAgain(account);
    await advance(account, plusDays(dueDate, 5));
    await billAgain(account);
    expect(await typesOf(account, 'invoice', owed.invoiceID)).toEqual([
      'invoice.created',
      'invoice.past_due',
    ]);
    expect(await typesOf(account, 'invoice', settled.invoiceID)).toEqual(['invoice.created', 'invoice.paid']);
  });
});

/** Every event of the type, all pages. */
async function allOfType(account: TestAccount, type: string) {
  const events: { resource: { id: number } }[] = [];
  for (let page = 1; ; page++) {
    const batch = await read(account, `/v1/events?type=${type}&page_size=100&page=${page}`);
    events.push(...batch);
    if (batch.length < 100) return events;
  }
}

describe('a day with more moves than one batch', () => {
  it('announces each once, in batches, however often the day is run again', async () => {
    const { account, today } = await clockedAccount('Many past due');
    const customerID = await createCustomer(account);
    const dueDate = plusDays(today, 1);
    const ids: number[] = [];
    for (let i = 0; i < EVENT_BATCH_SIZE + 7; i++) {
      const created = await ok(account, 'POST', '/v1/invoices', {
        customerID,
        DueDate: dueDate,
        Charges: [{ Descrip: `Work ${i}`, Qty: 1, UnitCostEx: 10 }],
      });
      ids.push(created.invoiceID as number);
    }

    expect(ids.length).toBeGreaterThan(EVENT_BATCH_SIZE);

    const announced = async () =>
      (await allOfType(account, 'invoice.past_due')).map((event) => event.resource.id).sort((a, b) => a - b);
    // The clock's move runs the day's bill run once: every batch of it.
    await advance(account, plusDays(dueDate, 1));
    expect(await announced()).toEqual(ids);
    await billAgain(account);
    expect(await announced()).toEqual(ids);
  });
});

describe('subscription moves by time', () => {
  it('warn three days before the trial ends, then announce the activation, each once', async () => {
    const { account, today } = await clockedAccount('Trial end');
    const plan = await createPlan(account, { trialPeriod: 10, trialPeriodType: 'days' });
    const customerId = await createCustomer(account);
    const sub = await subscribe(account, customerId, plan, { StartDate: today });
    const id = sub.subscriptionID as number;
    const trialEnd = plusDays(today, 10);

    await advance(account, plusDays(trialEnd, -4));
    expect(await typesOf(account, 'subscription', id)).not.toContain('subscription.trial_will_end');
    await advance(account, plusDays(trialEnd, -3));
    let events = await eventsOf(account, 'subscription', id);
    const warning = events.filter((e) => e.type === 'subscription.trial_will_end');
    expect(warning).toHaveLength(1);
    expect(warning[0]!.data.object).toEqual(await read(account, `/v1/subscriptions/${id}`));
    expect(warning[0]!.timestamp).toBe(midnightUtc(plusDays(trialEnd, -3)));

    await advance(account, plusDays(trialEnd, -1));
    expect(await typesOf(account, 'subscription', id)).not.toContain('subscription.activated');
    await advance(account, trialEnd);
    await billAgain(account);
    await advance(account, plusDays(trialEnd, 2));
    events = await eventsOf(account, 'subscription', id);
    expect(events.filter((e) => e.type === 'subscription.trial_will_end')).toHaveLength(1);
    const activated = events.filter((e) => e.type === 'subscription.activated');
    expect(activated).toHaveLength(1);
    expect(activated[0]!.data.previous).toEqual({ comp_Status: 'Trial' });
    expect(activated[0]!.data.object.comp_Status).toBe('Active');
    expect(activated[0]!.timestamp).toBe(midnightUtc(trialEnd));
    events.forEach((event, i) => expect(event.resource.version).toBe(i + 1));
  });

  it('announce a future start, an end date reached and a cancellation at the end of the term', async () => {
    const { account, today } = await clockedAccount('Subscription ends');
    const plan = await createPlan(account);
    const customerId = await createCustomer(account);
    const start = plusDays(today, 5);
    const future = await subscribe(account, customerId, plan, { StartDate: start });
    const ending = await subscribe(account, customerId, plan, {
      StartDate: today,
      EndDate: plusDays(today, 20),
    });
    const cancelling = await subscribe(account, customerId, plan, { StartDate: today });
    await ok(account, 'PUT', `/v1/subscriptions/${cancelling.subscriptionID}/cancel/renewal`);
    const cancelDay = (await read(account, `/v1/subscriptions/${cancelling.subscriptionID}`))
      .CancelDate as string;

    await advance(account, plusDays(start, -1));
    expect(await typesOf(account, 'subscription', future.subscriptionID)).toEqual(['subscription.created']);
    await advance(account, start);
    const started = (await eventsOf(account, 'subscription', future.subscriptionID)).filter(
      (e) => e.type === 'subscription.activated',
    );
    expect(started).toHaveLength(1);
    expect(started[0]!.data.previous).toEqual({ comp_Status: 'Future' });

    await advance(account, plusDays(today, 19));
    expect(await typesOf(account, 'subscription', ending.subscriptionID)).not.toContain(
      'subscription.expired',
    );
    await advance(account, plusDays(today, 20));
    const expired = (await eventsOf(account, 'subscription', ending.subscriptionID)).filter(
      (e) => e.type === 'subscription.expired',
    );
    expect(expired).toHaveLength(1);
    expect(expired[0]!.data.previous).toEqual({ comp_Status: 'Active', isExpired: false });
    expect(expired[0]!.data.object).toEqual(
      await read(account, `/v1/subscriptions/${ending.subscriptionID}`),
    );

    const cancelTypes = await typesOf(account, 'subscription', cancelling.subscriptionID);
    expect(cancelTypes).toContain('subscription.future_change_scheduled');
    expect(cancelTypes).not.toContain('subscription.cancelled');
    const cancelDate = new Intl.DateTimeFormat('en-CA', { timeZone: 'Pacific/Auckland' }).format(
      new Date(cancelDay),
    );
    await advance(account, plusDays(cancelDate, 1));
    await billAgain(account);
    const cancelled = (await eventsOf(account, 'subscription', cancelling.subscriptionID)).filter(
      (e) => e.type === 'subscription.cancelled',
    );
    expect(cancelled).toHaveLength(1);
    expect(cancelled[0]!.data.previous).toEqual({ comp_Status: 'Active', isCancelled: false });
    // Reached on a day the clock passed through: the bill run of that day ran at its start, CancelDate itself.
    expect(cancelled[0]!.timestamp).toBe(cancelDay);
  });
});

describe('recurring invoice moves by time', () => {
  it('announce the start of a future one and the end of one, each once', async () => {
    const { account, today } = await clockedAccount('Recurring by time');
    const customerID = await createCustomer(account);
    const body = {
      customerID,
      Term: 1,
      TermType: 'months',
      RecurInvoiceCharges: [{ Descrip: 'Hosting', Qty: 1, UnitCostEx: 10 }],
    };
    const later = await ok(account, 'POST', '/v1/recurring-invoices', {
      ...body,
      StartDate: plusDays(today, 3),
    });
    const ending = await ok(account, 'POST', '/v1/recurring-invoices', {
      ...body,
      StartDate: today,
      EndDate: plusDays(today, 4),
    });
    await advance(account, plusDays(today, 2));
    expect(await typesOf(account, 'recurring_invoice', later.recurInvoiceID)).toEqual([
      'recurring_invoice.created',
    ]);
    await advance(account, plusDays(today, 3));
    await billAgain(account);
    await advance(account, plusDays(today, 6));
    const laterEvents = await eventsOf(account, 'recurring_invoice', later.recurInvoiceID);
    const activated = laterEvents.filter((e) => e.type === 'recurring_invoice.activated');
    expect(activated).toHaveLength(1);
    expect(activated[0]!.data.previous).toEqual({ comp_Status: 'Future' });
    expect(activated[0]!.timestamp).toBe(midnightUtc(plusDays(today, 3)));

    const endingEvents = await eventsOf(account, 'recurring_invoice', ending.recurInvoiceID);
    const expired = endingEvents.filter((e) => e.type === 'recurring_invoice.expired');
    expect(expired).toHaveLength(1);
    expect(expired[0]!.data.previous).toEqual({ comp_Status: 'Active', isExpired: false });
    const endingNow = await read(account, `/v1/recurring-invoices/${ending.recurInvoiceID}`);
    expect(expired[0]!.timestamp).toBe(endingNow.EndDate);
    expect(expired[0]!.data.object).toEqual(endingNow);
  });
});
