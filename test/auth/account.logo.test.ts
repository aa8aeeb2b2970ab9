import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ok } from '../helpers/billing.ts';
import { fetchInvoicePdf, issuedInvoice } from '../helpers/invoices.ts';
import type { TestAccount } from '../helpers/service.ts';
import { useTestService } from '../helpers/testService.ts';
import { renderPdf } from '../invoicing/pdf.fixtures.ts';
import { ACCEPTED_PNGS, chunk, craftPng } from './logo.fixtures.ts';

/**
 * Logos of every PNG kind: an upload is decoded by the code that draws it (src/modules/auth/png.ts) and refused
 * unless it decodes, and every kind accepted is drawn in a real invoice PDF. pdfkit's own PNG reader, which throws
 * where nothing can catch it and ends the process, never sees the file.
 */
const t = useTestService();

const putLogo = (as: TestAccount, image: Buffer) =>
  as.request('PUT', '/v1/account', { body: { LegalName: 'Logo Ltd', Logo: image.toString('base64') } });

async function invoicePdf(as: TestAccount): Promise<Buffer> {
  const customer = await ok(as, 'POST', '/v1/customers', { Name: 'Ada' });
  const invoice = await issuedInvoice(as, { customerId: customer.customerID });
  const pdf = await fetchInvoicePdf(t.url, as, invoice.invoiceID);
  expect(pdf.status).toBe(200);
  return pdf.body;
}

describe('a logo pdfkit could not draw is refused on upload', () => {
  // An unknown chunk of length 2^32 - 12: png-js reads -12, steps back onto the same chunk and spins for ever.
  const loopingChunk = chunk('zzZz', Buffer.alloc(0), 0xfffffff4);
  it.each([
    ['an RGBA PNG with a row filter byte of 5', craftPng({ colorType: 6, bits: 8, laterFilter: 5 })],
    [
      'a greyscale-with-alpha PNG whose first row has filter 255',
      craftPng({ colorType: 4, bits: 8, filter: 255 }),
    ],
    [
      'an interlaced PNG with a row filter byte of 5',
      craftPng({ colorType: 2, bits: 8, interlace: 1, laterFilter: 5 }),
    ],
    [
      'an indexed PNG with transparency and a row filter of 9',
      craftPng({ colorType: 3, bits: 8, transparencyBytes: 2, laterFilter: 9 }),
    ],
    ['an opaque RGB PNG with a row filter byte of 5', craftPng({ colorType: 2, bits: 8, laterFilter: 5 })],
    ['an RGBA PNG of 4 bits a sample', craftPng({ colorType: 6, bits: 4 })],
    ['a PNG of colour type 5', craftPng({ colorType: 5, bits: 8 })],
    ['a PNG of interlace method 2', craftPng({ colorType: 2, bits: 8, interlace: 2 })],
    ['an indexed PNG without a palette', craftPng({ colorType: 3, bits: 8, paletteEntries: 0 })],
    [
      'an indexed PNG whose palette is not whole entries',
      craftPng({ colorType: 3, bits: 8, paletteEntries: 0, extra: [chunk('PLTE', Buffer.alloc(7))] }),
    ],
    [
      'a 1-bit indexed PNG with a palette of 3 entries',
      craftPng({ colorType: 3, bits: 1, paletteEntries: 3 }),
    ],
    ['a greyscale PNG with a palette', craftPng({ colorType: 0, bits: 8, paletteEntries: 4 })],
    ['a truecolour PNG with a 3-byte tRNS', craftPng({ colorType: 2, bits: 8, transparencyBytes: 3 })],
    ['an RGBA PNG with a tRNS chunk', craftPng({ colorType: 6, bits: 8, transparencyBytes: 2 })],
    [
      'an indexed PNG with more tRNS entries than palette entries',
      craftPng({ colorType: 3, bits: 8, paletteEntries: 4, transparencyBytes: 5 }),
    ],
    ['a PNG with a chunk length pointing back', craftPng({ colorType: 2, bits: 8, extra: [loopingChunk] })],
    ['a PNG without IEND', craftPng({ colorType: 2, bits: 8 }).subarray(0, -12)],
    [
      'a PNG whose chunk fails its CRC',
      Buffer.from(craftPng({ colorType: 2, bits: 8 }).map((byte, i) => (i === 30 ? byte ^ 1 : byte))),
    ],
    [
      'an indexed PNG with a pixel outside its palette',
      craftPng({ colorType: 3, bits: 8, paletteEntries: 3, noise: true }),
    ],
  ])('refuses %s with 422 naming Logo', async (_label, image) => {
    const account = await t.newAccount('Bad logo');
    const res = await putLogo(account, image);
    expect(res.status, res.text).toBe(422);
    expect(res.headers.get('content-type')).toContain('application/problem+json');
    expect(res.body.fields.map((f: { field: string }) => f.field)).toEqual(['Logo']);
    expect((await account.request('GET', '/v1/account')).body).toMatchObject({
      LegalName: null,
      LogoURL: null,
    });
  });
});

describe('every kind of logo accepted is drawn in the invoice PDF', () => {
  it.each(Object.entries(ACCEPTED_PNGS))('a %s PNG', async (label, kind) => {
    const account = await t.newAccount('Good logo');
    const res = await putLogo(account, craftPng(kind));
    expect(res.status, res.text).toBe(204);
    const rendered = renderPdf(await invoicePdf(account), `logo-${label.replace(/\W+/g, '-')}`);
    expect(rendered.images).toEqual([{ width: 40, height: 24 }]);
  });

  it('a JPEG', async () => {
    const account = await t.newAccount('JPEG logo');
    const jpeg = fs.readFileSync(path.join(import.meta.dirname, 'fixtures', 'logo.jpg'));
    expect((await putLogo(account, jpeg)).status).toBe(204);
    expect(renderPdf(await invoicePdf(account), 'logo-jpeg').images).toHaveLength(1);
  });

  it('leaves out a stored logo that pdfkit would fail on (one stored before these checks) and keeps serving', async () => {
    const account = await t.newAccount('Old bad logo');
    expect((await putLogo(account, craftPng({ colorType: 6, bits: 8 }))).status).toBe(204);
    await t.service.storage.db
      .updateTable('account_logos')
      .set({ image: craftPng({ colorType: 6, bits: 8, laterFilter: 5 }) })
      .where('account_id', '=', account.accountId)
      .execute();
    const rendered = renderPdf(await invoicePdf(account), 'logo-stored-bad');
    expect(rendered.images).toEqual([]);
    expect(rendered.text).toContain('Logo Ltd');
    expect((await account.request('GET', '/v1/account')).status).toBe(200);
  });
});
