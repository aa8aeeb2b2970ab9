import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { killAll, runCli } from '../helpers/cli.ts';
import type { TestAccount } from '../helpers/service.ts';
import { useTestService } from '../helpers/testService.ts';
import { pngLogo } from '../invoicing/pdf.fixtures.ts';

const t = useTestService();
afterAll(async () => {
  await killAll();
});

const SELLER = {
  LegalName: 'Zażółć Gęślą Sp. z o.o.',
  AddressLine1: 'ul. Świętokrzyska 12',
  AddressLine2: 'lok. 4',
  City: 'Warszawa',
  PostalCode: '00-916',
  countryID: 616,
  TaxNumber: 'PL5260250995',
  CompanyNumber: 'KRS 0000012345',
  ContactEmail: 'faktury@example.pl',
  ContactPhone: '+48 (22) 555-01-00',
  PaymentInstructions: 'Bank: PKO BP\nIBAN: PL61 1090 1014 0000 0712 1981 2874',
};

async function readAccount(as: TestAccount) {
  const res = await as.request('GET', '/v1/account');
  expect(res.status, res.text).toBe(200);
  return res.body;
}

const put = (as: TestAccount, body: unknown) => as.request('PUT', '/v1/account', { body });

async function fetchLogo(as: TestAccount) {
  const headers = {
    authorization: `Basic ${Buffer.from(`${as.accountId}:${as.apiKey}`).toString('base64')}`,
  };
  const res = await fetch(`${t.url}/v1/account/logo`, { headers });
  return { res, bytes: Buffer.from(await res.arrayBuffer()) };
}

