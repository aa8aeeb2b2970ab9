import { describe, expect, it } from 'vitest';
import { createComponent, ok } from '../helpers/billing.ts';
import type { TestAccount } from '../helpers/service.ts';
import { addCard } from '../collections/cards.ts';
import type { PortalClient } from './fixtures.ts';
import {
  PortalClient as Client,
  customerWithLogin,
  hiddenFieldsOf,
  invoicePayForm,
  other,
  portalPath,
  signedIn,
  t,
  usePortalService,
} from './fixtures.ts';
import { advanceClock } from '../helpers/clock.ts';

usePortalService();

// Prepaid credit in the portal (docs/portal.md, "Prepaid credit"): the wallet's figures, grants and history as the
// credits module keeps them (docs/credits.md), and buying credit through a paid top-up's invoice.

/** A USD wallet of the customer, through the API. */
async function walletOf(as: TestAccount, customerId: number, body: Record<string, unknown> = {}) {
  const wallet = await ok(as, 'POST', `/v1/customers/${customerId}/wallets`, {
    CurrencyCode: 'USD',
    ...body,
  });
  return wallet.walletID as number;
}

/** The rows of a table whose caption starts with `caption`: each row's cells as text. */
function tableRows(html: string, caption: string): string[][] {
  const table = new RegExp(`<caption[^>]*>${caption}[\\s\\S]*?<tbody>([\\s\\S]*?)</tbody>`).exec(html);
  expect(table, html).not.toBeNull();
  return [...table![1]!.matchAll(/<tr>([\s\S]*?)<\/tr>/g)].map((row) =>
    [...row[1]!.matchAll(/<t[hd][^>]*>([\s\S]*?)<\/t[hd]>/g)].map((cell) =>
      cell[1]!
        .replace(/<br>/g, ' · ')
        .replace(/<[^>]+>/g, '')
        .replace(/\s+/g, ' ')
        .trim(),
    ),
  );
}

/** The figures of a page's <dl class="figures">, by their terms. */
function figuresOf(html: string): Record<string, string> {
  const list = /<dl class="figures">([\s\S]*?)<\/dl>/.exec(html);
  expect(list, html).not.toBeNull();
  return Object.fromEntries(
    [...list![1]!.matchAll(/<dt>([\s\S]*?)<\/dt><dd>([\s\S]*?)<\/dd>/g)].map((m) => [
      m[1]!.trim(),
      m[2]!.replace(/<[^>]+>/g, '').trim(),
    ]),
  );
}

const buyPath = (client: PortalClient, walletId: number) => `${client.base}credit/${walletId}/buy`;

/** The buy form of the wallet's page: its hidden fields, to which a test adds the amount. */
async function buyForm(client: PortalClient, walletId: number) {
  const page = await client.get(`${client.base}credit/${walletId}`);
  expect(page.status, page.text).toBe(200);
  return hiddenFieldsOf(page.text, buyPath(client, walletId));
}

const invoicesOf = async (as: TestAccount, customerId: number) =>
  (await ok(as, 'GET', `/v1/customers/${customerId}/invoices?page_size=200`)) as any[];

