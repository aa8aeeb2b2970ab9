import crypto from 'node:crypto';
import zlib from 'node:zlib';
import type { FieldProblem } from '../../errors.ts';
import { decodePng } from './png.ts';
import { loadPdfKit } from '../../pdf/pdfWriter.ts';
import type { PdfImage } from '../../pdf/pdfWriter.ts';

/**
 * An account's logo: PNG or JPEG, at most LOGO_MAX_BYTES and LOGO_MAX_SIDE pixels a side. The upload is kept as
 * it came (GET /v1/account/logo answers it), and it is accepted only if the code that draws it can draw it: a
 * PNG is decoded by png.ts on upload and again, from the stored bytes, when an invoice is drawn, and pdfkit is
 * handed the decoded pixels, never the PNG (docs/spec-decisions.md, "The logo"). pdfkit's own PNG reader (png-js)
 * decodes in an asynchronous zlib callback, where a throw ends the process, so it must never see a PNG; a JPEG
 * pdfkit reads synchronously, and it is tried on upload and before drawing.
 */
export const LOGO_MAX_BYTES = 256 * 1024;
export const LOGO_MAX_SIDE = 2500;

export type LogoContentType = 'image/png' | 'image/jpeg';

export interface LogoImage {
  contentType: LogoContentType;
  image: Buffer;
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

function pngSize(image: Buffer): { width: number; height: number } | undefined {
  // The first chunk must be IHDR: length (4), "IHDR", width (4), height (4).
  if (image.length < 24 || image.toString('latin1', 12, 16) !== 'IHDR') return undefined;
  return { width: image.readUInt32BE(16), height: image.readUInt32BE(20) };
}

/** A start-of-frame marker: C0-CF except C4 (Huffman tables), C8 (reserved) and CC (arithmetic coding). */
function isStartOfFrame(marker: number): boolean {
  return marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
}

function jpegSize(image: Buffer): { width: number; height: number } | undefined {
  let at = 2;
  while (at + 9 < image.length) {
    if (image[at] !== 0xff) return undefined;
    const marker = image[at + 1]!;
    if (marker === 0xff) {
      at += 1;
      continue;
    }
    const length = image.readUInt16BE(at + 2);
    if (isStartOfFrame(marker))
      return { height: image.readUInt16BE(at + 5), width: image.readUInt16BE(at + 7) };
    if (marker === 0xd9 || marker === 0xda) return undefined;
    at += 2 + length;
  }
  return undefined;
}

/** The logo as an invoice PDF draws it: decoded pixels, or a JPEG that pdfkit reads synchronously. */
export type PrintableLogo = PdfImage;

/** Why pdfkit cannot read a JPEG, or undefined when it can (its own reader, which is synchronous). */
function jpegProblem(image: Buffer): string | undefined {
  try {
    const PDFDocument = loadPdfKit();
    (new PDFDocument() as unknown as { openImage(src: Buffer): unknown }).openImage(image);
    return undefined;
  } catch {
    return 'is a JPEG image that cannot be read';
  }
}

function prepare(logo: LogoImage): PrintableLogo | string {
  if (logo.contentType === 'image/jpeg')
    return jpegProblem(logo.image) ?? { kind: 'jpeg', image: logo.image };
  const decoded = decodePng(logo.image, LOGO_MAX_SIDE);
  if (typeof decoded === 'string') return decoded;
  return {
    kind: 'pixels',
    width: decoded.width,
    height: decoded.height,
    colors: decoded.colors,
    samples: zlib.deflateSync(decoded.pixels),
    alpha: decoded.alpha && zlib.deflateSync(decoded.alpha),
  };
}

/**
 * Logos recently prepared, by a hash of their bytes: decoding a large logo takes a while (about half a second
 * for 2500×2500 pixels), and a bill run mails many invoices of one account. Bounded in bytes, oldest out first;
 * the same bytes always give the same result, so sharing it between accounts shows no account anything.
 */
const PREPARED_MAX_BYTES = 32 * 1024 * 1024;
const prepared = new Map<string, { logo: PrintableLogo | string; bytes: number }>();
let preparedBytes = 0;

/**
 * The logo ready to draw, or why it cannot be drawn (a sentence after the field's name). An upload is checked with
 * it, and a stored logo goes through it again before each drawing: one stored by an earlier version, whose checks
 * let through images pdfkit could not draw, is then refused here and the invoice is drawn without it.
 */
export function printableLogo(logo: LogoImage): PrintableLogo | string {
  const key = crypto.createHash('sha256').update(logo.contentType).update(logo.image).digest('hex');
  const hit = prepared.get(key);
  if (hit) {
    prepared.delete(key);
    prepared.set(key, hit);
    return hit.logo;
  }
  const made = prepare(logo);
  const bytes =
    typeof made === 'string'
      ? made.length
      : made.kind === 'jpeg'
        ? made.image.length
        : made.samples.length + (made.alpha?.length ?? 0);
  if (bytes <= PREPARED_MAX_BYTES / 4) {
    prepared.set(key, { logo: made, bytes });
    preparedBytes += bytes;
    for (const [oldKey, old] of prepared) {
      if (preparedBytes <= PREPARED_MAX_BYTES) break;
      prepared.delete(oldKey);
      preparedBytes -= old.bytes;
    }
  }
  return made;
}

/** The logo as an upload gives it, or the problems found (keyed `field`). */
export function checkLogo(image: Buffer, field: string, problems: FieldProblem[]): LogoImage | undefined {
  const before = problems.length;
  const contentType: LogoContentType | undefined = image.subarray(0, 8).equals(PNG_SIGNATURE)
    ? 'image/png'
    : image.length > 3 && image[0] === 0xff && image[1] === 0xd8 && image[2] === 0xff
      ? 'image/jpeg'
      : undefined;
  if (image.length > LOGO_MAX_BYTES) {
    problems.push({ field, message: `must be at most ${LOGO_MAX_BYTES} bytes (it has ${image.length})` });
  } else if (!contentType) {
    problems.push({ field, message: 'must be a PNG or JPEG image' });
  } else {
    const size = contentType === 'image/png' ? pngSize(image) : jpegSize(image);
    if (!size || size.width < 1 || size.height < 1) {
      problems.push({
        field,
        message: `is not a readable ${contentType === 'image/png' ? 'PNG' : 'JPEG'} image`,
      });
    } else if (size.width > LOGO_MAX_SIDE || size.height > LOGO_MAX_SIDE) {
      problems.push({
        field,
        message: `must be at most ${LOGO_MAX_SIDE} pixels a side (it is ${size.width}×${size.height})`,
      });
    } else {
      const printable = printableLogo({ contentType, image });
      if (typeof printable === 'string') problems.push({ field, message: printable });
    }
  }
  return problems.length === before && contentType ? { contentType, image } : undefined;
}
