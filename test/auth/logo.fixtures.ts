import zlib from 'node:zlib';

/**
 * PNG files of every kind the specification allows, and crafted broken ones, built byte by byte so that each
 * test says exactly which header, chunk or row filter it is about.
 */
const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k += 1) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(bytes: Buffer): number {
  let c = 0xffffffff;
  for (const byte of bytes) c = CRC_TABLE[(c ^ byte) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

export function chunk(type: string, data: Buffer, length = data.length): Buffer {
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const head = Buffer.alloc(4);
  head.writeUInt32BE(length);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([head, body, crc]);
}

const SAMPLES: Record<number, number> = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 };
const ADAM7 = [
  [0, 0, 8, 8],
  [4, 0, 8, 8],
  [0, 4, 4, 8],
  [2, 0, 4, 4],
  [0, 2, 2, 4],
  [1, 0, 2, 2],
  [0, 1, 1, 2],
] as const;

export interface PngKind {
  colorType: 0 | 2 | 3 | 4 | 6 | number;
  bits: number;
  interlace?: number;
  /** Palette entries (PLTE), for colour type 3 by default 2^bits capped at 256. */
  paletteEntries?: number;
  /** Bytes of a tRNS chunk (filled with 0x80), none when undefined. */
  transparencyBytes?: number;
  /** The filter byte of every row (0, None, by default); rows after the first use `laterFilter`. */
  filter?: number;
  laterFilter?: number;
  /** Extra chunks placed before IDAT. */
  extra?: Buffer[];
  /**
   * Sample bytes that look like noise (every value 0-255; palette indices too, with a full palette) instead of the
   * diagonal pattern, so that a decoder that loses its place in the rows meets filter bytes it cannot read.
   */
  noise?: boolean;
}

/** A PNG of the given kind, `width`×`height`, with a diagonal pattern (each sample byte its row plus column). */
export function craftPng(kind: PngKind, width = 40, height = 24): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([kind.bits, kind.colorType, 0, 0, kind.interlace ?? 0], 8);
  const bitsPerPixel = kind.bits * (SAMPLES[kind.colorType] ?? 1);
  const rows: Buffer[] = [];
  const passes = kind.interlace === 1 ? ADAM7 : ([[0, 0, 1, 1]] as const);
  for (const [x0, y0, dx, dy] of passes) {
    const w = Math.ceil((width - x0) / dx);
    const h = Math.ceil((height - y0) / dy);
    if (w <= 0 || h <= 0) continue;
    for (let y = 0; y < h; y += 1) {
      const row = Buffer.alloc(1 + Math.ceil((w * bitsPerPixel) / 8));
      // Palette indices stay inside the palette: the pattern is masked to 1 bit per sample for small depths.
      for (let i = 1; i < row.length; i += 1)
        row[i] = kind.noise
          ? (i * 151 + y * 67 + rows.length * 29 + 200) & 0xff
          : kind.colorType === 3
            ? 0
            : (i + y * 7) & 0xff;
      row[0] = rows.length === 0 ? (kind.filter ?? 0) : (kind.laterFilter ?? kind.filter ?? 0);
      rows.push(row);
    }
  }
  const entries = kind.paletteEntries ?? (kind.colorType === 3 ? Math.min(256, 2 ** kind.bits) : 0);
  const palette = Buffer.alloc(entries * 3);
  for (let i = 0; i < palette.length; i += 1) palette[i] = (i * 53) & 0xff;
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    ...(kind.extra ?? []),
    ...(entries > 0 ? [chunk('PLTE', palette)] : []),
    ...(kind.transparencyBytes === undefined
      ? []
      : [chunk('tRNS', Buffer.alloc(kind.transparencyBytes, 0x80))]),
    chunk('IDAT', zlib.deflateSync(Buffer.concat(rows))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** Every kind of PNG the specification defines, by name: what a logo upload accepts. */
export const ACCEPTED_PNGS: Record<string, PngKind> = {
  'greyscale 1-bit': { colorType: 0, bits: 1 },
  'greyscale 2-bit': { colorType: 0, bits: 2 },
  'greyscale 4-bit': { colorType: 0, bits: 4 },
  'greyscale 8-bit': { colorType: 0, bits: 8, filter: 1, laterFilter: 4 },
  'greyscale 16-bit': { colorType: 0, bits: 16 },
  'greyscale 8-bit with a transparent grey (tRNS)': { colorType: 0, bits: 8, transparencyBytes: 2 },
  'greyscale 8-bit interlaced': { colorType: 0, bits: 8, interlace: 1 },
  'truecolour 8-bit': { colorType: 2, bits: 8, filter: 2, laterFilter: 3 },
  'truecolour 16-bit': { colorType: 2, bits: 16 },
  'truecolour 8-bit with a transparent colour (tRNS)': { colorType: 2, bits: 8, transparencyBytes: 6 },
  'truecolour 8-bit interlaced': { colorType: 2, bits: 8, interlace: 1, filter: 4 },
  'greyscale 1-bit interlaced': { colorType: 0, bits: 1, interlace: 1 },
  'truecolour 8-bit with a suggested palette (PLTE)': { colorType: 2, bits: 8, paletteEntries: 16 },
  'indexed 1-bit': { colorType: 3, bits: 1 },
  'indexed 2-bit with transparency (tRNS), interlaced': {
    colorType: 3,
    bits: 2,
    transparencyBytes: 2,
    interlace: 1,
  },
  'indexed 4-bit': { colorType: 3, bits: 4 },
  'indexed 8-bit': { colorType: 3, bits: 8 },
  'indexed 4-bit with transparency (tRNS)': { colorType: 3, bits: 4, transparencyBytes: 2 },
  'indexed 8-bit with transparency (tRNS)': { colorType: 3, bits: 8, transparencyBytes: 10 },
  'indexed 8-bit with transparency, interlaced': {
    colorType: 3,
    bits: 8,
    transparencyBytes: 4,
    interlace: 1,
  },
  'greyscale with alpha 8-bit': { colorType: 4, bits: 8 },
  'greyscale with alpha 16-bit': { colorType: 4, bits: 16 },
  'truecolour with alpha 8-bit': { colorType: 6, bits: 8, filter: 3 },
  'truecolour with alpha 16-bit': { colorType: 6, bits: 16, interlace: 1 },
  'truecolour with alpha 8-bit interlaced': {
    colorType: 6,
    bits: 8,
    interlace: 1,
    filter: 1,
    laterFilter: 2,
  },
};

/** A picture to encode as a PNG: its kind, size, and the samples of each pixel at the image's own depth. */
export interface PngPicture {
  colorType: 0 | 2 | 3 | 4 | 6;
  bits: number;
  interlace: 0 | 1;
  width: number;
  height: number;
  /** The samples of the pixel at (x, y): a palette index for colour type 3, grey or RGB and then alpha else. */
  samples: (x: number, y: number) => number[];
  /** RGB entries, for colour type 3. */
  palette?: number[][];
  /** The tRNS chunk's bytes, if any. */
  transparency?: Buffer;
}

function paeth(left: number, up: number, upLeft: number): number {
  const p = left + up - upLeft;
  const pa = Math.abs(p - left);
  const pb = Math.abs(p - up);
  const pc = Math.abs(p - upLeft);
  return pa <= pb && pa <= pc ? left : pb <= pc ? up : upLeft;
}

/**
 * A small PNG encoder: packs the samples at the picture's depth, in one pass or the seven of Adam7 (passes
 * without pixels left out, as the specification says), each row with a filter chosen in turn (0-4).
 */
export function encodePng(picture: PngPicture): Buffer {
  const { width, height, bits, colorType } = picture;
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([bits, colorType, 0, 0, picture.interlace], 8);
  const samplesPerPixel = SAMPLES[colorType]!;
  const unit = Math.max(1, (bits * samplesPerPixel) >> 3);
  const rows: Buffer[] = [];
  for (const [x0, y0, dx, dy] of picture.interlace === 1 ? ADAM7 : ([[0, 0, 1, 1]] as const)) {
    const columns = Math.ceil((width - x0) / dx);
    const passRows = Math.ceil((height - y0) / dy);
    if (columns <= 0 || passRows <= 0) continue;
    let previous = Buffer.alloc(Math.ceil((columns * samplesPerPixel * bits) / 8));
    for (let r = 0; r < passRows; r += 1) {
      const raw = Buffer.alloc(previous.length);
      for (let c = 0; c < columns; c += 1) {
        picture.samples(x0 + c * dx, y0 + r * dy).forEach((value, s) => {
          const index = c * samplesPerPixel + s;
          if (bits === 16) raw.writeUInt16BE(value, index * 2);
          else if (bits === 8) raw[index] = value;
          else raw[(index * bits) >> 3]! |= value << (8 - bits - ((index * bits) & 7));
        });
      }
      const filter = (rows.length + r) % 5;
      const row = Buffer.alloc(raw.length + 1);
      row[0] = filter;
      for (let i = 0; i < raw.length; i += 1) {
        const left = i >= unit ? raw[i - unit]! : 0;
        const up = previous[i]!;
        const upLeft = i >= unit ? previous[i - unit]! : 0;
        const predicted = [0, left, up, (left + up) >> 1, paeth(left, up, upLeft)][filter]!;
        row[i + 1] = (raw[i]! - predicted) & 0xff;
      }
      rows.push(row);
      previous = raw;
    }
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    ...(picture.palette ? [chunk('PLTE', Buffer.from(picture.palette.flat()))] : []),
    ...(picture.transparency ? [chunk('tRNS', picture.transparency)] : []),
    chunk('IDAT', zlib.deflateSync(Buffer.concat(rows))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** What a viewer shows of the picture: 8-bit RGBA, row after row (16-bit samples by their high byte). */
export function expectedRgba(picture: PngPicture): Buffer {
  const { width, height, bits, colorType } = picture;
  const to8 = (v: number) => (bits === 16 ? v >> 8 : bits === 8 ? v : (v * 255) / (2 ** bits - 1));
  const out = Buffer.alloc(width * height * 4);
  for (let y = 0; y < height; y += 1)
    for (let x = 0; x < width; x += 1) {
      const s = picture.samples(x, y);
      const rgba =
        colorType === 3
          ? [...picture.palette![s[0]!]!, picture.transparency?.[s[0]!] ?? 255]
          : colorType === 0
            ? [to8(s[0]!), to8(s[0]!), to8(s[0]!), 255]
            : colorType === 4
              ? [to8(s[0]!), to8(s[0]!), to8(s[0]!), to8(s[1]!)]
              : [to8(s[0]!), to8(s[1]!), to8(s[2]!), colorType === 6 ? to8(s[3]!) : 255];
      out.set(rgba, (y * width + x) * 4);
    }
  return out;
}

/** Rewrites the CRC of every chunk whose length ends inside the file, so a mutated file passes the CRC check. */
export function withValidCrcs(png: Buffer): Buffer {
  const out = Buffer.from(png);
  let at = 8;
  while (at + 12 <= out.length) {
    const length = out.readUInt32BE(at);
    if (at + 12 + length > out.length) break;
    out.writeUInt32BE(crc32(out.subarray(at + 4, at + 8 + length)), at + 8 + length);
    at += 12 + length;
  }
  return out;
}
