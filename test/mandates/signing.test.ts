import crypto from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import type { TestAccount } from '../helpers/service.ts';
import { expectEvents } from '../helpers/resourceEvents.ts';
import {
  ACCOUNT_NUMBER,
  NORTHWIND,
  SIGNATURE,
  createMandate,
  createPageMandate,
  getPage,
  mandateAccount,
  mandateBody,
  mandateRow as rowOf,
  plusDays,
  postForm,
  postSign,
  readMandate,
  t,
  useMandatesService,
} from './fixtures.ts';

// docs/design/hosted-pages.md, "eMandate pages": the hosted signing page, its headers, the consent it asks for,
// the evidence signing stores, and the embedding script. The browser test is signing.browser.test.ts.

useMandatesService();

let account: TestAccount;
let start: string;
beforeAll(async () => {
  ({ account, start } = await mandateAccount('Signing', { seller: NORTHWIND }));
});

describe('the signing page', () => {
  it('shows the beneficiary, the signee, the masked account and the terms, with an unticked consent box', async () => {
    const token = await createPageMandate(account, mandateBody(start));
    const page = await getPage(`/widget/emandate/${token}`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(page.html).toContain('Northwind Software Ltd');
    expect(page.html).toContain('Thandi Nkosi');
    expect(page.html).toContain('••••9876');
    expect(page.html).not.toContain(ACCOUNT_NUMBER);
    expect(page.html).toContain('299.99 USD');
    expect(page.html).toContain('449.98 USD');
    expect(page.html).toContain('Monthly');
    expect(page.html).toMatch(/<input type="checkbox" id="f-Consent" name="Consent" value="yes">/);
    expect(page.html).toContain('<label for="f-TypedName">');
    expect(page.html).toContain('Sign mandate</button>');
    // isCompanySignee false: no company shown.
    expect(page.html).not.toContain('Nkosi Trading');
  });

  it('is served no-store, framed by nobody, with a nonce CSP and nothing from outside', async () => {
    const token = await createPageMandate(account, mandateBody(start));
    const page = await getPage(`/widget/emandate/${token}`);
    const csp = page.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("default-src 'none'");
    const nonce = /style-src 'nonce-([^']+)'/.exec(csp)?.[1];
    expect(nonce).toBeTruthy();
    expect(page.html).toContain(`<style nonce="${nonce}">`);
    expect(page.headers.get('cache-control')).toBe('no-store');
    expect(page.headers.get('referrer-policy')).toBe('no-referrer');
    // Framed by nobody, old browsers too.
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    expect(page.html).not.toMatch(/(src|href)="https?:\/\//);
    // A fresh nonce per answer.
    const again = await getPage(`/widget/emandate/${token}`);
    expect(again.headers.get('content-security-policy')).not.toBe(csp);
  });

  it('shows Company and TradingAs for a company signee', async () => {
    const token = await createPageMandate(account, mandateBody(start, { isCompanySignee: true }));
    const page = await getPage(`/widget/emandate/${token}`);
    expect(page.html).toContain('Nkosi Trading (Pty) Ltd');
    expect(page.html).toContain('Nkosi Fresh');
  });

  it('answers 404 for an unknown token, and keeps tokens out of the logs', async () => {
    const page = await getPage(`/widget/emandate/${'0'.repeat(64)}`);
    expect(page.status).toBe(404);
    expect(page.html).toContain('Mandate not found');
    const token = await createPageMandate(account, mandateBody(start));
    await getPage(`/widget/emandate/${token}`);
    await postSign(token, SIGNATURE);
    await account.request('GET', `/v1/emandate?Token=${token}`);
    await account.request('GET', `/v1/emandate?Token=${'1'.repeat(64)}`);
    // A GET of the form's target (Enter in the address bar after a refusal) is a 404 of no route.
    expect((await getPage(`/widget/emandate/${token}/sign`)).status).toBe(404);
    expect(t.logs.join('')).toContain('/widget/emandate/[token]');
    expect(t.logs.join('')).toContain('/v1/emandate?Token=[token]');
    expect(t.logs.join('')).not.toContain(token);
    expect(t.logs.join('')).not.toContain('1'.repeat(64));
  });
});

