import zlib from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ok } from '../helpers/billing.ts';
import { fetchInvoicePdf, issuedInvoice } from '../helpers/invoices.ts';
import { eventually } from '../helpers/service.ts';
import type { TestAccount } from '../helpers/service.ts';
import { useTestService } from '../helpers/testService.ts';
import { pdfAttachment } from '../invoicing/invoices.fixtures.ts';
import { chunk, craftPng, withValidCrcs } from './logo.fixtures.ts';

/**
 * Mutated logos through upload and the invoice PDF: each is refused with a 422 naming Logo or accepted and drawn,
 * and the service keeps serving; and a logo stored by an earlier version that pdfkit's PNG reader would have
 * died on neither stops the mail worker nor its e-mail (docs/spec-decisions.md, "The logo").
 */
const t = useTestService({ smtp: true });
const { smtp } = t;

const putLogo = (as: TestAccount, image: Buffer) =>
  as.request('PUT', '/v1/account', { body: { Logo: image.toString('base64') } });

async function invoiceOf(account: TestAccount, email?: string): Promise<number> {
  const customer = await ok(account, 'POST', '/v1/customers', {
    Name: 'Ada',
    ...(email ? { Email: email } : {}),
  });
  return (await issuedInvoice(account, { customerId: customer.customerID })).invoiceID;
}

const fetchPdf = (account: TestAccount, invoiceID: number) => fetchInvoicePdf(t.url, account, invoiceID);

/** Small valid PNGs of several kinds, interlaced or not, whose bytes look like noise. */
const BASES = [
  craftPng({ colorType: 6, bits: 8, interlace: 1, noise: true }, 5, 3),
  craftPng({ colorType: 3, bits: 2, interlace: 1, transparencyBytes: 2, noise: true }, 3, 4),
  craftPng({ colorType: 0, bits: 16, noise: true }, 4, 2),
  craftPng({ colorType: 2, bits: 8, interlace: 1, noise: true }, 2, 2),
  craftPng({ colorType: 4, bits: 8, noise: true }, 3, 3),
];

/** Replaces the IDAT chunk (the fixtures write one) with `data` compressed; a file already broken stays as it is. */
function withImageData(png: Buffer, change: (data: Buffer) => Buffer): Buffer {
  const at = png.indexOf('IDAT', 8, 'latin1') - 4;
  if (at < 8) return png;
  const length = png.readUInt32BE(at);
  if (at + 12 + length > png.length) return png;
  let inflated: Buffer;
  try {
    inflated = zlib.inflateSync(png.subarray(at + 8, at + 8 + length));
  } catch {
    return png;
  }
  const data = change(inflated);
  return Buffer.concat([
    png.subarray(0, at),
    chunk('IDAT', zlib.deflateSync(data)),
    png.subarray(at + 12 + length),
  ]);
}

/** A mutation of a file's bytes (CRCs then rewritten), or of the inflated image data (filter bytes, pixels). */
const mutation = fc.oneof(
  fc.record({ kind: fc.constant('flip'), at: fc.nat(), bit: fc.integer({ min: 0, max: 7 }) }),
  fc.record({
    kind: fc.constant('insert'),
    at: fc.nat(),
    bytes: fc.uint8Array({ minLength: 1, maxLength: 4 }),
  }),
  fc.record({ kind: fc.constant('remove'), at: fc.nat(), length: fc.integer({ min: 1, max: 4 }) }),
  fc.record({ kind: fc.constant('truncate'), at: fc.nat() }),
  fc.record({ kind: fc.constant('pixel'), at: fc.nat(), value: fc.integer({ min: 0, max: 255 }) }),
  fc.record({
    kind: fc.constant('header'),
    at: fc.integer({ min: 16, max: 28 }),
    value: fc.integer({ min: 0, max: 255 }),
  }),
);
type Mutation = typeof mutation extends fc.Arbitrary<infer M> ? M : never;