describe('the credit page', () => {
  it('shows exact figures after a grant, a consumption and an expiry, dated in the account’s zone', async () => {
    // A test account in Johannesburg (UTC+2), so that its clock, and the expiry's daily run, are the test's.
    const shop = await t.newAccount('Credit Shop', { isTest: true, timeZone: 'Africa/Johannesburg' });
    await ok(shop, 'PUT', '/v1/account', { PortalSlug: `credit-${process.pid}` });
    const advance = (to: string) => advanceClock(shop, to);
    await ok(shop, 'POST', '/v1/billable-metrics', { Code: 'api', Name: 'API calls', Aggregation: 'count' });
    const login = await customerWithLogin(shop, { name: 'Grace' });
    const walletId = await walletOf(shop, login.customerId, { Name: 'Launch credit' });

    // 22:30 UTC on 20 March is 00:30 on 21 March in Johannesburg: the page's dates are the account's.
    await advance('2026-03-20T22:30:00.000Z');
    await ok(shop, 'POST', `/v1/wallets/${walletId}/grants`, {
      Amount: 100,
      ExpiresAt: '2026-04-10',
      Note: 'Welcome credit',
    });
    const sms = await createComponent(shop, { name: 'SMS bundle' });
    await ok(shop, 'POST', `/v1/wallets/${walletId}/grants`, {
      Amount: 40,
      AppliesTo: { MetricCodes: ['api'], ComponentIDs: [sms.componentID] },
    });
    await advance('2026-03-25T08:00:00.000Z');
    // An invoice of 30.00 of work: only the unrestricted grant pays it (docs/credits.md, "Consumption order").
    const work = await ok(shop, 'POST', '/v1/invoices', {
      customerID: login.customerId,
      Charges: [{ Descrip: 'Work', Qty: 1, UnitCostEx: 30 }],
    });
    // The daily run of 10 April (Johannesburg) writes off the 100.00 − 30.00 = 70.00 left of the welcome credit.
    await advance('2026-04-11T08:00:00.000Z');

    const client = new Client(await portalPath(shop), t.url);
    expect((await client.signIn(login.username, login.password)).status).toBe(303);
    // One wallet: the credit page is the wallet's.
    const credit = await client.get(`${client.base}credit`);
    expect(credit.status).toBe(303);
    expect(credit.headers.get('location')).toBe(`${client.base}credit/${walletId}`);
    const page = await client.get(`${client.base}credit/${walletId}`);
    expect(page.status, page.text).toBe(200);
    expect(page.text).toContain('<h1>Launch credit</h1>');
    expect(page.text).toMatch(/href="[^"]*credit" aria-current="page">Credit</);
    // Balance: only the 40.00 restricted grant is left, all of it granted.
    expect(figuresOf(page.text)).toEqual({
      Balance: 'USD 40.00',
      Bought: 'USD 0.00',
      'Granted to you': 'USD 40.00',
    });
    expect(tableRows(page.text, 'Each amount of credit')).toEqual([
      ['Granted', 'USD 40.00', 'USD 40.00', 'Never', 'Only charges for API calls, SMS bundle', 'Available'],
      // Expiring on 10 April means from its midnight in Johannesburg.
      [
        'Granted · Welcome credit',
        'USD 100.00',
        'USD 0.00',
        '10 Apr 2026, 00:00 (Africa/Johannesburg)',
        'Any charge',
        'Expired',
      ],
    ]);
    expect(tableRows(page.text, 'What added to your credit')).toEqual([
      ['10 Apr 2026', 'Expired unused: Welcome credit', '−USD 70.00'],
      ['25 Mar 2026', `Paid invoice ${work.invoiceNum}`, '−USD 30.00'],
      ['21 Mar 2026', 'Credit granted', '+USD 40.00'],
      ['21 Mar 2026', 'Credit granted: Welcome credit', '+USD 100.00'],
    ]);
    expect(page.text).toContain(`href="${client.base}invoices/${work.invoiceID}">Paid invoice`);

    // The API agrees: the portal shows the credits module's own figures.
    expect(await ok(shop, 'GET', `/v1/wallets/${walletId}`)).toMatchObject({
      Balance: 40,
      PaidBalance: 0,
      GrantedBalance: 40,
    });
    // The overview shows the balance, linked to the wallet.
    const overview = await client.get(client.base);
    expect(figuresOf(overview.text)['Prepaid credit']).toBe('USD 40.00');
    expect(overview.text).toContain(`href="${client.base}credit/${walletId}">USD 40.00</a>`);
  });

  it('pages the history, newest first, 25 to a page', async () => {
    const login = await customerWithLogin();
    const walletId = await walletOf(t, login.customerId);
    for (let n = 1; n <= 26; n++) {
      await ok(t, 'POST', `/v1/wallets/${walletId}/grants`, { Amount: n, Note: `Gift ${n}` });
    }
    const client = await signedIn(login);
    const first = await client.get(`${client.base}credit/${walletId}`);
    const rows = tableRows(first.text, 'What added to your credit');
    expect(rows).toHaveLength(25);
    expect(rows[0]).toEqual(['15 Mar 2026', 'Credit granted: Gift 26', '+USD 26.00']);
    expect(first.text).toContain(`href="${client.base}credit/${walletId}?page=2">Older entries</a>`);
    const second = await client.get(`${client.base}credit/${walletId}?page=2`);
    expect(tableRows(second.text, 'What added to your credit')).toEqual([
      ['15 Mar 2026', 'Credit granted: Gift 1', '+USD 1.00'],
    ]);
    // 1 + 2 + … + 26 = 351.
    expect(figuresOf(second.text).Balance).toBe('USD 351.00');
  });

  it('shows a customer without a wallet that it has no credit, and no figure on the overview', async () => {
    const client = await signedIn(await customerWithLogin());
    const credit = await client.get(`${client.base}credit`);
    expect(credit.status).toBe(200);
    expect(credit.text).toContain('You have no prepaid credit with');
    expect(figuresOf((await client.get(client.base)).text)).not.toHaveProperty('Prepaid credit');
  });
});

