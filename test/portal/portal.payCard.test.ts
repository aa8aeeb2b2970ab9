import { describe, expect, it } from 'vitest';
import { ok } from '../helpers/billing.ts';
import { issuedInvoice } from '../helpers/invoices.ts';
import { addCard } from '../collections/cards.ts';
import type { PortalClient } from './fixtures.ts';
import {
  START,
  clock,
  customerWithLogin,
  hiddenFieldsOf,
  invoicePayForm,
  paymentsOf,
  signedIn,
  t,
  usePortalService,
} from './fixtures.ts';
import { testGatewayCharges } from '../helpers/outside.ts';

usePortalService();

// Today is 15 March 2026 (fixtures.ts, START). "Pay with a new card" is a sale in the capture widget's frame: the
// card is charged when the frame submits it, so that is where the invoice is looked at again (docs/portal.md,
// "Paying and payment methods"). Each test pays its own amount, so the gateway's charges of it are its own.

/** The test gateway's charges of this amount (minor units), oldest first. */
const chargesOf = (amountMinor: number) => testGatewayCharges(t, { amountMinor });

/** The pay-with-a-new-card page of the invoice: the frame's HashToken and the page's form. */
async function payCardPage(client: PortalClient, invoiceId: number) {
  const path = `${client.base}invoices/${invoiceId}/pay-card`;
  const page = await client.get(path);
  expect(page.status).toBe(200);
  return {
    path,
    hashToken: /data-hash-token="([0-9a-f]+)"/.exec(page.text)![1]!,
    fields: hiddenFieldsOf(page.text, path),
  };
}

/** The frame's submit of a good card, as the widget's frame posts it. */
const submitCard = (hashToken: string, number = '5555555555554444') =>
  t.request('POST', `/widget/capture/${hashToken}/submit`, {
    auth: false,
    body: { number, expiry: '12/31', securityCode: '123', name: 'Ada Lovelace' },
  });

const payPath = (client: PortalClient, invoiceId: number) => `${client.base}invoices/${invoiceId}/pay`;

