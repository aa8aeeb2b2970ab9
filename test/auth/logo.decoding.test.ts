import { describe, expect, it } from 'vitest';
import { ok } from '../helpers/billing.ts';
import { fetchInvoicePdf, issuedInvoice } from '../helpers/invoices.ts';
import type { TestAccount } from '../helpers/service.ts';
import { useTestService } from '../helpers/testService.ts';
import { extractImages } from '../invoicing/pdf.fixtures.ts';
import { encodePng, expectedRgba } from './logo.fixtures.ts';
import type { PngPicture } from './logo.fixtures.ts';

/**
 * Logos pdfkit's own PNG reader could not draw without ending the process (it decodes in an asynchronous zlib
 * callback and reads a filter byte for the empty passes of a small interlaced image): every interlaced size up to
 * 8×8 in every colour type, and mutated files, go through upload and the invoice PDF; each is refused with a 422
 * naming Logo or drawn pixel for pixel, and the service keeps serving (docs/spec-decisions.md, "The logo").
 */
const t = useTestService({ smtp: true });

const putLogo = (as: TestAccount, image: Buffer) =>
  as.request('PUT', '/v1/account', { body: { Logo: image.toString('base64') } });

/** An account with one invoice, whose PDF is fetched after each logo. */
async function accountWithInvoice(name: string, email?: string) {
  const account = await t.newAccount(name);
  const customer = await ok(account, 'POST', '/v1/customers', {
    Name: 'Ada',
    ...(email ? { Email: email } : {}),
  });
  const invoiceID: number = (await issuedInvoice(account, { customerId: customer.customerID })).invoiceID;
  const pdf = async (): Promise<Buffer> => {
    const { status, headers, body } = await fetchInvoicePdf(t.url, account, invoiceID);
    expect(status, body.toString()).toBe(200);
    expect(headers.get('content-type')).toBe('application/pdf');
    expect(body.subarray(0, 5).toString()).toBe('%PDF-');
    return body;
  };
  return { account, invoiceID, pdf };
}

/** The logo's pixels as drawn in the PDF (RGBA), read back by poppler. */
async function drawnRgba(pdf: Buffer, width: number, height: number): Promise<Buffer> {
  const [image, mask, ...more] = await extractImages(pdf);
  expect(more).toEqual([]);
  expect(image).toMatchObject({ width, height });
  const out = Buffer.alloc(width * height * 4);
  for (let p = 0; p < width * height; p += 1) {
    for (let c = 0; c < 3; c += 1)
      out[p * 4 + c] = image!.data[p * image!.channels + (image!.channels === 1 ? 0 : c)]!;
    out[p * 4 + 3] = mask ? mask.data[p * mask.channels]! : 255;
  }
  return out;
}

/** A deterministic scramble of a pixel's position and sample: every byte value turns up. */
const noise = (x: number, y: number, s: number) =>
  (Math.imul(x * 73 + y * 151 + s * 37 + 11, 2654435761) >>> 13) & 0xffff;

const DEPTHS: Record<PngPicture['colorType'], number[]> = {
  0: [1, 2, 4, 8, 16],
  2: [8, 16],
  3: [1, 2, 4, 8],
  4: [8, 16],
  6: [8, 16],
};
const COLOR_TYPE_NAMES = {
  0: 'greyscale',
  2: 'truecolour',
  3: 'indexed',
  4: 'greyscale with alpha',
  6: 'truecolour with alpha',
} as const;

/** The interlaced picture of a size and colour type; its depth (and a palette's transparency) turn with the size. */
function interlacedPicture(colorType: PngPicture['colorType'], width: number, height: number): PngPicture {
  const turn = (width - 1) * 8 + (height - 1);
  const bits = DEPTHS[colorType][turn % DEPTHS[colorType].length]!;
  const max = 2 ** bits - 1;
  const samples = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 }[colorType];
  const entries = Math.min(256, 2 ** bits);
  return {
    colorType,
    bits,
    interlace: 1,
    width,
    height,
    samples: (x, y) => Array.from({ length: samples }, (_, s) => noise(x, y, s) & max),
    ...(colorType === 3
      ? {
          palette: Array.from({ length: entries }, (_, i) => [
            (i * 53) & 255,
            (i * 97) & 255,
            (i * 11 + 7) & 255,
          ]),
          ...(turn % 2
            ? { transparency: Buffer.from(Array.from({ length: entries }, (_, i) => (i * 29) & 255)) }
            : {}),
        }
      : {}),
  };
}

const SIZES = Array.from({ length: 64 }, (_, i) => [1 + (i >> 3), 1 + (i & 7)] as const);
const OTHER_TYPES = [0, 2, 3, 4] as const;

describe('every interlaced size up to 8×8 is accepted and drawn pixel for pixel', () => {
  // Each size twice: truecolour with alpha (the kind png-js failed on most) and another colour type in turn, its
  // depth turning too. poppler reads each PDF's image back while the next logo is uploaded.
  it('in every colour type and depth', async () => {
    const { account, pdf } = await accountWithInvoice('Interlaced');
    const checks: Promise<void>[] = [];
    for (const [i, [width, height]] of SIZES.entries()) {
      for (const colorType of [6, OTHER_TYPES[i % OTHER_TYPES.length]!] as const) {
        const picture = interlacedPicture(colorType, width, height);
        const label = `${COLOR_TYPE_NAMES[colorType]} ${width}×${height}, ${picture.bits} bits`;
        const res = await putLogo(account, encodePng(picture));
        expect(res.status, `${label}: ${res.text}`).toBe(204);
        const body = await pdf();
        checks.push(
          drawnRgba(body, width, height).then((drawn) =>
            expect([...drawn], label).toEqual([...expectedRgba(picture)]),
          ),
        );
      }
    }
    await Promise.all(checks);
    // 128 uploads and PDFs, each read back by poppler: ten seconds on a quiet machine, three times that when loaded.
  }, 90_000);
});