describe('seller details in PUT and GET /v1/account', () => {
  it('stores every seller detail, shows the country by name, and keeps what a later edit leaves out', async () => {
    const account = await t.newAccount('Seller');
    expect(
      (
        await put(account, {
          ...SELLER,
          PaymentInstructions: 'Bank: PKO BP\r\nIBAN: PL61 1090 1014 0000 0712 1981 2874',
        })
      ).status,
    ).toBe(204);
    expect(await readAccount(account)).toMatchObject({ ...SELLER, Country: 'Poland', LogoURL: null });

    expect((await put(account, { City: 'Kraków', PostalCode: null, countryID: 276 })).status).toBe(204);
    expect(await readAccount(account)).toMatchObject({
      ...SELLER,
      City: 'Kraków',
      PostalCode: null,
      countryID: 276,
      Country: 'Germany',
    });
    // Blank text clears, as null does.
    expect((await put(account, { TaxNumber: '  ', countryID: null })).status).toBe(204);
    expect(await readAccount(account)).toMatchObject({ TaxNumber: null, countryID: null, Country: null });
  });

  it('takes a PNG or JPEG logo as base64, serves it at LogoURL, replaces it, and removes it on null', async () => {
    const account = await t.newAccount('Logo');
    const png = pngLogo(120, 40);
    expect((await put(account, { Logo: png.toString('base64') })).status).toBe(204);
    const body = await readAccount(account);
    expect(body.LogoURL).toBe('/v1/account/logo');
    expect(JSON.stringify(body).length).toBeLessThan(2000);
    let logo = await fetchLogo(account);
    expect(logo.res.status).toBe(200);
    expect(logo.res.headers.get('content-type')).toBe('image/png');
    expect(logo.bytes.equals(png)).toBe(true);

    const jpeg = fs.readFileSync(path.join(import.meta.dirname, 'fixtures', 'logo.jpg'));
    expect((await put(account, { Logo: jpeg.toString('base64') })).status).toBe(204);
    logo = await fetchLogo(account);
    expect(logo.res.headers.get('content-type')).toBe('image/jpeg');
    expect(logo.bytes.equals(jpeg)).toBe(true);

    expect((await put(account, { LegalName: 'Kept logo' })).status).toBe(204);
    expect((await fetchLogo(account)).res.status).toBe(200);
    expect((await put(account, { Logo: null })).status).toBe(204);
    expect((await readAccount(account)).LogoURL).toBeNull();
    const gone = await fetchLogo(account);
    expect(gone.res.status).toBe(404);
    expect(gone.res.headers.get('content-type')).toContain('application/problem+json');
  });

  it("serves only the caller's own logo", async () => {
    const mine = await t.newAccount('Mine');
    const theirs = await t.newAccount('Theirs');
    expect(
      (await put(theirs, { Logo: pngLogo(10, 10).toString('base64'), LegalName: 'Theirs Ltd' })).status,
    ).toBe(204);
    expect((await fetchLogo(mine)).res.status).toBe(404);
    expect(await readAccount(mine)).toMatchObject({ LegalName: null, LogoURL: null });
  });

  const corruptPng = pngLogo(50, 50, { idat: zlib.deflateSync(Buffer.alloc(100)) });
  const truncatedPng = pngLogo(50, 50).subarray(0, 60);
  const gif = Buffer.from('GIF89a\x01\x00\x01\x00\x00\x00\x00;', 'latin1');
  const huge = Buffer.concat([pngLogo(10, 10), Buffer.alloc(256 * 1024)]);
  it.each([
    ['a LegalName over 200 characters', { LegalName: 'x'.repeat(201) }, 'LegalName'],
    ['a line break in AddressLine1', { AddressLine1: 'Line one\nLine two' }, 'AddressLine1'],
    ['a control character in City', { City: 'War\u0007szawa' }, 'City'],
    ['a PostalCode with punctuation', { PostalCode: '00#916' }, 'PostalCode'],
    ['a TaxNumber with spaces only inside symbols', { TaxNumber: '$$$' }, 'TaxNumber'],
    ['a CompanyNumber over 50 characters', { CompanyNumber: '1'.repeat(51) }, 'CompanyNumber'],
    ['a ContactEmail without @', { ContactEmail: 'faktury.example.pl' }, 'ContactEmail'],
    ['a ContactPhone with letters', { ContactPhone: 'call me' }, 'ContactPhone'],
    [
      'PaymentInstructions over 2000 characters',
      { PaymentInstructions: 'x'.repeat(2001) },
      'PaymentInstructions',
    ],
    ['an unknown countryID', { countryID: 999 }, 'countryID'],
    ['a countryID as text', { countryID: 'PL' }, 'countryID'],
    ['a Logo that is not base64', { Logo: 'not base64!' }, 'Logo'],
    ['a GIF Logo', { Logo: gif.toString('base64') }, 'Logo'],
    ['a Logo over 256 KB', { Logo: huge.toString('base64') }, 'Logo'],
    ['a PNG Logo whose pixels are corrupt', { Logo: corruptPng.toString('base64') }, 'Logo'],
    ['a truncated PNG Logo', { Logo: truncatedPng.toString('base64') }, 'Logo'],
    ['a PNG Logo over 2500 pixels a side', { Logo: pngLogo(2600, 1).toString('base64') }, 'Logo'],
  ])('refuses %s with 422 naming the field and changes nothing', async (_label, bad, field) => {
    const account = await t.newAccount('Refusals');
    expect((await put(account, { ...SELLER, Logo: pngLogo(20, 20).toString('base64') })).status).toBe(204);
    const before = await readAccount(account);
    const logoBefore = (await fetchLogo(account)).bytes;
    const res = await put(account, { LegalName: 'Would change', ...bad });
    expect(res.status, res.text).toBe(422);
    expect(res.headers.get('content-type')).toContain('application/problem+json');
    expect(res.body.fields.map((f: { field: string }) => f.field)).toEqual([field]);
    expect(await readAccount(account)).toEqual(before);
    expect((await fetchLogo(account)).bytes.equals(logoBefore)).toBe(true);
  });

  it('lists every invalid seller field at once', async () => {
    const account = await t.newAccount('Many problems');
    const res = await put(account, {
      ContactEmail: 'nope',
      ContactPhone: 'nope',
      countryID: 1,
      Logo: gif.toString('base64'),
    });
    expect(res.status).toBe(422);
    expect(res.body.fields.map((f: { field: string }) => f.field).sort()).toEqual([
      'ContactEmail',
      'ContactPhone',
      'Logo',
      'countryID',
    ]);
  });
});

