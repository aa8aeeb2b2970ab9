import zlib from 'node:zlib';

/**
 * A PNG decoder, synchronous and strict, after the PNG specification (W3C, 3rd edition): the one reading of a
 * logo, on upload and when an invoice is drawn (docs/spec-decisions.md, "The logo"). It exists so that pdfkit
 * never decodes a PNG itself: pdfkit's png-js decodes in an asynchronous zlib callback where a throw cannot be
 * caught and ends the process, and it disagrees with the specification (it reads a filter byte for the empty
 * passes of a small interlaced image). Here every image is read to its last pixel, or refused with the reason.
 */
export interface DecodedImage {
  width: number;
  height: number;
  /** Samples a pixel in `pixels`: 1 (grey) or 3 (RGB). */
  colors: 1 | 3;
  /** 8-bit samples, row after row, top to bottom. */
  pixels: Buffer;
  /** 8-bit opacity of each pixel; undefined when every pixel is opaque. */
  alpha: Buffer | undefined;
}

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** Bit depths the specification allows by colour type, and the samples a pixel has. */
const COLOR_TYPES: Record<number, { bits: number[]; samples: number }> = {
  0: { bits: [1, 2, 4, 8, 16], samples: 1 }, // greyscale
  2: { bits: [8, 16], samples: 3 }, // truecolour
  3: { bits: [1, 2, 4, 8], samples: 1 }, // indexed (palette)
  4: { bits: [8, 16], samples: 2 }, // greyscale with alpha
  6: { bits: [8, 16], samples: 4 }, // truecolour with alpha
};

/** The seven passes of Adam7 interlacing: first column and row, then the step between columns and rows. */
const ADAM7 = [
  [0, 0, 8, 8],
  [4, 0, 8, 8],
  [0, 4, 4, 8],
  [2, 0, 4, 4],
  [0, 2, 2, 4],
  [1, 0, 2, 2],
  [0, 1, 1, 2],
] as const;
const SINGLE_PASS = [[0, 0, 1, 1]] as const;

interface Header {
  width: number;
  height: number;
  bits: number;
  colorType: number;
  interlaced: boolean;
}

interface Chunks {
  header: Header;
  /** RGB triples; empty without PLTE. */
  palette: Buffer;
  transparency: Buffer | undefined;
  idat: Buffer;
}

function readHeader(data: Buffer, maxSide: number): Header | string {
  const width = data.readUInt32BE(0);
  const height = data.readUInt32BE(4);
  const [bits, colorType, compression, filter, interlace] = data.subarray(8, 13);
  if (width < 1 || height < 1) return 'is a PNG image without pixels';
  if (width > maxSide || height > maxSide)
    return `must be at most ${maxSide} pixels a side (it is ${width}×${height})`;
  const kind = COLOR_TYPES[colorType!];
  if (!kind || !kind.bits.includes(bits!))
    return `is a PNG image of colour type ${colorType} and ${bits} bits, which the PNG specification does not define`;
  if (compression !== 0 || filter !== 0 || (interlace !== 0 && interlace !== 1))
    return 'is a PNG image with a compression, filter or interlace method the PNG specification does not define';
  return { width, height, bits: bits!, colorType: colorType!, interlaced: interlace === 1 };
}

/**
 * The chunks a decoder needs, in the order and sizes the specification requires. Every length must end inside
 * the file and every CRC must match; an unknown critical chunk (upper-case first letter) is refused, unknown
 * ancillary ones are skipped.
 */
