import { beforeAll, describe, expect, it } from 'vitest';
import type { TestAccount } from '../helpers/service.ts';
import { pngLogo, renderPdf } from '../invoicing/pdf.fixtures.ts';
import {
  ACCOUNT_NUMBER,
  NORTHWIND,
  advanceClock,
  createMandate,
  downloadPdf as download,
  downloadPdfWithKey,
  fieldsOf,
  getPage,
  readMandate,
  mandateAccount,
  mandateBody,
  mandateRow,
  signedMandate,
  t,
  useMandatesService,
} from './fixtures.ts';

// docs/design/mandates.md, "The signed mandate document": GET and POST /widget/emandate/download?token= answer
// the signed mandate as a PDF, read back here with poppler-utils (pdftotext, pdftoppm, pdffonts).

useMandatesService();

let account: TestAccount;
let start: string;
beforeAll(async () => {
  ({ account, start } = await mandateAccount('Mandate PDFs', {
    seller: {
      LegalName: 'Northwind Software Ltd',
      AddressLine1: '1 Dock Road',
      City: 'Cape Town',
      PostalCode: '8001',
      ContactEmail: 'billing@northwind.example',
      ContactPhone: '+27 21 555 0199',
      TaxNumber: '4123456789',
    },
  }));
});

/** A mandate signed on its page by a browser saying PdfTest/3.1. */
const signed = (fields: Record<string, unknown> = {}) =>
  signedMandate(account, mandateBody(start, fields), 'PdfTest/3.1');

describe('the signed mandate PDF', () => {
  it('shows every field, the beneficiary, the terms and the evidence, with the account masked', async () => {
    const token = await signed({ isCompanySignee: true, debit_ContractRef: 'NW-2026-0042' });
    const res = await download(token);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/pdf');
    expect(res.headers.get('content-disposition')).toBe('attachment; filename="emandate-NW-2026-0042.pdf"');
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.body.subarray(0, 5).toString()).toBe('%PDF-');

    const { text, pages, fonts } = renderPdf(res.body, 'emandate-signed');
    const flat = text.replace(/\s+/g, ' ');
    for (const expected of [
      // The seller block, as on invoices.
      'Northwind Software Ltd',
      '1 Dock Road',
      'Tax number: 4123456789',
      'billing@northwind.example',
      'DEBIT ORDER MANDATE',
      'SIGNED',
      // The mandate and the signee.
      'NW-2026-0042',
      'Thandi Nkosi',
      'Nkosi Trading (Pty) Ltd',
      'Nkosi Fresh',
      '+27 21 555 0100',
      'thandi@nkosi.example',
      '12 Long Street, Unit 4, Cape Town, Western Cape, 8001, ZAF',
      // The bank account, masked.
      'First National Bank',
      '250655',
      'T Nkosi',
      '••••9876',
      'Cheque',
      // The debit terms.
      'Monthly',
      'Action day 25',
      `First collection ${start}`,
      'Instalment 299.99 USD',
      'Maximum 449.98 USD',
      '5% a year',
      'Name on statement NORTHWIND',
      // The consent, the rights and the evidence.
      'I, Thandi Nkosi, authorise Northwind Software Ltd to debit',
      'within 40 days',
      'Signed by Thandi Nkosi (typed name)',
      'User agent PdfTest/3.1',
      'emandate-consent-v1',
    ])
      expect(flat, expected).toContain(expected);
    expect(flat).toMatch(/Client address \S*127\.0\.0\.1/);
    // Long hex values wrap in their column: compared without white space.
    const row = await mandateRow(token);
    const compact = text.replace(/\s+/g, '');
    // Not the token: a bearer capability, and copies of the PDF travel (docs/spec-decisions.md, "eMandate tokens
    // at rest"); the contract reference names the mandate.
    expect(compact).not.toContain(token);
    expect(compact).toContain(`ConsentSHA-256${row.consent_sha256}`);
    expect(compact).toContain(`DocumentSHA-256${row.document_sha256}`);
    expect(flat).not.toContain(ACCOUNT_NUMBER);
    // The invoices' embedded fonts; every page numbered.
    expect(fonts.some((font) => font.includes('DejaVuSans'))).toBe(true);
    expect(pages.length).toBeGreaterThanOrEqual(1);
    expect(flat).toContain(`Page 1 of ${pages.length}`);
  });

  it('carries the account logo in the seller block, as invoices do', async () => {
    const logo = await account.request('PUT', '/v1/account', {
      body: { Logo: pngLogo().toString('base64') },
    });
    expect(logo.status, logo.text).toBe(204);
    const res = await download(await signed());
    expect(renderPdf(res.body, 'emandate-logo').images.length).toBe(1);
  });

  it('answers POST as GET, with the token in the form', async () => {
    const token = await signed();
    const res = await download(token, 'POST');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/pdf');
    expect(renderPdf(res.body, 'emandate-post').text).toContain('Thandi Nkosi');
  });

  it('answers 409 before the mandate is signed, and 404 for an unknown token', async () => {
    const token = await createMandate(account, mandateBody(start));
    const unsigned = await download(token);
    expect(unsigned.status).toBe(409);
    expect(JSON.parse(unsigned.body.toString()).code).toBe('emandate_not_signed');
    expect((await download('f'.repeat(64))).status).toBe(404);
    expect((await fetch(`${t.url}/widget/emandate/download`)).status).toBe(404);
  });
});

