import { describe, expect, it } from 'vitest';
import { verifyPassword } from '../../src/security/passwords.ts';
import { eventually } from '../helpers/service.ts';
import { useTestService } from '../helpers/testService.ts';
import { newCustomer, t, useCustomersService } from './fixtures.ts';
import { credentialsIn, editBody, mailTo, uniqueEmail } from './contacts.fixtures.ts';

useCustomersService({ smtp: true });

describe('mail without an SMTP server', () => {
  const quiet = useTestService();

  it('records the credentials mail as skipped, its body sealed yet readable', async () => {
    const customer = await quiet.request('POST', '/v1/customers', { body: { Name: 'Quiet Co' } });
    const Email = uniqueEmail('nosmtp');
    const created = await quiet.request('POST', '/v1/customercontacts', {
      body: { customerID: customer.body.customerID, Name: 'Ada', LastName: 'Lovelace', Email },
    });
    expect(created.status).toBe(201);

    const db = quiet.service.storage.db;
    const row = await eventually(async () => {
      const found = await db
        .selectFrom('mail_outbox')
        .selectAll()
        .where('account_id', '=', quiet.accountId)
        .where('recipient', '=', Email)
        .executeTakeFirst();
      return found?.status === 'skipped' ? found : undefined;
    });
    expect(row.delivered_at).toBeNull();
    const text = quiet.service.secrets.open(row.body_sealed);
    const { username, password } = credentialsIn(text);
    expect(username).toMatch(/^alovelace-[a-z2-9]{6}$/);
    expect(password).toBeDefined();
    expect(row.body_sealed).not.toContain(password);
    expect(row.body_sealed).not.toContain('Password:');
    expect(row.subject).not.toContain(password);

    const stored = await db
      .selectFrom('customer_contacts')
      .select('password_hash')
      .where('id', '=', created.body.customerContactID)
      .executeTakeFirstOrThrow();
    expect(await verifyPassword(password!, stored.password_hash!)).toBe(true);
  });
});

describe('password secrecy', () => {
  it('never writes a password to the logs or to a response', async () => {
    const customerID = await newCustomer();
    const responses: string[] = [];
    const call = async (method: string, path: string, body?: unknown) => {
      const res = await t.request(method, path, { body });
      responses.push(res.text);
      return res;
    };
    const givenEmail = uniqueEmail('given');
    const given = await call('POST', '/v1/customercontacts', {
      customerID,
      Name: 'Given',
      LastName: 'Secret',
      Email: givenEmail,
      Username: 'given-secret',
      Password: 'Hunter2Given',
    });
    const generatedEmail = uniqueEmail('generated');
    const generated = await call('POST', '/v1/customercontacts', {
      customerID,
      Name: 'Generated',
      LastName: 'Secret',
      Email: generatedEmail,
    });
    await call('POST', '/v1/customercontacts', {
      customerID,
      Name: 'Refused',
      LastName: 'Secret',
      Email: uniqueEmail('refused'),
      Password: 'nodigitshere',
    });
    await call('PUT', `/v1/customercontacts/${given.body.customerContactID}`, {
      ...editBody(given.body),
      Password: 'Edited9Secret',
      changePassword: true,
    });
    await call('PUT', `/v1/customercontacts/${generated.body.customerContactID}`, {
      ...editBody(generated.body),
      Password: '',
      changePassword: true,
    });
    await call('GET', `/v1/customercontacts/${given.body.customerContactID}`);
    await call('GET', `/v1/customers/${customerID}/contacts`);
    await call('GET', '/v1/customercontacts?page_size=200');

    const generatedOnAdd = credentialsIn((await mailTo(generatedEmail, 1)).text).password!;
    const generatedOnEdit = credentialsIn((await mailTo(generatedEmail, 2)).text).password!;
    expect(credentialsIn((await mailTo(givenEmail, 2)).text).password).toBe('Edited9Secret');
    const secrets = ['Hunter2Given', 'nodigitshere', 'Edited9Secret', generatedOnAdd, generatedOnEdit];

    const logs = t.logs.join('');
    expect(logs).toContain('/v1/customercontacts');
    for (const secret of secrets) {
      expect(secret).toBeTruthy();
      expect(logs, secret).not.toContain(secret);
      for (const text of responses) expect(text, secret).not.toContain(secret);
    }
  });
});

describe('the credentials message', () => {
  it('comes as text and HTML, with the portal to sign in to and the seller who sends it', async () => {
    const slug = `creds-${process.pid}-${Date.now()}`;
    expect((await t.request('PUT', '/v1/account', { body: { PortalSlug: slug } })).status).toBe(204);
    try {
      const customerID = await newCustomer();
      const Email = uniqueEmail('html');
      const created = await t.request('POST', '/v1/customercontacts', {
        body: { customerID, Name: 'Hedy', LastName: 'Lamarr', Email, Password: 'Spread5Spectrum' },
      });
      expect(created.status, created.text).toBe(201);
      const account = (await t.request('GET', '/v1/account')).body;
      const mail = await mailTo(Email);
      expect(mail.text).toContain('Hello Hedy,');
      expect(credentialsIn(mail.text)).toEqual({
        username: created.body.Username,
        password: 'Spread5Spectrum',
      });
      expect(mail.text).toContain(`${t.url}/portal/${slug}/`);
      expect(mail.text).toContain(account.Name);
      expect(mail.html).toContain(`<a href="${t.url}/portal/${slug}/">Sign in to the customer portal</a>`);
      expect(mail.html).toContain(
        '<th scope="row" style="text-align: left; padding: 2px 12px 2px 0; font-weight: normal;">Password</th>',
      );
      expect(mail.html).toContain(`<strong>${account.Name}</strong>`);
    } finally {
      await t.request('PUT', '/v1/account', { body: { PortalSlug: null } });
    }
  });
});