describe('paying with a new card looks at the invoice again when the card is submitted', () => {
  it('refuses in words to charge for an invoice paid since its pages were made', async () => {
    // Without the look at submit, both earlier pages charged 123.45 again after the Pay button paid it, and their
    // forms said "Thank you".
    const login = await customerWithLogin();
    await addCard(t, login.customerId, '4242424242424242');
    const invoice = await issuedInvoice(t, {
      customerId: login.customerId,
      amount: '123.45',
      dueDate: '2026-03-31',
    });
    const first = await signedIn(login);
    const second = await signedIn(login);
    const pages = [await payCardPage(first, invoice.invoiceID), await payCardPage(second, invoice.invoiceID)];
    const paid = await first.post(
      payPath(first, invoice.invoiceID),
      await invoicePayForm(first, invoice.invoiceID),
    );
    expect(paid.status).toBe(303);
    expect(await chargesOf(12345)).toHaveLength(1);

    for (const page of pages) {
      const refused = await submitCard(page.hashToken);
      expect(refused.status).toBe(409);
      expect(refused.body.detail).toMatch(/owes nothing now: it was paid meanwhile\. Nothing was charged\./);
    }
    const form = await first.post(pages[0]!.path, pages[0]!.fields);
    expect(form.status).toBe(422);
    expect(form.text).toContain('Nothing was paid');
    expect(form.text).not.toContain('Thank you');
    expect(await chargesOf(12345)).toHaveLength(1);
    expect((await paymentsOf(login.customerId)).map((p) => p.Amount)).toEqual([123.45]);
  });

  it('charges only what the invoice still owes when part of it was paid since the page was made', async () => {
    const login = await customerWithLogin();
    const invoice = await issuedInvoice(t, {
      customerId: login.customerId,
      amount: '101.10',
      dueDate: '2026-03-31',
    });
    const client = await signedIn(login);
    const page = await payCardPage(client, invoice.invoiceID);
    await ok(t, 'POST', '/v1/payments', {
      customerID: login.customerId,
      Amount: 60,
      CurrencyCode: 'USD',
      Date: '2026-03-15',
      Method: 'eft',
      AutoApply: true,
    });

    expect((await submitCard(page.hashToken)).status).toBe(200);
    const done = await client.post(page.path, page.fields);
    expect(done.status).toBe(303);
    // 101.10 − 60.00 = 41.10 charged, not the 101.10 the page was made with.
    expect(await chargesOf(10110)).toEqual([]);
    expect(await chargesOf(4110)).toHaveLength(1);
    const receipt = await client.get(done.headers.get('location')!);
    expect(receipt.text).toContain('USD 41.10');
    const card = (await paymentsOf(login.customerId)).find((p) => p.Method === 'credit_card');
    expect(card).toMatchObject({
      Amount: 41.1,
      Allocations: [expect.objectContaining({ invoiceID: invoice.invoiceID, amountApplied: 41.1 })],
    });
    expect(await ok(t, 'GET', `/v1/invoices/${invoice.invoiceID}`)).toMatchObject({
      Status: 'Paid',
      Balance: 0,
    });
  });

  it('charges nothing while the Pay button’s charge of the invoice is in flight', async () => {
    // The test gateway's card 4000000000000408 makes the charge and loses its answer: it stays in flight.
    const login = await customerWithLogin();
    await addCard(t, login.customerId, '4000000000000408');
    const invoice = await issuedInvoice(t, {
      customerId: login.customerId,
      amount: '77.31',
      dueDate: '2026-03-31',
    });
    const client = await signedIn(login);
    const page = await payCardPage(client, invoice.invoiceID);
    const unanswered = await client.post(
      payPath(client, invoice.invoiceID),
      await invoicePayForm(client, invoice.invoiceID),
    );
    expect(unanswered.status).toBe(502);

    const refused = await submitCard(page.hashToken);
    expect(refused.status).toBe(409);
    expect(refused.body.detail).toContain(
      'A payment of this invoice is already being made. Nothing was charged',
    );
    expect(await chargesOf(7731)).toHaveLength(1);
  });

  it('records a new card’s sale when the frame charges it, so the Pay button after it charges nothing', async () => {
    const login = await customerWithLogin();
    await addCard(t, login.customerId, '4242424242424242');
    const invoice = await issuedInvoice(t, {
      customerId: login.customerId,
      amount: '58.02',
      dueDate: '2026-03-31',
    });
    const client = await signedIn(login);
    const page = await payCardPage(client, invoice.invoiceID);
    const payForm = await invoicePayForm(client, invoice.invoiceID);
    // The frame charged the new card; the page has not sent its form yet, and may never (a tab closed): the sale is
    // recorded already (docs/hosted-pages.md, "When the browser never comes back").
    expect((await submitCard(page.hashToken)).status).toBe(200);
    expect(await ok(t, 'GET', `/v1/invoices/${invoice.invoiceID}`)).toMatchObject({ Status: 'Paid' });

    const after = await client.post(payPath(client, invoice.invoiceID), payForm);
    expect(after.status).toBe(303);
    expect(await chargesOf(5802)).toHaveLength(1);

    expect((await client.post(page.path, page.fields)).status).toBe(303);
    expect((await paymentsOf(login.customerId)).map((p) => p.Amount)).toEqual([58.02]);
    expect(await ok(t, 'GET', `/v1/invoices/${invoice.invoiceID}`)).toMatchObject({ Status: 'Paid' });
  });
});

describe('a page loaded again reuses its capture session', () => {
  /** The capture sessions made for the customer's pages, as their `capture_session.created` events show them. */
  const sessionsMadeFor = async (customerId: number) =>
    (await ok(t, 'GET', '/v1/events?type=capture_session.created&page_size=200')).filter(
      (event: any) => event.data.object.ExtRef === `portal:customer:${customerId}`,
    );

  it('makes one session per purpose however often the pages load, and a new one near its expiry', async () => {
    // Without reuse, each load made a session and its event: 100 loads, 100 sessions.
    const login = await customerWithLogin();
    const invoice = await issuedInvoice(t, {
      customerId: login.customerId,
      amount: '19.07',
      dueDate: '2026-03-31',
    });
    const first = await signedIn(login);
    const second = await signedIn(login);
    const hashTokens = new Set<string>();
    for (let load = 0; load < 5; load++) {
      for (const client of [first, second])
        hashTokens.add((await payCardPage(client, invoice.invoiceID)).hashToken);
    }
    const addCard = async () => {
      const page = await first.get(`${first.base}payment-methods/add`);
      expect(page.status).toBe(200);
      return /data-hash-token="([0-9a-f]+)"/.exec(page.text)![1]!;
    };
    const added = new Set([await addCard(), await addCard(), await addCard()]);
    expect(hashTokens.size).toBe(1);
    expect(added.size).toBe(1);
    expect([...added][0]).not.toBe([...hashTokens][0]);
    expect(await sessionsMadeFor(login.customerId)).toHaveLength(2);

    // 30 minutes to type a card: with less than 10 left, a load makes a new session.
    try {
      clock.set('2026-03-15T10:21:00.000Z');
      const later = await payCardPage(first, invoice.invoiceID);
      expect(hashTokens.has(later.hashToken)).toBe(false);
      expect(await sessionsMadeFor(login.customerId)).toHaveLength(3);
    } finally {
      clock.set(START);
    }
  });
});