// docs/spec-decisions.md, "The signed PDF": the public link for 30 days after signing, the API key for good.
describe('downloading the signed PDF over time', () => {
  it('answers 410 by the public link from 30 days after signing, while the API key still downloads it', async () => {
    // An account of its own: its test clock moves a month on.
    const { account: clocked, start: later } = await mandateAccount('PDF window', { seller: NORTHWIND });
    const token = await signedMandate(clocked, mandateBody(later));
    const { DateSigned } = await readMandate(clocked, token);
    const first = await download(token);
    expect(first.status).toBe(200);

    // 30 days are 2 592 000 seconds: a second before their end the link still downloads, at their end it is gone.
    const ends = Date.parse(DateSigned) + 30 * 86_400_000;
    await advanceClock(clocked, new Date(ends - 1000).toISOString());
    expect((await download(token)).status).toBe(200);
    await advanceClock(clocked, new Date(ends).toISOString());
    for (const method of ['GET', 'POST'] as const) {
      const gone = await download(token, method);
      expect(gone.status).toBe(410);
      expect(gone.headers.get('content-type')).toContain('application/problem+json');
      const problem = JSON.parse(gone.body.toString());
      expect(problem.code).toBe('emandate_download_expired');
      expect(problem.detail).toContain('ask Northwind Software Ltd for a copy');
    }
    const page = await getPage(`/widget/emandate/${token}`);
    expect(page.html).toContain('The download link has expired');
    expect(page.html).not.toContain('/widget/emandate/download');

    // The merchant's copy: the same file, whatever its age.
    const api = await downloadPdfWithKey(clocked, token);
    expect(api.status).toBe(200);
    expect(api.headers.get('content-type')).toBe('application/pdf');
    expect(api.headers.get('content-disposition')).toMatch(/^attachment; filename="emandate-.+\.pdf"$/);
    expect(api.body.equals(first.body)).toBe(true);
  });

  it('answers the API 409 before signing, 404 for another account’s token and 422 without one', async () => {
    const unsigned = await createMandate(account, mandateBody(start));
    const early = await account.request('GET', `/v1/emandate/download?Token=${unsigned}`);
    expect(early.status).toBe(409);
    expect(early.body.code).toBe('emandate_not_signed');

    const theirs = await signed();
    const other = await t.newAccount('Not the beneficiary');
    const foreign = await other.request('GET', `/v1/emandate/download?Token=${theirs}`);
    expect(foreign.status).toBe(404);
    expect(foreign.text).not.toContain('Thandi');
    const missing = await account.request('GET', '/v1/emandate/download');
    expect(missing.status).toBe(422);
    expect(fieldsOf(missing)).toEqual(['Token']);
  });
});