function readChunks(image: Buffer, maxSide: number): Chunks | string {
  if (!image.subarray(0, 8).equals(SIGNATURE)) return 'is not a PNG image';
  let at = 8;
  let header: Header | undefined;
  let palette: Buffer | undefined;
  let transparency: Buffer | undefined;
  const idat: Buffer[] = [];
  let idatEnded = false;
  for (;;) {
    if (at + 12 > image.length) return 'is a truncated PNG image';
    const length = image.readUInt32BE(at);
    const end = at + 12 + length;
    if (length > 0x7fffffff || end > image.length) return 'is a truncated PNG image';
    const type = image.toString('latin1', at + 4, at + 8);
    const data = image.subarray(at + 8, at + 8 + length);
    if (!/^[A-Za-z]{4}$/.test(type)) return 'is a PNG image with a malformed chunk';
    if (zlib.crc32(image.subarray(at + 4, at + 8 + length)) !== image.readUInt32BE(at + 8 + length))
      return `is a corrupt PNG image (the ${type} chunk fails its CRC)`;
    at = end;
    if (!header) {
      if (type !== 'IHDR' || length !== 13)
        return 'is a PNG image that does not start with its header (IHDR)';
      const read = readHeader(data, maxSide);
      if (typeof read === 'string') return read;
      header = read;
      continue;
    }
    if (idat.length > 0 && type !== 'IDAT') idatEnded = true;
    if (type === 'IEND') break;
    if (type === 'IDAT') {
      if (idatEnded) return 'is a PNG image whose image data (IDAT) chunks are not consecutive';
      idat.push(data);
    } else if (type === 'PLTE') {
      const entries = length / 3;
      if (palette || idat.length > 0 || transparency)
        return 'is a PNG image with a palette (PLTE) out of place';
      if (header.colorType === 0 || header.colorType === 4)
        return 'is a greyscale PNG image with a palette (PLTE), which the PNG specification forbids';
      const most = header.colorType === 3 ? 2 ** header.bits : 256;
      if (!Number.isInteger(entries) || entries < 1 || entries > Math.min(256, most))
        return 'is a PNG image with an invalid palette (PLTE)';
      palette = data;
    } else if (type === 'tRNS') {
      if (transparency || idat.length > 0)
        return 'is a PNG image with a transparency (tRNS) chunk out of place';
      const valid =
        header.colorType === 0
          ? length === 2
          : header.colorType === 2
            ? length === 6
            : header.colorType === 3 && palette !== undefined && length <= palette.length / 3;
      if (!valid) return 'is a PNG image with an invalid transparency (tRNS) chunk';
      transparency = data;
    } else if (type === 'IHDR' || ((type.charCodeAt(0) & 0x20) === 0 && type !== 'PLTE')) {
      return `is a PNG image with a critical chunk (${type}) this decoder does not know`;
    }
  }
  if (!header) return 'is not a readable PNG image';
  if (header.colorType === 3 && !palette) return 'is an indexed PNG image without a palette (PLTE)';
  if (idat.length === 0) return 'is a PNG image without image data (IDAT)';
  return { header, palette: palette ?? Buffer.alloc(0), transparency, idat: Buffer.concat(idat) };
}

/** The passes of the image with their sizes in pixels; passes without pixels have no rows (PNG spec, 8.2). */
function passes(header: Header) {
  return (header.interlaced ? ADAM7 : SINGLE_PASS)
    .map(([x0, y0, dx, dy]) => ({
      x0,
      y0,
      dx,
      dy,
      columns: Math.max(0, Math.ceil((header.width - x0) / dx)),
      rows: Math.max(0, Math.ceil((header.height - y0) / dy)),
    }))
    .filter((pass) => pass.columns > 0 && pass.rows > 0);
}

/** Undoes the row filters of one pass in place (PNG spec, 9); false on a filter type the specification lacks. */
function unfilter(data: Buffer, start: number, rows: number, rowBytes: number, unit: number): boolean {
  for (let row = 0; row < rows; row += 1) {
    const at = start + row * (rowBytes + 1);
    const filter = data[at]!;
    const line = at + 1;
    const above = line - (rowBytes + 1);
    const hasAbove = row > 0;
    switch (filter) {
      case 0:
        break;
      case 1:
        for (let i = unit; i < rowBytes; i += 1)
          data[line + i] = (data[line + i]! + data[line + i - unit]!) & 0xff;
        break;
      case 2:
        if (hasAbove)
          for (let i = 0; i < rowBytes; i += 1) data[line + i] = (data[line + i]! + data[above + i]!) & 0xff;
        break;
      case 3:
        for (let i = 0; i < rowBytes; i += 1) {
          const left = i >= unit ? data[line + i - unit]! : 0;
          const up = hasAbove ? data[above + i]! : 0;
          data[line + i] = (data[line + i]! + ((left + up) >> 1)) & 0xff;
        }
        break;
      case 4:
        for (let i = 0; i < rowBytes; i += 1) {
          const left = i >= unit ? data[line + i - unit]! : 0;
          const up = hasAbove ? data[above + i]! : 0;
          const upLeft = hasAbove && i >= unit ? data[above + i - unit]! : 0;
          const p = left + up - upLeft;
          const pa = Math.abs(p - left);
          const pb = Math.abs(p - up);
          const pc = Math.abs(p - upLeft);
          const predictor = pa <= pb && pa <= pc ? left : pb <= pc ? up : upLeft;
          data[line + i] = (data[line + i]! + predictor) & 0xff;
        }
        break;
      default:
        return false;
    }
  }
  return true;
}

