import zlib from 'node:zlib';
import PDFDocument from 'pdfkit';
import type { FieldProblem } from '../../errors.ts';

/**
 * An account's logo: PNG or JPEG, at most LOGO_MAX_BYTES and LOGO_MAX_SIDE pixels a side. It is checked once, on
 * upload, by its magic bytes, its declared dimensions and a trial read by pdfkit, so that rendering an
 * invoice never fails on it later.
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

/** What pdfkit's openImage gives for a PNG (png-js); absent from pdfkit's type declarations. */
interface OpenedImage {
  image?: {
    imgData: Uint8Array;
    width: number;
    height: number;
    pixelBitlength: number;
    interlaceMethod: number;
  };
}

const ADAM7_PASSES = [
  [0, 0, 8, 8],
  [4, 0, 8, 8],
  [0, 4, 4, 8],
  [2, 0, 4, 4],
  [0, 2, 2, 4],
  [1, 0, 2, 2],
  [0, 1, 1, 2],
] as const;

/** The bytes a PNG's image data inflates to: each row of each (Adam7) pass is a filter byte and its pixels. */
function pngDataLength(png: NonNullable<OpenedImage['image']>): number {
  const rowBytes = (width: number) => 1 + Math.ceil((width * png.pixelBitlength) / 8);
  if (png.interlaceMethod !== 1) return png.height * rowBytes(png.width);
  let total = 0;
  for (const [x0, y0, dx, dy] of ADAM7_PASSES) {
    const width = Math.ceil((png.width - x0) / dx);
    const height = Math.ceil((png.height - y0) / dy);
    if (width > 0 && height > 0) total += height * rowBytes(width);
  }
  return total;
}

/**
 * Whether pdfkit reads the image. NOTE: pdfkit inflates a PNG with transparency asynchronously and throws from
 * the callback on corrupt data, which would end the process mid-render; so the data is inflated here first, once,
 * synchronously and bounded by the size the header promises.
 */
function readableByPdfkit(image: Buffer, contentType: LogoContentType): boolean {
  try {
    const opened = (new PDFDocument() as unknown as { openImage(src: Buffer): OpenedImage }).openImage(image);
    if (contentType === 'image/jpeg') return true;
    const png = opened.image;
    if (!png) return false;
    const expected = pngDataLength(png);
    return zlib.inflateSync(png.imgData, { maxOutputLength: expected + 1 }).length === expected;
  } catch {
    return false;
  }
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
    } else if (!readableByPdfkit(image, contentType)) {
      problems.push({ field, message: 'is an image that cannot be read' });
    }
  }
  return problems.length === before && contentType ? { contentType, image } : undefined;
}