function mutate(png: Buffer, m: Mutation): Buffer {
  const at = m.at % png.length;
  switch (m.kind) {
    case 'flip':
      return withValidCrcs(Buffer.from(png.map((byte, i) => (i === at ? byte ^ (1 << m.bit) : byte))));
    case 'insert':
      return withValidCrcs(Buffer.concat([png.subarray(0, at), Buffer.from(m.bytes), png.subarray(at)]));
    case 'remove':
      return withValidCrcs(Buffer.concat([png.subarray(0, at), png.subarray(at + m.length)]));
    case 'truncate':
      return png.subarray(0, at);
    case 'pixel':
      return withImageData(png, (data) =>
        Buffer.from(data.map((byte, i) => (i === m.at % data.length ? m.value : byte))),
      );
    case 'header':
      return withValidCrcs(Buffer.from(png.map((byte, i) => (i === m.at ? m.value : byte))));
  }
}

describe('a mutated PNG is refused naming Logo, or accepted and drawn', () => {
  it('for a few hundred mutations, and the service keeps serving', async () => {
    const account = await t.newAccount('Mutations');
    const invoiceID = await invoiceOf(account);
    const outcomes = { accepted: 0, refused: 0 };
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: BASES.length - 1 }),
        fc.array(mutation, { minLength: 1, maxLength: 2 }),
        async (base, mutations) => {
          const image = mutations.reduce(mutate, BASES[base]!);
          const res = await putLogo(account, image);
          if (res.status === 422) {
            outcomes.refused += 1;
            expect(res.body.fields.map((f: { field: string }) => f.field)).toEqual(['Logo']);
            return;
          }
          expect(res.status, res.text).toBe(204);
          outcomes.accepted += 1;
          const pdf = await fetchPdf(account, invoiceID);
          expect(pdf.status, pdf.body.toString()).toBe(200);
          expect(pdf.body.subarray(0, 5).toString()).toBe('%PDF-');
        },
      ),
      { numRuns: 250 },
    );
    // Both outcomes are met (pixel mutations keep most files valid), and the process is still here to answer.
    expect(outcomes.accepted).toBeGreaterThan(10);
    expect(outcomes.refused).toBeGreaterThan(10);
    expect((await account.request('GET', '/v1/account')).status).toBe(200);
  });
});

describe('a stored logo that pdfkit could not have drawn', () => {
  it('is left out of the mailed invoice, and the mail worker keeps running', async () => {
    const account = await t.newAccount('Old logo');
    expect((await putLogo(account, craftPng({ colorType: 6, bits: 8 }))).status).toBe(204);
    // What an earlier version stored: a 2×2 interlaced RGBA PNG whose data png-js misreads (it reads a filter byte
    // for each empty Adam7 pass) and one whose row filter byte is 5; the second is refused by the decoder too.
    const rows = Buffer.from([0, 200, 10, 10, 255, 0, 200, 10, 10, 255, 0, 200, 10, 10, 255, 9, 9, 9, 255]);
    const header = Buffer.alloc(13);
    header.writeUInt32BE(2, 0);
    header.writeUInt32BE(2, 4);
    header.set([8, 6, 0, 0, 1], 8);
    const interlaced = Buffer.concat([
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
      chunk('IHDR', header),
      chunk('IDAT', zlib.deflateSync(rows)),
      chunk('IEND', Buffer.alloc(0)),
    ]);
    for (const [name, image] of [
      ['interlaced', interlaced],
      ['bad-filter', craftPng({ colorType: 6, bits: 8, laterFilter: 5 })],
    ] as const) {
      await t.service.storage.db
        .updateTable('account_logos')
        .set({ image })
        .where('account_id', '=', account.accountId)
        .execute();
      const email = `old-logo-${name}@example.test`;
      const invoiceID = await invoiceOf(account, email);
      expect((await account.request('PUT', `/v1/invoices/${invoiceID}/send`)).status).toBe(204);
      const mail = await eventually(() => smtp.messages.find((m) => m.to.includes(email)));
      expect(pdfAttachment(mail.raw)?.subarray(0, 5).toString()).toBe('%PDF-');
      expect((await fetchPdf(account, invoiceID)).status).toBe(200);
    }
    expect((await account.request('GET', '/v1/account')).status).toBe(200);
  });
});
