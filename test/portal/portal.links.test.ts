import { describe, expect, it } from 'vitest';
import { ok } from '../helpers/billing.ts';
import {
  PortalClient,
  customerWithLogin,
  other,
  portalPath,
  signedIn,
  smtp,
  t,
  usePortalService,
  wallClock,
} from './fixtures.ts';
import { eventually } from '../helpers/service.ts';

usePortalService();

const later = (ms: number) => wallClock.advance(ms);

describe('POST /v1/portal/sessions', () => {
  it('answers a sign-in URL that works once', async () => {
    const login = await customerWithLogin();
    const link = await ok(t, 'POST', '/v1/portal/sessions', { CustomerID: login.customerId }, 200);
    expect(link.URL).toMatch(new RegExp(`^${t.url}/portal/[a-z0-9-]+/link/[\\w-]{43}$`));
    // Wall time (docs/architecture.md, "Two clocks"), which moved on a little since the link was made.
    const left = Date.parse(link.ExpiresAt) - wallClock.now().getTime();
    expect(left).toBeGreaterThan(5 * 60_000 - 10_000);
    expect(left).toBeLessThanOrEqual(5 * 60_000);
    const client = new PortalClient(await portalPath(), t.url);
    const path = new URL(link.URL).pathname;
    const first = await client.get(path);
    expect(first.status).toBe(303);
    expect((await client.get(client.base)).status).toBe(200);
    const again = await new PortalClient(client.base, t.url).get(path);
    expect(again.status).toBe(410);
    expect(again.text).toContain('This sign-in link cannot be used');
  });

  it('refuses a link used after 5 minutes', async () => {
    const login = await customerWithLogin();
    const link = await ok(t, 'POST', '/v1/portal/sessions', { ContactID: login.contactId }, 200);
    later(5 * 60_000 + 1);
    const client = new PortalClient(await portalPath(), t.url);
    expect((await client.get(new URL(link.URL).pathname)).status).toBe(410);
  });

  it('shows the ReturnUrl on every page of the session', async () => {
    const login = await customerWithLogin();
    const link = await ok(
      t,
      'POST',
      '/v1/portal/sessions',
      { ContactID: login.contactId, ReturnUrl: 'https://shop.example.com/account' },
      200,
    );
    const client = new PortalClient(await portalPath(), t.url);
    await client.get(new URL(link.URL).pathname);
    expect((await client.get(`${client.base}invoices`)).text).toContain(
      'href="https://shop.example.com/account"',
    );
  });

  it('takes a plain http ReturnUrl only on loopback, for development', async () => {
    const login = await customerWithLogin();
    for (const ReturnUrl of ['http://localhost:3000/account', 'http://127.0.0.2/x', 'http://[::1]:8080/']) {
      const res = await t.request('POST', '/v1/portal/sessions', {
        body: { ContactID: login.contactId, ReturnUrl },
      });
      expect(res.status, `${ReturnUrl}: ${res.text}`).toBe(200);
    }
  });

  it('returns 422 naming the field for a bad request', async () => {
    const login = await customerWithLogin();
    for (const [body, field] of [
      [{}, 'ContactID'],
      [{ ContactID: login.contactId, ReturnUrl: 'javascript:alert(1)' }, 'ReturnUrl'],
      [{ ContactID: login.contactId, ReturnUrl: 'not a url' }, 'ReturnUrl'],
      [{ ContactID: login.contactId, ReturnUrl: 'http://shop.example.com/account' }, 'ReturnUrl'],
      [{ ContactID: login.contactId, ReturnUrl: 'http://127.0.0.1.evil.example/' }, 'ReturnUrl'],
      [{ ContactID: login.contactId, CustomerID: (await customerWithLogin()).customerId }, 'ContactID'],
    ] as const) {
      const res = await t.request('POST', '/v1/portal/sessions', { body });
      expect(res.status, res.text).toBe(422);
      expect(res.text).toContain(field);
    }
  });

  it("returns 404 for another account's customer or contact", async () => {
    const login = await customerWithLogin();
    await ok(other, 'PUT', '/v1/account', { PortalSlug: `other-${process.pid}` });
    for (const body of [{ CustomerID: login.customerId }, { ContactID: login.contactId }]) {
      const res = await other.request('POST', '/v1/portal/sessions', { body });
      expect(res.status, res.text).toBe(404);
    }
  });

  it('leaves the token out of the logs', async () => {
    const login = await customerWithLogin();
    const link = await ok(t, 'POST', '/v1/portal/sessions', { ContactID: login.contactId }, 200);
    const token = link.URL.split('/').pop();
    await fetch(link.URL, { redirect: 'manual' });
    expect(t.logs.join('')).toContain('/link/[token]');
    expect(t.logs.join('')).not.toContain(token);
  });
});

