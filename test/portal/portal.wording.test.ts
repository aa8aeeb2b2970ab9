import { describe, expect, it } from 'vitest';
import { ok } from '../helpers/billing.ts';
import { issuedInvoice } from '../helpers/invoices.ts';
import { mandateBody, plusDays } from '../mandates/fixtures.ts';
import {
  PortalClient,
  START,
  clock,
  customerWithLogin,
  portalPath,
  t,
  usePortalService,
} from './fixtures.ts';

// The portal's words (docs/portal.md, "Prices and tax", "Dates and times"): every price says whether tax is in it
// by one rule, no internal id is shown as text, and times are the account's, not UTC's.

usePortalService();

let accounts = 0;

async function accountWithLogin(name: string, settings: Record<string, unknown>) {
  const account = await t.newAccount(name);
  await ok(account, 'PUT', '/v1/account', {
    PortalSlug: `wording-${process.pid}-${++accounts}`,
    ...settings,
  });
  const login = await customerWithLogin(account);
  const client = new PortalClient(await portalPath(account), t.url);
  expect((await client.signIn(login.username, login.password)).status).toBe(303);
  return { account, login, client };
}

/** The page's text as a person reads it: tags dropped. */
const textOf = (html: string) => html.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ');

describe('the portal’s wording', () => {
  for (const inclusive of [true, false]) {
    it(`labels an invoice's prices of a tax-${inclusive ? 'inclusive' : 'exclusive'} account`, async () => {
      const { account, login, client } = await accountWithLogin(`Wording ${inclusive}`, {
        isTaxInclusive: inclusive,
      });
      expect((await ok(account, 'GET', '/v1/account')).isTaxInclusive).toBe(inclusive);
      // The rate follows the account's rule: a tax-inclusive one is quoted as UnitCostInc.
      const price = inclusive ? { UnitCostInc: 1234.5 } : { UnitCostEx: 1234.5 };
      const invoice = await issuedInvoice(account, {
        customerId: login.customerId,
        charges: [{ Descrip: 'Coffee beans', Qty: 1, ...price }],
      });
      const page = textOf((await client.get(`${client.base}invoices/${invoice.invoiceID}`)).text);
      expect(page).toContain(`USD 1234.5 ${inclusive ? 'incl. tax' : 'excl. tax'}`);
      expect(page).not.toContain(`USD 1234.5 ${inclusive ? 'excl. tax' : 'incl. tax'}`);
      expect(page).toContain('Amount (excl. tax)');
      expect(page).toContain('Total (incl. tax)');
      const list = textOf((await client.get(`${client.base}invoices`)).text);
      expect(list).toContain('Total (incl. tax)');
      expect(list).toContain('Balance due (incl. tax)');
    });
  }

  it('never shows an internal id as text: a paid page tells the date and amount', async () => {
    const { account, login, client } = await accountWithLogin('Wording ids', {});
    const invoice = await issuedInvoice(account, { customerId: login.customerId, amount: 50 });
    const payment = await ok(account, 'POST', '/v1/payments', {
      customerID: login.customerId,
      Amount: 50,
      CurrencyCode: 'USD',
      Date: START.slice(0, 10),
      Method: 'eft',
      AutoApply: true,
    });
    const paid = await client.get(`${client.base}paid/${payment.paymentID}`);
    expect(paid.status).toBe(200);
    const pages = [
      paid.text,
      (await client.get(`${client.base}invoices`)).text,
      (await client.get(`${client.base}invoices/${invoice.invoiceID}`)).text,
      (await client.get(`${client.base}payments`)).text,
      (await client.get(client.base)).text,
    ];
    expect(textOf(paid.text)).toContain('USD 50.00 paid on 2026-03-15.');
    for (const page of pages) {
      expect(textOf(page)).not.toMatch(/\b(gateway|payment|customer|method) #?\d+\b/i);
      expect(textOf(page)).not.toContain(`(payment ${payment.paymentID})`);
    }
  });

  it('tells when a mandate was signed in the account’s time zone', async () => {
    const { account, login, client } = await accountWithLogin('Wording time zone', {
      TimeZone: 'Africa/Johannesburg',
    });
    const today = START.slice(0, 10);
    const created = await ok(
      account,
      'POST',
      '/widget/emandate',
      mandateBody(plusDays(today, 7), {
        customerID: login.customerId,
        debit_ContractRef: `TZ-${process.pid}`,
      }),
      200,
    );
    // 22:30 UTC on 15 March is 00:30 on 16 March in Johannesburg (UTC+2).
    clock.set('2026-03-15T22:30:00.000Z');
    try {
      const signed = await fetch(`${t.url}/widget/emandate/${created.Token}/sign`, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          origin: t.url,
          'sec-fetch-site': 'same-origin',
        },
        body: new URLSearchParams({ Consent: 'yes', TypedName: 'Thandi Nkosi' }),
        redirect: 'manual',
      });
      expect(signed.status).toBe(303);
      const hosted = textOf(await (await fetch(`${t.url}/widget/emandate/${created.Token}`)).text());
      expect(/You signed this mandate on [^.]*\./.exec(hosted)?.[0]).toBe(
        'You signed this mandate on 16 Mar 2026, 00:30 (Africa/Johannesburg).',
      );
      expect(hosted).not.toContain('2026-03-15T22:30');
      const portal = textOf((await client.get(`${client.base}mandates`)).text);
      expect(portal).toContain('Signed on 16 Mar 2026');
      const methods = textOf((await client.get(`${client.base}payment-methods`)).text);
      expect(methods).not.toContain('2026-03-15');
    } finally {
      clock.set(START);
    }
  });
});