describe('another customer’s credit', () => {
  it('is never shown, and its wallet ids are not found, of the same account or another', async () => {
    const mine = await customerWithLogin();
    const myWallet = await walletOf(t, mine.customerId);
    const neighbour = await customerWithLogin();
    const theirWallet = await walletOf(t, neighbour.customerId);
    await ok(t, 'POST', `/v1/wallets/${theirWallet}/grants`, { Amount: 77.77, Note: 'Not yours' });
    const elsewhere = await customerWithLogin(other);
    const otherAccountWallet = await walletOf(other, elsewhere.customerId);

    const client = await signedIn(mine);
    const list = await client.get(`${client.base}credit`);
    expect(list.headers.get('location')).toBe(`${client.base}credit/${myWallet}`);
    const form = await buyForm(client, myWallet);
    for (const id of [theirWallet, otherAccountWallet, 999999999]) {
      const page = await client.get(`${client.base}credit/${id}`);
      expect(page.status).toBe(404);
      expect(page.text).not.toContain('77.77');
      const bought = await client.post(buyPath(client, id), { ...form, amount: '50.00' });
      expect(bought.status).toBe(404);
    }
    expect((await client.get(`${client.base}credit/not-a-number`)).status).toBe(404);
    expect(await invoicesOf(t, neighbour.customerId)).toEqual([]);
    expect(await invoicesOf(other, elsewhere.customerId)).toEqual([]);
  });
});