describe('forgotten and changed passwords', () => {
  it('e-mails a single-use reset link, and answers the same for an unknown user', async () => {
    const login = await customerWithLogin();
    const client = new PortalClient(await portalPath(), t.url);
    const csrf = await client.csrfOf(`${client.base}reset`);
    const known = await client.post(`${client.base}reset`, { csrf, username: login.username });
    const unknown = await client.post(`${client.base}reset`, { csrf, username: 'nobody-here' });
    expect(known.status).toBe(200);
    expect(unknown.text.replace(/value="[^"]*"/g, '')).toBe(known.text.replace(/value="[^"]*"/g, ''));

    const mail = await eventually(() =>
      smtp.messages.find((m) => m.raw.includes('Reset your') && m.raw.includes(login.username)),
    );
    const unfolded = mail.raw.replace(/=\r?\n/g, '');
    // A plain-text part and an HTML alternative, both signed by the seller (the account's name, without a LegalName).
    expect(mail.raw).toMatch(/Content-Type: text\/plain/i);
    expect(mail.raw).toMatch(/Content-Type: text\/html/i);
    expect(unfolded).toContain('Test Account');
    const path = /\/portal\/[a-z0-9-]+\/reset\/[\w-]{43}/.exec(unfolded)![0];
    const form = await client.csrfOf(path);
    const mismatch = await client.post(path, { csrf: form, Password: 'new1pass', ConfirmPassword: 'other1' });
    expect(mismatch.status).toBe(422);
    const weak = await client.post(path, { csrf: form, Password: 'short', ConfirmPassword: 'short' });
    expect(weak.status).toBe(422);
    expect(weak.text).toContain('role="alert"');
    const done = await client.post(path, { csrf: form, Password: 'new1pass', ConfirmPassword: 'new1pass' });
    expect(done.status).toBe(303);
    expect((await client.get(path)).status).toBe(410);
    expect(t.logs.join('')).not.toContain(path.split('/').pop());
    await signedIn({ ...login, password: 'new1pass' });
    expect((await new PortalClient(client.base, t.url).signIn(login.username, login.password)).status).toBe(
      401,
    );
  });

  it('e-mails a contact at most 3 reset links an hour', async () => {
    const login = await customerWithLogin();
    const client = new PortalClient(await portalPath(), t.url);
    const csrf = await client.csrfOf(`${client.base}reset`);
    const mailsTo = () =>
      smtp.messages.filter((m) => m.raw.includes('Reset your') && m.raw.includes(login.username)).length;
    for (let i = 0; i < 5; i++) {
      const answer = await client.post(`${client.base}reset`, { csrf, username: login.username });
      expect(answer.status).toBe(200);
      expect(answer.text).toContain('If');
    }
    await eventually(() => mailsTo() === 3 || undefined);
    // The mail worker polls every 100 ms: give a fourth and fifth time to arrive, were they queued.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(mailsTo()).toBe(3);
    wallClock.advance(61 * 60_000);
    await client.post(`${client.base}reset`, { csrf, username: login.username });
    await eventually(() => mailsTo() === 4 || undefined);
  });

  it('expires a reset link after 30 minutes', async () => {
    const login = await customerWithLogin();
    const client = new PortalClient(await portalPath(), t.url);
    const before = smtp.messages.length;
    const csrf = await client.csrfOf(`${client.base}reset`);
    await client.post(`${client.base}reset`, { csrf, username: login.username });
    const mail = await eventually(() =>
      smtp.messages.slice(before).find((m) => m.raw.includes(login.username) && m.raw.includes('Reset your')),
    );
    const path = /\/portal\/[a-z0-9-]+\/reset\/[\w-]{43}/.exec(mail.raw.replace(/=\r?\n/g, ''))![0];
    later(30 * 60_000 + 1);
    expect((await client.get(path)).status).toBe(410);
  });

  it('changes the password with the current one, and ends the other sessions', async () => {
    const login = await customerWithLogin();
    const elsewhere = await signedIn(login);
    const client = await signedIn(login);
    const csrf = await client.csrfOf(`${client.base}password`);
    const wrong = await client.post(`${client.base}password`, {
      csrf,
      CurrentPassword: 'not1right',
      Password: 'brand2new',
      ConfirmPassword: 'brand2new',
    });
    expect(wrong.status).toBe(422);
    expect(wrong.text).toContain('Your current password is not right');
    const common = await client.post(`${client.base}password`, {
      csrf,
      CurrentPassword: login.password,
      Password: 'Password1',
      ConfirmPassword: 'Password1',
    });
    expect(common.status).toBe(422);
    expect(common.text).toContain('most common passwords');
    const tooLong = 'a1'.repeat(65);
    expect(
      (
        await client.post(`${client.base}password`, {
          csrf,
          CurrentPassword: login.password,
          Password: tooLong,
          ConfirmPassword: tooLong,
        })
      ).status,
    ).toBe(422);
    const changed = await client.post(`${client.base}password`, {
      csrf,
      CurrentPassword: login.password,
      Password: 'brand2new',
      ConfirmPassword: 'brand2new',
    });
    expect(changed.status).toBe(303);
    expect((await client.get(`${client.base}password?changed=1`)).text).toContain(
      'Your password was changed',
    );
    expect((await elsewhere.get(elsewhere.base)).status).toBe(303);
    const event = await ok(t, 'GET', `/v1/events?type=customer_contact.password_changed`);
    expect(JSON.stringify(event)).toContain(String(login.contactId));
  });
});