/** The image data inflated, with the layout of its passes; or why it cannot be, bounded by the header's size. */
function inflatedImageData(
  chunks: Chunks,
  samples: number,
):
  | { data: Buffer; layout: (ReturnType<typeof passes>[number] & { rowBytes: number })[]; unit: number }
  | string {
  const { bits } = chunks.header;
  const bitsPerPixel = bits * samples;
  const unit = Math.max(1, bitsPerPixel >> 3);
  const layout = passes(chunks.header).map((pass) => ({
    ...pass,
    rowBytes: Math.ceil((pass.columns * bitsPerPixel) / 8),
  }));
  const expected = layout.reduce((sum, pass) => sum + pass.rows * (pass.rowBytes + 1), 0);
  let data: Buffer;
  try {
    data = zlib.inflateSync(chunks.idat, { maxOutputLength: expected + 1 });
  } catch {
    return 'is a PNG image whose image data cannot be inflated';
  }
  if (data.length !== expected)
    return 'is a PNG image whose image data does not match the size its header (IHDR) gives';
  return { data, layout, unit };
}

/** Sample `index` of the row at `line`, at the image's own depth; and that sample at 8 bits. */
function sampleReaders(
  data: Buffer,
  bits: number,
): { sampleAt: (line: number, index: number) => number; to8: (v: number) => number } {
  const sampleMax = 2 ** bits - 1;
  const sampleAt =
    bits === 8
      ? (line: number, index: number) => data[line + index]!
      : bits === 16
        ? (line: number, index: number) => (data[line + index * 2]! << 8) | data[line + index * 2 + 1]!
        : (line: number, index: number) =>
            (data[line + ((index * bits) >> 3)]! >> (8 - bits - ((index * bits) & 7))) & sampleMax;
  const to8 =
    bits === 8
      ? (v: number) => v
      : bits === 16
        ? (v: number) => v >> 8
        : (v: number) => (v * 255) / sampleMax;
  return { sampleAt, to8 };
}

/** A tRNS colour key, compared at the image's own depth (PNG spec, 11.3.2.1); undefined when there is none. */
function colourKey(transparency: Buffer | undefined, colorType: number): number[] | undefined {
  if (transparency && colorType === 0) return [transparency.readUInt16BE(0)];
  if (transparency && colorType === 2)
    return [transparency.readUInt16BE(0), transparency.readUInt16BE(2), transparency.readUInt16BE(4)];
  return undefined;
}

/**
 * Decodes a PNG to 8-bit grey or RGB samples and an alpha channel, or says why it cannot (a sentence that
 * follows a field name: "Logo is a truncated PNG image"). Synchronous, and bounded by the size the header
 * promises: a small file never inflates past `maxSide` squared pixels.
 */
export function decodePng(image: Buffer, maxSide: number): DecodedImage | string {
  const chunks = readChunks(image, maxSide);
  if (typeof chunks === 'string') return chunks;
  const { header, palette, transparency } = chunks;
  const { width, height, bits, colorType } = header;
  const samples = COLOR_TYPES[colorType]!.samples;
  const inflated = inflatedImageData(chunks, samples);
  if (typeof inflated === 'string') return inflated;
  const { data, layout, unit } = inflated;

  const colors = colorType === 2 || colorType === 3 || colorType === 6 ? 3 : 1;
  const pixels = Buffer.alloc(width * height * colors);
  const alpha = Buffer.alloc(width * height, 0xff);
  let opaque = true;
  const paletteEntries = palette.length / 3;
  const { sampleAt, to8 } = sampleReaders(data, bits);
  const key = colourKey(transparency, colorType);

  let start = 0;
  for (const pass of layout) {
    if (!unfilter(data, start, pass.rows, pass.rowBytes, unit))
      return 'is a PNG image with a row filter the PNG specification does not define';
    for (let row = 0; row < pass.rows; row += 1) {
      const line = start + row * (pass.rowBytes + 1) + 1;
      const y = pass.y0 + row * pass.dy;
      for (let column = 0; column < pass.columns; column += 1) {
        const first = column * samples;
        const pixel = y * width + pass.x0 + column * pass.dx;
        const out = pixel * colors;
        if (colorType === 3) {
          const entry = sampleAt(line, first);
          if (entry >= paletteEntries) return 'is an indexed PNG image with a pixel outside its palette';
          pixels[out] = palette[entry * 3]!;
          pixels[out + 1] = palette[entry * 3 + 1]!;
          pixels[out + 2] = palette[entry * 3 + 2]!;
          if (transparency && entry < transparency.length && transparency[entry] !== 0xff) {
            alpha[pixel] = transparency[entry]!;
            opaque = false;
          }
          continue;
        }
        let keyed = key !== undefined;
        for (let c = 0; c < colors; c += 1) {
          const v = sampleAt(line, first + c);
          pixels[out + c] = to8(v);
          if (keyed && v !== key![c]) keyed = false;
        }
        if (samples === 2 || samples === 4) alpha[pixel] = to8(sampleAt(line, first + samples - 1));
        else if (keyed) alpha[pixel] = 0;
        if (alpha[pixel] !== 0xff) opaque = false;
      }
    }
    start += pass.rows * (pass.rowBytes + 1);
  }
  return { width, height, colors, pixels, alpha: opaque ? undefined : alpha };
}
