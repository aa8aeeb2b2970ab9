import { describe, expect, it } from 'vitest';
import { collectDueInvoices } from '../../src/modules/collections/index.ts';
import { ok } from '../helpers/billing.ts';
import { accountContext } from '../helpers/context.ts';
import { issuedInvoice, issuedInvoiceBody } from '../helpers/invoices.ts';
import { addCard } from '../collections/cards.ts';
import type { PortalClient } from './fixtures.ts';
import {
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

// Today is 15 March 2026 (fixtures.ts, START). Each money test here fails without the change it names
// (docs/portal.md, "Paying and payment methods").

/** The charges the test gateway made of this amount (minor units; each test pays its own amount), oldest first. */
const chargesOf = (amountMinor: number) => testGatewayCharges(t, { amountMinor });

const accountCtx = async () => accountContext(t, (await ok(t, 'GET', '/v1/account')).accountID, clock);

describe('a portal payment charges once', () => {
  it('charges nothing more while a charge is in flight: not another session, not a collection run', async () => {
    // Without the `started` attempts planPayment writes, another session (another key) and the collection run
    // both charged the card again while the first charge's answer was still awaited. The test gateway's card
    // 4000000000000408 makes the charge and loses its answer: the charge stays in flight.
    const login = await customerWithLogin();
    const paymentMethodId = await addCard(t, login.customerId, '4000000000000408');
    const gatewayId = (await ok(t, 'GET', '/v1/gateways'))[0].gatewayID as number;
    // Collected automatically by card, and due: a collection run would charge it if nothing told it not to.
    const invoice = await issuedInvoice(t, {
      customerId: login.customerId,
      amount: '31.17',
      invoiceDate: '2026-03-01',
      dueDate: '2026-03-10',
      collect: { method: 'credit_card', gatewayId, paymentMethodId },
    });
    const first = await signedIn(login);
    const second = await signedIn(login);
    const forms = [
      await invoicePayForm(first, invoice.invoiceID),
      await invoicePayForm(second, invoice.invoiceID),
    ];
    expect(forms[0]!['csrf']).not.toBe(forms[1]!['csrf']);
    const path = (client: PortalClient) => `${client.base}invoices/${invoice.invoiceID}/pay`;
    expect((await first.post(path(first), forms[0]!)).status).toBe(502);
    expect(await chargesOf(3117)).toHaveLength(1);

    await collectDueInvoices(await accountCtx());
    expect(await chargesOf(3117)).toHaveLength(1);
    const waiting = await second.post(path(second), forms[1]!);
    expect(waiting.status).toBe(409);
    expect(waiting.text).toContain('A payment is already being made');
    expect(await chargesOf(3117)).toHaveLength(1);
    expect(await paymentsOf(login.customerId)).toEqual([]);
  });

  it('offers the same payment again after no answer, and records the one charge once', async () => {
    // The test gateway's card 4000000000000408 makes the charge and loses the answer.
    const login = await customerWithLogin();
    await addCard(t, login.customerId, '4000000000000408');
    const invoice = await issuedInvoice(t, {
      customerId: login.customerId,
      amount: '52.06',
      dueDate: '2026-03-31',
    });
    const client = await signedIn(login);
    const fields = await invoicePayForm(client, invoice.invoiceID);
    const path = `${client.base}invoices/${invoice.invoiceID}/pay`;
    const unanswered = await client.post(path, fields);
    expect(unanswered.status).toBe(502);
    expect(unanswered.text).toContain('No answer from the bank yet');
    // Without the retry form, the page offered no way to send the same payment.
    const retry = hiddenFieldsOf(unanswered.text, path);
    expect(retry).toEqual(fields);
    expect(unanswered.text).toContain('Send the same payment again');
    expect(await paymentsOf(login.customerId)).toEqual([]);

    const paid = await client.post(path, retry);
    expect(paid.status, paid.text).toBe(303);
    const [payment, ...more] = await paymentsOf(login.customerId);
    expect(more).toEqual([]);
    expect(paid.headers.get('location')).toBe(`${client.base}paid/${payment.paymentID}`);
    const charges = await chargesOf(5206);
    expect(charges).toHaveLength(1);
    expect(payment).toMatchObject({ Amount: 52.06, Status: 'Allocated', Ref: charges[0]!.chargeId });
    // Sent once more: the same payment, nothing more charged or recorded.
    expect((await client.post(path, retry)).status).toBe(303);
    expect(await paymentsOf(login.customerId)).toHaveLength(1);
    await collectDueInvoices(await accountCtx(), { staleAfterMs: 0 });
    expect(await chargesOf(5206)).toHaveLength(1);
    expect(await ok(t, 'GET', `/v1/invoices/${invoice.invoiceID}`)).toMatchObject({
      Status: 'Paid',
      Balance: 0,
    });
  });

  it('records an unanswered portal charge the customer never sent again at the next collection run', async () => {
    // Without the `started` attempts, nothing was left for a run to finish: the charge was taken, never recorded.
    const login = await customerWithLogin();
    await addCard(t, login.customerId, '4000000000000408');
    const invoice = await issuedInvoice(t, {
      customerId: login.customerId,
      amount: '18.40',
      dueDate: '2026-03-31',
    });
    const client = await signedIn(login);
    const path = `${client.base}invoices/${invoice.invoiceID}/pay`;
    const fields = await invoicePayForm(client, invoice.invoiceID);
    expect((await client.post(path, fields)).status).toBe(502);
    expect(await paymentsOf(login.customerId)).toEqual([]);

    await collectDueInvoices(await accountCtx(), { staleAfterMs: 0 });
    const charges = await chargesOf(1840);
    expect(charges).toHaveLength(1);
    const [payment, ...more] = await paymentsOf(login.customerId);
    expect(more).toEqual([]);
    expect(payment).toMatchObject({
      Amount: 18.4,
      Status: 'Allocated',
      Ref: charges[0]!.chargeId,
      Allocations: [expect.objectContaining({ invoiceID: invoice.invoiceID, amountApplied: 18.4 })],
    });
    // The customer's page sent late is that payment.
    const late = await client.post(path, fields);
    expect(late.status).toBe(303);
    expect(await paymentsOf(login.customerId)).toHaveLength(1);
  });

  it('charges anew from a new page of the same session when the earlier payment is gone', async () => {
    // Without the page's own token, the second page's form repeated the first one's key: the gateway answered with
    // the old charge and no money was taken for what the invoice owes again.
    const login = await customerWithLogin();
    await addCard(t, login.customerId, '4242424242424242');
    const invoice = await issuedInvoice(t, {
      customerId: login.customerId,
      amount: '27.35',
      dueDate: '2026-03-31',
    });
    const client = await signedIn(login);
    const path = `${client.base}invoices/${invoice.invoiceID}/pay`;
    const firstForm = await invoicePayForm(client, invoice.invoiceID);
    expect((await client.post(path, firstForm)).status).toBe(303);
    const [first] = await paymentsOf(login.customerId);
    // The business takes the payment back off (say its charge failed at the bank later).
    await ok(t, 'DELETE', `/v1/payments/${first.paymentID}`, undefined, 204);
    expect(await ok(t, 'GET', `/v1/invoices/${invoice.invoiceID}`)).toMatchObject({ Balance: 27.35 });

    const secondForm = await invoicePayForm(client, invoice.invoiceID);
    expect(secondForm['attempt']).not.toBe(firstForm['attempt']);
    expect((await client.post(path, secondForm)).status).toBe(303);
    const payments = await paymentsOf(login.customerId);
    expect(payments).toHaveLength(1);
    expect(payments[0].Ref).not.toBe(first.Ref);
    expect(await ok(t, 'GET', `/v1/invoices/${invoice.invoiceID}`)).toMatchObject({
      Status: 'Paid',
      Balance: 0,
    });
  });
});

describe('an invoice in another currency than the customer’s', () => {
  it('shows no Pay button and says why when its pay form is posted anyway', async () => {
    const login = await customerWithLogin();
    await addCard(t, login.customerId, '4242424242424242');
    await ok(t, 'POST', '/v1/currencies', { CurrencyCode: 'EUR' });
    const invoice = await ok(t, 'POST', '/v1/invoices', {
      ...issuedInvoiceBody({ customerId: login.customerId, amount: 12, dueDate: '2026-03-31' }),
      CurrencyCode: 'EUR',
    });
    const client = await signedIn(login);
    const page = await client.get(`${client.base}invoices/${invoice.invoiceID}`);
    expect(page.status).toBe(200);
    expect(page.text).not.toContain(`invoices/${invoice.invoiceID}/pay"`);
    expect(page.text).toContain('in another currency than your account');
    const csrf = await client.csrfOf(`${client.base}payment-methods`);
    const refused = await client.post(`${client.base}invoices/${invoice.invoiceID}/pay`, {
      csrf,
      expected: 'EUR 12.00',
      attempt: 'x',
    });
    expect(refused.status).toBe(422);
    expect(refused.text).toContain('is in EUR, not in your account’s currency (USD). Nothing was charged');
    expect(await paymentsOf(login.customerId)).toEqual([]);
  });
});
