import { describe, expect, it } from 'vitest';
import { ok } from '../helpers/billing.ts';
import { mandateBody, plusDays } from '../mandates/fixtures.ts';
import { PortalClient, customerWithLogin, portalPath, t, usePortalService } from './fixtures.ts';

// Debit order mandates in the portal (docs/portal.md, "Debit order mandates"): the customer's own mandates, the one
// waiting signed on the hosted page the portal links to, its PDF downloaded once signed, another customer's not seen.

usePortalService();

const mandate = (customerID: number, startDate: string, ref: string) =>
  mandateBody(startDate, { customerID, debit_ContractRef: ref });

describe("the customer's debit order mandates", () => {
  it('lists them, links the one waiting to its signing page, and downloads it once signed', async () => {
    const account = await t.newAccount('Portal mandate list', { isTest: true });
    await ok(account, 'PUT', '/v1/account', { PortalSlug: `mdl-${process.pid}-${Date.now()}` });
    const today = ((await ok(account, 'GET', '/v1/account')).TestClockDate as string).slice(0, 10);
    const login = await customerWithLogin(account);
    const someoneElse = await customerWithLogin(account);
    const ref = `CTR-list-${process.pid}`;
    const created = await ok(
      account,
      'POST',
      '/widget/emandate',
      mandate(login.customerId, plusDays(today, 7), ref),
      200,
    );
    const theirs = await ok(
      account,
      'POST',
      '/widget/emandate',
      mandate(someoneElse.customerId, plusDays(today, 7), `CTR-theirs-${process.pid}`),
      200,
    );

    const client = new PortalClient(await portalPath(account), t.url);
    expect((await client.signIn(login.username, login.password)).status).toBe(303);
    const waiting = await client.get(`${client.base}mandates`);
    expect(waiting.status).toBe(200);
    expect(waiting.text).toContain(`Mandate ${ref}`);
    expect(waiting.text).toContain('First National Bank account ending 9876');
    expect(waiting.text).toContain('USD 299.99 monthly');
    expect(waiting.text).toContain('Waiting for your signature');
    expect(waiting.text).not.toContain(`CTR-theirs-${process.pid}`);
    expect(waiting.text).not.toContain(theirs.Token);
    expect(waiting.text).not.toContain('62847123459876');
    // The link is the hosted signing page every signee uses.
    const signHref = /href="(\/widget\/emandate\/[0-9a-f]{64})"/.exec(waiting.text)![1]!;
    expect(signHref).toBe(`/widget/emandate/${created.Token}`);
    expect(waiting.text).not.toContain('Download the signed mandate');

    const signed = await fetch(`${t.url}${signHref}/sign`, {
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

    const after = await client.get(`${client.base}mandates`);
    expect(after.text).toMatch(/Signed on \d{1,2} [A-Z][a-z]{2} \d{4}/);
    expect(after.text).not.toContain(created.Token);
    const pdfPath = /href="([^"]+\/mandates\/\d+\/pdf)"/.exec(after.text)![1]!;
    const pdf = await client.get(pdfPath);
    expect(pdf.status).toBe(200);
    expect(pdf.headers.get('content-type')).toBe('application/pdf');
    expect(pdf.text.slice(0, 5)).toBe('%PDF-');

    // Another customer's mandate, or one that does not exist, is not found.
    const mandates = await ok(account, 'GET', `/v1/emandate?Token=${theirs.Token}`);
    expect(mandates.customerID).toBe(someoneElse.customerId);
    for (const id of ['999999', 'x1']) {
      expect((await client.get(`${client.base}mandates/${id}/pdf`)).status).toBe(404);
    }
  });

  it('says so when there are none', async () => {
    const login = await customerWithLogin();
    const client = new PortalClient(await portalPath(), t.url);
    expect((await client.signIn(login.username, login.password)).status).toBe(303);
    const page = await client.get(`${client.base}mandates`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('You have no debit order mandates.');
  });

  it('shows a DebiCheck mandate\'s approval with the customer\'s bank (docs/design/mandates.md, "DebiCheck")', async () => {
    const account = await t.newAccount('Portal DebiCheck', { isTest: true, currencyCode: 'ZAR' });
    await ok(account, 'PUT', '/v1/account', { PortalSlug: `mdc-${process.pid}-${Date.now()}` });
    const today = ((await ok(account, 'GET', '/v1/account')).TestClockDate as string).slice(0, 10);
    const login = await customerWithLogin(account);
    const body = mandate(login.customerId, plusDays(today, 7), `CTR-dc-${process.pid}`);
    const debiCheck = {
      DebiCheckContractType: 'fixed',
      DebiCheckIdType: 'sa_id',
      DebiCheckIdNumber: '8001015009087',
    };
    await ok(account, 'POST', '/widget/emandate', { ...body, ...debiCheck }, 200);
    const client = new PortalClient(await portalPath(account), t.url);
    expect((await client.signIn(login.username, login.password)).status).toBe(303);
    const page = await client.get(`${client.base}mandates`);
    expect(page.text).toContain('First National Bank will ask you to approve this debit order');
    expect(page.text).not.toContain('8001015009087');
  });
});