describe('the sender of e-mails in PUT and GET /v1/account', () => {
  it('stores a SenderName and ReplyTo, shows them, and clears them with null', async () => {
    const account = await t.newAccount('Sender');
    expect(await readAccount(account)).toMatchObject({ SenderName: null, ReplyTo: null });
    const sender = { SenderName: 'Zażółć Billing', ReplyTo: 'konto@example.pl' };
    expect((await put(account, sender)).status).toBe(204);
    expect(await readAccount(account)).toMatchObject(sender);
    expect((await put(account, { SenderName: null, ReplyTo: '' })).status).toBe(204);
    expect(await readAccount(account)).toMatchObject({ SenderName: null, ReplyTo: null });
  });

  it('refuses a ReplyTo that is no address and a SenderName with a line break, naming each, changing nothing', async () => {
    const account = await t.newAccount('Bad sender');
    expect((await put(account, { SenderName: 'Kept' })).status).toBe(204);
    const res = await put(account, {
      SenderName: 'Evil\r\nBcc: everyone@example.com',
      ReplyTo: 'not an address',
    });
    expect(res.status).toBe(422);
    expect(res.headers.get('content-type')).toContain('application/problem+json');
    expect(res.body.fields.map((f: { field: string }) => f.field).sort()).toEqual(['ReplyTo', 'SenderName']);
    expect(await readAccount(account)).toMatchObject({ SenderName: 'Kept', ReplyTo: null });
  });
});

describe('billing account set: seller details', () => {
  it('sets them from options, the logo from a file, and prints them', async () => {
    const account = await t.newAccount('CLI seller');
    const dir = fs.mkdtempSync(path.join(t.dataDir, 'logo-'));
    const file = path.join(dir, 'logo.png');
    const png = pngLogo(64, 32);
    fs.writeFileSync(file, png);
    const result = await runCli(
      [
        'account',
        'set',
        String(account.accountId),
        '--legal-name',
        'Ελληνική Εταιρεία Α.Ε.',
        '--address-line1',
        'Οδός Ερμού 1',
        '--city',
        'Αθήνα',
        '--postal-code',
        '105 63',
        '--country',
        'gr',
        '--tax-number',
        'EL123456789',
        '--company-number',
        'GEMI 123456',
        '--contact-email',
        'info@example.gr',
        '--contact-phone',
        '+30 210 000 0000',
        '--payment-instructions',
        'Bank: Alpha\\nIBAN: GR16 0110 1250 0000 0001 2300 695',
        '--logo',
        file,
      ],
      t.env,
    );
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('Legal name: Ελληνική Εταιρεία Α.Ε.');
    expect(result.stdout).toContain('Address: Οδός Ερμού 1, Αθήνα, 105 63, Greece');
    expect(result.stdout).toContain('Logo: image/png');
    expect(await readAccount(account)).toMatchObject({
      LegalName: 'Ελληνική Εταιρεία Α.Ε.',
      countryID: 300,
      Country: 'Greece',
      TaxNumber: 'EL123456789',
      PaymentInstructions: 'Bank: Alpha\nIBAN: GR16 0110 1250 0000 0001 2300 695',
      LogoURL: '/v1/account/logo',
    });
    expect((await fetchLogo(account)).bytes.equals(png)).toBe(true);

    const cleared = await runCli(
      ['account', 'set', String(account.accountId), '--logo', '', '--country', ''],
      t.env,
    );
    expect(cleared.code, cleared.stderr).toBe(0);
    expect(await readAccount(account)).toMatchObject({
      LogoURL: null,
      countryID: null,
      LegalName: 'Ελληνική Εταιρεία Α.Ε.',
    });
  });

  it.each([
    [['--country', 'XX'], 'Error: --country: "XX" is not an ISO 3166-1 country code'],
    [['--logo', '/nonexistent/logo.png'], 'Error: --logo: cannot read /nonexistent/logo.png: ENOENT'],
    [['--contact-email', 'nope'], 'Error: ContactEmail: must be an e-mail address'],
  ])('account set %j exits 2 (bad usage) saying why, and changes nothing', async (args, message) => {
    const account = await t.newAccount('CLI refusals');
    const before = await readAccount(account);
    const result = await runCli(
      ['account', 'set', String(account.accountId), '--legal-name', 'x', ...args],
      t.env,
    );
    expect(result.code, result.stderr).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain(message);
    expect(await readAccount(account)).toEqual(before);
  });
});