describe('links made before a change of login', () => {
  const contactBody = async (contactId: number) => {
    const contact = await ok(t, 'GET', `/v1/customercontacts/${contactId}`);
    return {
      customerID: contact.customerID,
      Name: contact.Name,
      LastName: contact.LastName,
      Email: contact.Email,
      Username: contact.Username,
    };
  };

  const resetPathFor = async (client: PortalClient, username: string) => {
    const before = smtp.messages.length;
    const csrf = await client.csrfOf(`${client.base}reset`);
    await client.post(`${client.base}reset`, { csrf, username });
    const mail = await eventually(() =>
      smtp.messages.slice(before).find((m) => m.raw.includes(username) && m.raw.includes('Reset your')),
    );
    return /\/portal\/[a-z0-9-]+\/reset\/[\w-]{43}/.exec(mail.raw.replace(/=\r?\n/g, ''))![0];
  };

  it('stop working when the password changes through the API', async () => {
    const login = await customerWithLogin();
    const client = new PortalClient(await portalPath(), t.url);
    const reset = await resetPathFor(client, login.username);
    const link = await ok(t, 'POST', '/v1/portal/sessions', { ContactID: login.contactId }, 200);
    await ok(t, 'PUT', `/v1/customercontacts/${login.contactId}`, {
      ...(await contactBody(login.contactId)),
      changePassword: true,
      Password: 'api1changed',
    });
    expect((await client.get(reset)).status).toBe(410);
    expect((await client.get(new URL(link.URL).pathname)).status).toBe(410);
  });

  it('stop working when the e-mail address changes through the API', async () => {
    const login = await customerWithLogin();
    const client = new PortalClient(await portalPath(), t.url);
    const reset = await resetPathFor(client, login.username);
    const link = await ok(t, 'POST', '/v1/portal/sessions', { ContactID: login.contactId }, 200);
    await ok(t, 'PUT', `/v1/customercontacts/${login.contactId}`, {
      ...(await contactBody(login.contactId)),
      Email: `moved-${login.contactId}@example.com`,
    });
    expect((await client.get(reset)).status).toBe(410);
    expect((await client.get(new URL(link.URL).pathname)).status).toBe(410);
  });

  it('stop working when the portal slug is cleared, even once it is set again', async () => {
    const login = await customerWithLogin();
    const slug = (await ok(t, 'GET', '/v1/account')).PortalSlug;
    const client = new PortalClient(await portalPath(), t.url);
    const reset = await resetPathFor(client, login.username);
    const link = await ok(t, 'POST', '/v1/portal/sessions', { ContactID: login.contactId }, 200);
    await ok(t, 'PUT', '/v1/account', { PortalSlug: null });
    await ok(t, 'PUT', '/v1/account', { PortalSlug: slug });
    expect((await client.get(reset)).status).toBe(410);
    expect((await client.get(new URL(link.URL).pathname)).status).toBe(410);
  });

  it('makes a link by CustomerID for a customer with more than 100 contacts', async () => {
    const login = await customerWithLogin();
    // 100 inactive contacts without a login come first (ids before the one with a login).
    await ok(t, 'PUT', `/v1/customercontacts/${login.contactId}`, {
      ...(await contactBody(login.contactId)),
      isActive: false,
    });
    for (let i = 0; i < 100; i++) {
      await ok(t, 'POST', '/v1/customercontacts', {
        customerID: login.customerId,
        Name: 'Quiet',
        LastName: `Contact ${i}`,
        Email: `quiet${i}-${login.customerId}@example.com`,
        isActive: false,
      });
    }
    const last = await ok(t, 'POST', '/v1/customercontacts', {
      customerID: login.customerId,
      Name: 'Late',
      LastName: 'Signer',
      Email: `late-${login.customerId}@example.com`,
      Username: `late-${login.customerId}-${process.pid}`,
      Password: 'late1pass',
    });
    const link = await ok(t, 'POST', '/v1/portal/sessions', { CustomerID: login.customerId }, 200);
    const client = new PortalClient(await portalPath(), t.url);
    expect((await client.get(new URL(link.URL).pathname)).status).toBe(303);
    expect((await client.get(client.base)).text).toContain('Late Signer');
    expect(last.customerContactID).toBeGreaterThan(login.contactId);
  }, 60_000);
});