describe('buying credit', () => {
  it('makes one invoice for a form sent twice, and the credit once it is paid with the primary card', async () => {
    const login = await customerWithLogin();
    await addCard(t, login.customerId, '4242424242424242');
    const walletId = await walletOf(t, login.customerId);
    const client = await signedIn(login);
    const form = await buyForm(client, walletId);

    // A double click: both sends go to the one invoice.
    const sends = await Promise.all([
      client.post(buyPath(client, walletId), { ...form, amount: '1,250.50' }),
      client.post(buyPath(client, walletId), { ...form, amount: '1,250.50' }),
    ]);
    const invoices = await invoicesOf(t, login.customerId);
    expect(invoices).toHaveLength(1);
    const [topUp] = invoices;
    expect(topUp).toMatchObject({ Total: 1250.5, Balance: 1250.5 });
    expect(topUp.Charges).toEqual([expect.objectContaining({ Descrip: 'Prepaid credit', AmountEx: 1250.5 })]);
    for (const sent of sends) {
      // With a card as primary, the invoice's page, whose Pay button charges it.
      expect(sent.status).toBe(303);
      expect(sent.headers.get('location')).toBe(`${client.base}invoices/${topUp.invoiceID}`);
    }
    // Sent again later, still the same invoice.
    const again = await client.post(buyPath(client, walletId), { ...form, amount: '1250.50' });
    expect(again.headers.get('location')).toBe(`${client.base}invoices/${topUp.invoiceID}`);
    expect(await invoicesOf(t, login.customerId)).toHaveLength(1);
    expect((await ok(t, 'GET', `/v1/wallets/${walletId}`)).Balance).toBe(0);

    const paid = await client.post(
      `${client.base}invoices/${topUp.invoiceID}/pay`,
      await invoicePayForm(client, topUp.invoiceID),
    );
    expect(paid.status, paid.text).toBe(303);
    expect(paid.headers.get('location')).toMatch(/\/paid\/\d+$/);

    const page = await client.get(`${client.base}credit/${walletId}`);
    expect(figuresOf(page.text)).toEqual({
      Balance: 'USD 1,250.50',
      Bought: 'USD 1,250.50',
      'Granted to you': 'USD 0.00',
    });
    expect(tableRows(page.text, 'What added to your credit')).toEqual([
      ['15 Mar 2026', `Bought with invoice ${topUp.invoiceNum}`, '+USD 1,250.50'],
    ]);
    expect(tableRows(page.text, 'Each amount of credit')).toEqual([
      ['Bought', 'USD 1,250.50', 'USD 1,250.50', 'Never', 'Any charge', 'Available'],
    ]);

    // Part of the credit refunded to the card (docs/credits.md, "Refunding unused credit"): the history names it.
    const [grant] = await ok(t, 'GET', `/v1/wallets/${walletId}/grants`);
    await ok(t, 'POST', `/v1/credit-grants/${grant.creditGrantID}/refund`, { Amount: '250.50' }, 200);
    const refunded = await client.get(`${client.base}credit/${walletId}`);
    expect(figuresOf(refunded.text).Balance).toBe('USD 1,000.00');
    expect(tableRows(refunded.text, 'What added to your credit')[0]).toEqual([
      '15 Mar 2026',
      `Refunded to you: credit bought with invoice ${topUp.invoiceNum}`,
      '−USD 250.50',
    ]);

    // A new page is a new purchase.
    const next = await client.post(buyPath(client, walletId), {
      ...(await buyForm(client, walletId)),
      amount: '20',
    });
    expect(next.status).toBe(303);
    expect(await invoicesOf(t, login.customerId)).toHaveLength(2);
  });

  it('sends a customer without a card to pay with a new card', async () => {
    const login = await customerWithLogin();
    const walletId = await walletOf(t, login.customerId);
    const client = await signedIn(login);
    const sent = await client.post(buyPath(client, walletId), {
      ...(await buyForm(client, walletId)),
      amount: '15',
    });
    const [topUp] = await invoicesOf(t, login.customerId);
    expect(sent.headers.get('location')).toBe(`${client.base}invoices/${topUp.invoiceID}/pay-card`);
    const payCard = await client.get(sent.headers.get('location')!);
    expect(payCard.status).toBe(200);
    expect(payCard.text).toContain('USD 15.00');
  });

  it('refuses amounts it cannot sell with a clear message, and makes no invoice', async () => {
    const login = await customerWithLogin();
    const walletId = await walletOf(t, login.customerId);
    const client = await signedIn(login);
    const form = await buyForm(client, walletId);
    const refusals: [string, string][] = [
      ['', 'Enter the amount of credit to buy'],
      ['ten', 'Enter the amount as a number, such as 50.00'],
      ['-5', 'Enter the amount as a number, such as 50.00'],
      ['1e3', 'Enter the amount as a number, such as 50.00'],
      // Separators out of place are refused, not read past as 100.00 and 1,250.00 (docs/portal.md, "Prepaid credit").
      [
        '1,0,0',
        'Write the amount with a point for decimals and thousands in groups of three, such as 1,250.50',
      ],
      [
        '12,50',
        'Write the amount with a point for decimals and thousands in groups of three, such as 1,250.50',
      ],
      ['12.345', 'Enter at most 2 decimals: USD has no smaller unit'],
      ['0', 'The least you can buy is USD 1.00'],
      ['0.99', 'The least you can buy is USD 1.00'],
      ['10000.01', 'The most you can buy at once here is USD 10,000.00'],
    ];
    for (const [amount, message] of refusals) {
      const refused = await client.post(buyPath(client, walletId), { ...form, amount });
      expect(refused.status, amount).toBe(422);
      expect(refused.text).toContain('No credit was bought');
      expect(refused.text).toContain(`<a href="#amount">${message}</a>`);
      expect(refused.text).toMatch(/id="amount"[^>]*aria-invalid="true"/);
    }
    expect(await invoicesOf(t, login.customerId)).toEqual([]);
    // The bounds themselves are sold.
    for (const amount of ['1', '10000.00']) {
      const sent = await client.post(buyPath(client, walletId), {
        ...(await buyForm(client, walletId)),
        amount,
      });
      expect(sent.status, amount).toBe(303);
    }
    expect((await invoicesOf(t, login.customerId)).map((i) => i.Total).sort((a, b) => a - b)).toEqual([
      1, 10000,
    ]);
  });

  it('sells at most 10 times a day to a contact, and a refused purchase makes no invoice', async () => {
    const login = await customerWithLogin();
    const walletId = await walletOf(t, login.customerId);
    const client = await signedIn(login);
    for (let n = 1; n <= 10; n++) {
      const sent = await client.post(buyPath(client, walletId), {
        ...(await buyForm(client, walletId)),
        amount: '5',
      });
      expect(sent.status, `purchase ${n}`).toBe(303);
    }
    const eleventh = await client.post(buyPath(client, walletId), {
      ...(await buyForm(client, walletId)),
      amount: '5',
    });
    expect(eleventh.status).toBe(429);
    expect(eleventh.text).toContain('at most 10 times a day');
    expect(await invoicesOf(t, login.customerId)).toHaveLength(10);
  });

  it('refuses a form from elsewhere, or without the session’s token, and makes no invoice', async () => {
    const login = await customerWithLogin();
    const walletId = await walletOf(t, login.customerId);
    const client = await signedIn(login);
    const form = await buyForm(client, walletId);
    const foreign = await client.post(
      buyPath(client, walletId),
      { ...form, amount: '50' },
      { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' },
    );
    expect(foreign.status).toBe(403);
    const tokenless = await client.post(buyPath(client, walletId), { ...form, csrf: 'x', amount: '50' });
    expect(tokenless.status).toBe(403);
    expect(await invoicesOf(t, login.customerId)).toEqual([]);
  });

  it('is not offered when the account turns it off, and refused if posted anyway', async () => {
    const login = await customerWithLogin();
    const walletId = await walletOf(t, login.customerId);
    const client = await signedIn(login);
    const form = await buyForm(client, walletId);
    await ok(t, 'PUT', '/v1/account', { PortalAllowTopUps: false });
    try {
      expect((await ok(t, 'GET', '/v1/account')).PortalAllowTopUps).toBe(false);
      const page = await client.get(`${client.base}credit/${walletId}`);
      expect(page.text).not.toContain('Buy credit');
      const refused = await client.post(buyPath(client, walletId), { ...form, amount: '50' });
      expect(refused.status).toBe(403);
      expect(refused.text).toContain('Credit cannot be bought here');
      expect(await invoicesOf(t, login.customerId)).toEqual([]);
    } finally {
      await ok(t, 'PUT', '/v1/account', { PortalAllowTopUps: true });
    }
  });

  it('sells no credit for a wallet in another currency than the customer’s', async () => {
    await ok(t, 'POST', '/v1/currencies', { CurrencyCode: 'EUR' });
    const login = await customerWithLogin();
    const walletId = await walletOf(t, login.customerId, { CurrencyCode: 'EUR' });
    const client = await signedIn(login);
    const page = await client.get(`${client.base}credit/${walletId}`);
    expect(page.status).toBe(200);
    expect(page.text).not.toContain('Buy credit');
  });
});
