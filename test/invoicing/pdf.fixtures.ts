import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import { ROOT } from '../helpers/cli.ts';
import { dialect } from '../helpers/service.ts';

/** Where rendered pages go for a person to look at (git-ignored). */
export const RENDER_DIR = path.join(ROOT, 'test-output', 'pdf', dialect);

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

function chunk(type: string, data: Buffer): Buffer {
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/**
 * A real RGBA PNG (8 bits, with transparency, so pdfkit takes its alpha path): a blue-to-green badge with a
 * transparent border. `idat` replaces the image data, to make a corrupt file.
 */
export function pngLogo(width = 240, height = 80, options: { idat?: Buffer } = {}): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 6, 0, 0, 0], 8);
  const rows: Buffer[] = [];
  for (let y = 0; y < height; y += 1) {
    const row = Buffer.alloc(1 + width * 4);
    for (let x = 0; x < width; x += 1) {
      const inside = x > 4 && y > 4 && x < width - 5 && y < height - 5;
      row.set(
        [20, Math.round((200 * x) / width), 200 - Math.round((150 * x) / width), inside ? 255 : 0],
        1 + x * 4,
      );
    }
    rows.push(row);
  }
  const idat = options.idat ?? zlib.deflateSync(Buffer.concat(rows));
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', idat),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** A real JPEG, made by poppler from a rendered PDF page (pdftoppm -jpeg). */
export function jpegLogo(pdf: Buffer): Buffer {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'jpeg-logo-'));
  try {
    fs.writeFileSync(path.join(dir, 'in.pdf'), pdf);
    execFileSync('pdftoppm', [
      '-jpeg',
      '-f',
      '1',
      '-l',
      '1',
      '-scale-to',
      '200',
      path.join(dir, 'in.pdf'),
      path.join(dir, 'out'),
    ]);
    const file = fs.readdirSync(dir).find((name) => name.endsWith('.jpg'))!;
    return fs.readFileSync(path.join(dir, file));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

export interface Rendered {
  /** pdftotext's reading of every page, laid out as printed (a table row stays on one line). */
  text: string;
  /** The PNG of each page (pdftoppm, 100 dpi), under RENDER_DIR. */
  pages: string[];
  /** pdffonts: the embedded fonts' names. */
  fonts: string[];
  /** pdfimages -list: the images drawn (masks left out). */
  images: { width: number; height: number }[];
}

/** Renders a PDF as a person would see it, with Debian's poppler-utils. */
export function renderPdf(pdf: Buffer, name: string): Rendered {
  fs.mkdirSync(RENDER_DIR, { recursive: true });
  const pageFile = new RegExp(`^${name}-\\d+\\.png$`);
  const pageFiles = () => fs.readdirSync(RENDER_DIR).filter((f) => pageFile.test(f));
  for (const old of pageFiles()) fs.rmSync(path.join(RENDER_DIR, old));
  const file = path.join(RENDER_DIR, `${name}.pdf`);
  fs.writeFileSync(file, pdf);
  execFileSync('pdftoppm', ['-png', '-r', '100', file, path.join(RENDER_DIR, name)]);
  const pages = pageFiles()
    .sort()
    .map((f) => path.join(RENDER_DIR, f));
  const text = execFileSync('pdftotext', ['-layout', '-enc', 'UTF-8', file, '-'], { encoding: 'utf8' });
  const fonts = execFileSync('pdffonts', [file], { encoding: 'utf8' })
    .split('\n')
    .slice(2)
    .filter(Boolean)
    .map((line) => line.split(/\s+/)[0]!);
  const images = execFileSync('pdfimages', ['-list', file], { encoding: 'utf8' })
    .split('\n')
    .slice(2)
    .filter(Boolean)
    .map((line) => line.trim().split(/\s+/))
    .filter((cols) => cols[2] === 'image')
    .map((cols) => ({ width: Number(cols[3]), height: Number(cols[4]) }));
  return { text, pages, fonts, images };
}

/** The PNG's size in pixels, from its header. */
export function pngSize(file: string): { width: number; height: number } {
  const bytes = fs.readFileSync(file);
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

export interface ExtractedImage {
  width: number;
  height: number;
  /** 1 (grey, PGM) or 3 (RGB, PPM) samples a pixel. */
  channels: number;
  data: Buffer;
}

/**
 * The pixels of every image in the PDF as poppler decodes them (pdfimages: an image, then its soft mask if any,
 * which it writes as RGB).
 */
export async function extractImages(pdf: Buffer): Promise<ExtractedImage[]> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pdfimages-'));
  try {
    fs.writeFileSync(path.join(dir, 'in.pdf'), pdf);
    await promisify(execFile)('pdfimages', [path.join(dir, 'in.pdf'), path.join(dir, 'img')]);
    return fs
      .readdirSync(dir)
      .filter((name) => name.startsWith('img-'))
      .sort()
      .map((name) => {
        const bytes = fs.readFileSync(path.join(dir, name));
        // Netpbm: "P5" (grey) or "P6" (RGB), width, height, maxval 255, one whitespace byte, then the samples.
        const header = /^P([56])\s+(\d+)\s+(\d+)\s+255\s/.exec(bytes.toString('latin1', 0, 64));
        if (!header) throw new Error(`pdfimages wrote ${name}, which is not an 8-bit PGM or PPM`);
        return {
          width: Number(header[2]),
          height: Number(header[3]),
          channels: header[1] === '5' ? 1 : 3,
          data: bytes.subarray(header[0].length),
        };
      });
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
