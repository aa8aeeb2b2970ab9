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

/** The seven passes of Adam7 interlacing: first column and row, then the step between columns and rows. */
const ADAM7_PASSES = [
  [0, 0, 8, 8],
  [4, 0, 8, 8],
  [0, 4, 4, 8],
  [2, 0, 4, 4],
  [0, 2, 2, 4],
  [1, 0, 2, 2],
  [0, 1, 1, 2],
] as const;

/** A PNG's structure, read from its chunks (what png-js would read, without trusting it to stop). */
interface PngLayout {
  width: number;
  height: number;
  bits: number;
  colorType: number;
  interlace: number;
  /** Bytes of the PLTE chunk, 0 when there is none. */
  paletteBytes: number;
  /** Bytes of the tRNS chunk, undefined when there is none. */
  transparencyBytes: number | undefined;
  idat: Buffer;
}

/** Bit depths the PNG specification allows, by colour type; and the samples a pixel has. */
const PNG_COLOR_TYPES: Record<number, { bits: number[]; samples: number }> = {
  0: { bits: [1, 2, 4, 8, 16], samples: 1 }, // greyscale
  2: { bits: [8, 16], samples: 3 }, // truecolour
  3: { bits: [1, 2, 4, 8], samples: 1 }, // indexed (palette)
  4: { bits: [8, 16], samples: 2 }, // greyscale with alpha
  6: { bits: [8, 16], samples: 4 }, // truecolour with alpha
};

/**
 * The chunks of a PNG, or why they cannot be read. png-js reads a chunk length as a signed number and skips by
 * it, so a length of 2^32 - 12 or so sends it back to the same chunk for ever: the walk here comes first and
 * accepts only lengths that end inside the file.
 */
function pngLayout(image: Buffer): PngLayout | string {
  let at = 8;
  let header: Buffer | undefined;
  let paletteBytes = 0;
  let transparencyBytes: number | undefined;
  const idat: Buffer[] = [];
  for (;;) {
    if (at + 12 > image.length) return 'is a truncated PNG image';
    const length = image.readUInt32BE(at);
    const type = image.toString('latin1', at + 4, at + 8);
    const end = at + 12 + length;
    if (end > image.length) return 'is a truncated PNG image';
    const data = image.subarray(at + 8, at + 8 + length);
    if (!header && (type !== 'IHDR' || length !== 13)) return 'is not a readable PNG image';
    if (type === 'IHDR') header = data;
    else if (type === 'PLTE') paletteBytes = length;
    else if (type === 'tRNS') transparencyBytes = length;
    else if (type === 'IDAT') idat.push(data);
    else if (type === 'IEND') break;
    at = end;
  }
  if (!header) return 'is not a readable PNG image';
  return {
    width: header.readUInt32BE(0),
    height: header.readUInt32BE(4),
    bits: header[8]!,
    colorType: header[9]!,
    interlace: header[12]!,
    paletteBytes,
    transparencyBytes,
    idat: Buffer.concat(idat),
  };
}

/**
 * Why pdfkit cannot embed this PNG, or undefined when it can. pdfkit decodes the pixels of a PNG with an alpha
 * channel, a palette with transparency (tRNS) or interlacing in an asynchronous zlib callback, and png-js throws
 * there (no caller can catch it: the process ends) on a row filter byte above 4. That decoder also assumes whole
 * bytes a pixel, so below 8 bits a sample it draws noise. Those images are refused on upload, as is anything
 * outside the PNG specification that pdfkit would embed wrongly (a palette on a non-indexed image, a tRNS chunk
 * of the wrong size).
 */
function pngProblem(png: PngLayout): string | undefined {
  const kind = PNG_COLOR_TYPES[png.colorType];
  if (!kind || !kind.bits.includes(png.bits) || png.interlace > 1)
    return 'is a PNG image of a kind that is not supported (colour type, bit depth or interlacing)';
  if (png.colorType === 3) {
    const entries = png.paletteBytes / 3;
    if (!Number.isInteger(entries) || entries < 1 || entries > 2 ** png.bits)
      return 'is an indexed PNG image without a valid palette';
  } else if (png.paletteBytes > 0) {
    return 'is a PNG image with a palette (PLTE) but no indexed colour, which cannot be embedded';
  }
  if (png.transparencyBytes !== undefined) {
    const valid =
      png.colorType === 0
        ? png.transparencyBytes === 2
        : png.colorType === 2
          ? png.transparencyBytes === 6
          : png.colorType === 3 && png.transparencyBytes <= png.paletteBytes / 3;
    if (!valid) return 'is a PNG image with an invalid transparency (tRNS) chunk';
  }
  const decodedAsync =
    png.colorType >= 4 || png.interlace === 1 || (png.colorType === 3 && png.transparencyBytes);
  if (decodedAsync && png.bits < 8)
    return 'is a PNG image with transparency or interlacing below 8 bits a sample, which cannot be embedded: save it with 8 bits';

  // The image data inflates to each row of each (Adam7) pass: a filter byte (0-4) and its pixels.
  const bitsPerPixel = png.bits * kind.samples;
  const rows: number[] = [];
  const passes = png.interlace === 1 ? ADAM7_PASSES : ([[0, 0, 1, 1]] as const);
  for (const [x0, y0, dx, dy] of passes) {
    const width = Math.ceil((png.width - x0) / dx);
    const height = Math.ceil((png.height - y0) / dy);
    if (width > 0 && height > 0)
      for (let y = 0; y < height; y += 1) rows.push(1 + Math.ceil((width * bitsPerPixel) / 8));
  }
  const expected = rows.reduce((sum, row) => sum + row, 0);
  let pixels: Buffer;
  try {
    // Bounded by the size the header promises: a small file must not inflate to gigabytes.
    pixels = zlib.inflateSync(png.idat, { maxOutputLength: expected + 1 });
  } catch {
    return 'is an image that cannot be read';
  }
  if (pixels.length !== expected) return 'is an image that cannot be read';
  let at = 0;
  for (const row of rows) {
    if (pixels[at]! > 4) return 'is an image that cannot be read (a row has an unknown PNG filter)';
    at += row;
  }
  return undefined;
}

/** Why pdfkit cannot read the image, or undefined when it can (its own trial read, after the checks above). */
function pdfkitProblem(image: Buffer, contentType: LogoContentType): string | undefined {
  if (contentType === 'image/png') {
    const layout = pngLayout(image);
    if (typeof layout === 'string') return layout;
    const problem = pngProblem(layout);
    if (problem) return problem;
  }
  try {
    (new PDFDocument() as unknown as { openImage(src: Buffer): unknown }).openImage(image);
    return undefined;
  } catch {
    return 'is an image that cannot be read';
  }
}

/**
 * Whether a stored logo can be drawn: a logo stored before these checks existed may be one that would end the
 * process mid-render, so the invoice is drawn without it instead.
 */
export function logoRenderable(logo: LogoImage): boolean {
  return pdfkitProblem(logo.image, logo.contentType) === undefined;
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
      const problem = pdfkitProblem(image, contentType);
      if (problem) problems.push({ field, message: problem });
    }
  }
  return problems.length === before && contentType ? { contentType, image } : undefined;
}
