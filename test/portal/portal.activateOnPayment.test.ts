import { describe, expect, it } from 'vitest';
import { createPlan, invoicesOf, ok, subscribe } from '../helpers/billing.ts';
import { customerWithLogin, signedIn, t, usePortalService } from './fixtures.ts';

// docs/subscriptions.md, "Subscriptions that start when paid": the portal lists a subscription waiting for its first
// invoice's payment with a link to pay it, and offers no change of it; paid, it is listed as any other.

usePortalService();

describe('a subscription that starts when paid, in the portal', () => {
  it('is listed as awaiting payment with its invoice linked, then as Active once paid', async () => {
    const login = await customerWithLogin();
    const plan = await createPlan(t, { chargePrice: 31 });
    // The fixture's clock stands on 15 March 2026: one day to pay.
    const sub = await subscribe(t, login.customerId, plan, { ActivateOnPayment: true });
    const id = sub.subscriptionID as number;
    expect(sub).toMatchObject({
      comp_Status: 'Incomplete',
      IncompleteExpiryDate: '2026-03-16T00:00:00.000Z',
    });
    const [invoice] = await invoicesOf(t, login.customerId);

    const client = await signedIn(login);
    const list = await client.get(`${client.base}subscriptions`);
    expect(list.status).toBe(200);
    expect(list.text).toContain('Awaiting payment');
    expect(list.text).toContain(
      `<a href="${client.base}invoices/${invoice.invoiceID}">Pay its first invoice to start it</a>`,
    );
    expect(list.text).toContain('Unpaid on 2026-03-16, it is cancelled');
    // Nothing of it may change meanwhile: no cancel, no package change.
    const detail = await client.get(`${client.base}subscriptions/${id}`);
    expect(detail.status).toBe(200);
    expect(detail.text).not.toContain('Cancel at the end of the period');
    expect(detail.text).toContain('Awaiting payment');
    expect(detail.text).toContain(
      `<a href="${client.base}invoices/${invoice.invoiceID}">pay its first invoice to start it</a>`,
    );
    // The link opens the invoice with its Pay button.
    const invoicePage = await client.get(`${client.base}invoices/${invoice.invoiceID}`);
    expect(invoicePage.status).toBe(200);

    // Paid (here by a transfer recorded through the API): Active, listed without the link.
    await ok(t, 'POST', '/v1/payments', {
      customerID: login.customerId,
      Amount: 31,
      CurrencyCode: 'USD',
      Date: '2026-03-15',
      Method: 'eft',
      AutoApply: true,
    });
    expect((await ok(t, 'GET', `/v1/subscriptions/${id}`)).comp_Status).toBe('Active');
    const after = await client.get(`${client.base}subscriptions`);
    expect(after.text).not.toContain('Pay its first invoice to start it');
    expect(after.text).not.toContain('Awaiting payment');
  });
});