describe('signing', () => {
  it('refuses a sign or decline posted from another site, changing nothing', async () => {
    const token = await createPageMandate(account, mandateBody(start));
    const elsewhere = { origin: 'https://evil.example', site: 'cross-site' };
    const signPath = `/widget/emandate/${token}/sign`;
    const forged = await postForm(signPath, SIGNATURE, undefined, elsewhere);
    expect(forged.status).toBe(403);
    expect(forged.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    // An older browser says only Origin.
    const res = await fetch(`${t.url}${signPath}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'https://evil.example' },
      body: new URLSearchParams(SIGNATURE),
      redirect: 'manual',
    });
    expect(res.status).toBe(403);
    const declined = await postForm(`/widget/emandate/${token}/decline`, {}, undefined, elsewhere);
    expect(declined.status).toBe(403);
    expect((await readMandate(account, token)).Status).toBe('pending_signature');
    expect((await postSign(token, SIGNATURE)).status).toBe(303);
  });

  it('refuses without the ticked box or the typed full name, changing nothing', async () => {
    const token = await createPageMandate(account, mandateBody(start));
    const unticked = await postSign(token, { TypedName: 'Thandi Nkosi' });
    expect(unticked.status).toBe(422);
    expect(unticked.html).toContain('Tick the box to agree');
    const misnamed = await postSign(token, { Consent: 'yes', TypedName: 'Someone Else' });
    expect(misnamed.status).toBe(422);
    expect(misnamed.html).toContain('Your typed name must be the signee&#39;s full name, Thandi Nkosi.');
    const mandate = await readMandate(account, token);
    expect([mandate.Status, mandate.DateSigned]).toEqual(['pending_signature', null]);
    expect((await rowOf(token)).signed_at).toBeNull();
  });

  it('records the evidence, sets DateSigned and emits emandate.signed', async () => {
    const token = await createPageMandate(account, mandateBody(start));
    const signed = await postSign(
      token,
      { Consent: 'yes', TypedName: '  thandi   NKOSI ' },
      { userAgent: 'Evidence/2.0' },
    );
    expect(signed.status).toBe(303);
    expect(signed.headers.get('location')).toBe(`/widget/emandate/${token}`);

    const mandate = await readMandate(account, token);
    expect(mandate.Status).toBe('signed');
    expect(mandate.DateSigned).toEqual(expect.any(String));
    const row = await rowOf(token);
    expect(row.signed_at).toBe(mandate.DateSigned);
    expect(row.signed_client_address).toMatch(/127\.0\.0\.1/);
    expect(row.signed_user_agent).toBe('Evidence/2.0');
    expect(row.signed_name).toBe('thandi   NKOSI');
    expect(row.consent_text).toContain('I, Thandi Nkosi, authorise Northwind Software Ltd to debit');
    expect(row.consent_text).toContain('ending 9876');
    expect(row.consent_sha256).toBe(crypto.createHash('sha256').update(row.consent_text!).digest('hex'));
    expect(row.document_sha256).toMatch(/^[0-9a-f]{64}$/);

    const [, event] = await expectEvents(account, 'emandate', row.id, [
      'emandate.created',
      'emandate.signed',
    ]);
    expect(event!.data.previous).toMatchObject({ Status: 'pending_signature', DateSigned: null });
    expect(event!.data.object.DateSigned).toBe(mandate.DateSigned);

    const after = await getPage(`/widget/emandate/${token}`);
    expect(after.html).toContain('Mandate signed');
    expect(after.html).toContain(`/widget/emandate/download?token=${token}`);
  });

  it('answers 409 to a second signature, keeping the first', async () => {
    const token = await createPageMandate(account, mandateBody(start));
    expect((await postSign(token, SIGNATURE)).status).toBe(303);
    const first = (await rowOf(token)).signed_at;
    const again = await postSign(token, SIGNATURE, { userAgent: 'Second/1.0' });
    expect(again.status).toBe(409);
    expect(again.html).toContain('Mandate signed');
    const row = await rowOf(token);
    expect([row.signed_at, row.signed_user_agent]).toEqual([first, 'MandateTest/1.0']);
  });

  it('lets the signee correct basic details only when isCustomerEditable', async () => {
    const edits = { ...SIGNATURE, Tel: '+27 82 000 1111', City: 'Stellenbosch' };
    const editable = await createPageMandate(account, mandateBody(start));
    expect((await getPage(`/widget/emandate/${editable}`)).html).toContain('id="f-City"');
    expect((await postSign(editable, edits)).status).toBe(303);
    expect(await readMandate(account, editable)).toMatchObject({
      Tel: '+27 82 000 1111',
      City: 'Stellenbosch',
    });

    const fixed = await createPageMandate(account, mandateBody(start, { isCustomerEditable: false }));
    expect((await getPage(`/widget/emandate/${fixed}`)).html).not.toContain('id="f-City"');
    expect((await postSign(fixed, edits)).status).toBe(303);
    expect(await readMandate(account, fixed)).toMatchObject({ Tel: '+27 21 555 0100', City: 'Cape Town' });
  });

  it('refuses an expired mandate: moved past 24 hours on the account clock', async () => {
    const { account: clocked, today } = await mandateAccount('Signing late');
    const token = await createPageMandate(clocked, mandateBody(plusDays(today, 5)));
    const { Expires } = await readMandate(clocked, token);
    const moved = await clocked.request('POST', '/v1/test-clock/advance', { body: { To: Expires } });
    expect(moved.status, moved.text).toBe(200);
    const late = await postSign(token, SIGNATURE);
    expect(late.status).toBe(409);
    expect(late.html).toContain('Mandate expired');
    expect((await readMandate(clocked, token)).DateSigned).toBeNull();
  });

  it('shows the ReturnUrl after signing on the redirect page', async () => {
    const token = await createPageMandate(
      account,
      mandateBody(start, { ReturnUrl: 'https://shop.example/mandate/done?order=42' }),
    );
    await postSign(token, SIGNATURE);
    const page = await getPage(`/widget/emandate/${token}`);
    expect(page.html).toContain('href="https://shop.example/mandate/done?order=42"');
  });
});

describe('declining', () => {
  it('rejects the mandate for good, emits emandate.declined and offers the CancelUrl', async () => {
    const token = await createPageMandate(
      account,
      mandateBody(start, { CancelUrl: 'https://shop.example/mandate/declined' }),
    );
    const page = await getPage(`/widget/emandate/${token}`);
    expect(page.html).toContain(`action="/widget/emandate/${token}/decline"`);
    const declined = await postForm(`/widget/emandate/${token}/decline`, {});
    expect(declined.status).toBe(303);
    const mandate = await readMandate(account, token);
    expect(mandate).toMatchObject({ Status: 'rejected', DateSigned: null, DateDeclined: expect.any(String) });
    const row = await rowOf(token);
    const [, event] = await expectEvents(account, 'emandate', row.id, [
      'emandate.created',
      'emandate.declined',
    ]);
    expect(event!.data.previous).toMatchObject({ Status: 'pending_signature', DateDeclined: null });

    const after = await getPage(`/widget/emandate/${token}`);
    expect(after.html).toContain('Mandate declined');
    expect(after.html).toContain('href="https://shop.example/mandate/declined"');
    const late = await postSign(token, SIGNATURE);
    expect(late.status).toBe(409);
    expect((await rowOf(token)).signed_at).toBeNull();
    expect((await postForm(`/widget/emandate/${token}/decline`, {})).status).toBe(409);
  });
});

describe('the embedded frame', () => {
  it('may be framed only by the AuthDomain', async () => {
    const token = await createMandate(
      account,
      mandateBody(start, { AuthDomain: 'https://shop.example:8443' }),
    );
    const page = await getPage(`/widget/emandate/frame/${token}?widgetId=ab12`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain(
      'frame-ancestors https://shop.example:8443',
    );
    expect(page.html).toContain(`action="/widget/emandate/${token}/sign?frame=1&amp;widgetId=ab12"`);
  });

  it('explains, and is framed by nobody, when the mandate has no AuthDomain', async () => {
    const token = await createMandate(account, mandateBody(start));
    const page = await getPage(`/widget/emandate/frame/${token}`);
    expect(page.status).toBe(403);
    expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(page.html).toContain('without an AuthDomain');
  });

  it('is inserted by /widget/v1/emandate.js, served to any origin', async () => {
    const res = await fetch(`${t.url}/widget/v1/emandate.js`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/javascript');
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('cross-origin-resource-policy')).toBe('cross-origin');
    const script = await res.text();
    expect(script).toContain('window.EMandate = { init: init }');
  });
});
