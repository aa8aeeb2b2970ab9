import { createRequire } from 'node:module';
import type PdfKitDocument from 'pdfkit';
import { loadPdfFonts, registerPdfFonts, textRuns } from './pdfFonts.ts';
import type { PdfFont } from './pdfFonts.ts';

/**
 * An image as the writer draws it: decoded pixels, or a JPEG that pdfkit reads synchronously (an account's logo is
 * prepared so by the auth module's printableLogo).
 */
export type PdfImage =
  | {
      kind: 'pixels';
      width: number;
      height: number;
      /** 1 (grey) or 3 (RGB) 8-bit samples a pixel. */
      colors: 1 | 3;
      /** The samples, row after row, as a zlib stream (what a PDF's FlateDecode reads). */
      samples: Buffer;
      /** The opacity of each pixel, 8 bits, as a zlib stream; undefined when the image is opaque. */
      alpha: Buffer | undefined;
    }
  | { kind: 'jpeg'; image: Buffer };

export interface TextOptions {
  width: number;
  align?: 'left' | 'right' | 'center';
  weight?: 'regular' | 'bold';
  size?: number;
  color?: string;
}

/** What a document says of its seller at its head (the auth module's documentSeller makes it). */
export interface SellerBlock {
  name: string;
  lines: string[];
  logo: PdfImage | undefined;
}

/** What a document says of itself at the right of its head (documentHead). */
export interface DocumentHead {
  /** What it is, in small grey capitals ("TAX INVOICE"). */
  kind: string;
  title: string;
  /** A mark a reader must not miss (PAID, OVERDUE...), under the title. */
  mark?: { label: string; color: string } | undefined;
  /** Label and value, a line each. */
  facts: [string, string][];
}

/** What names a document and dates it: `createdAt` is its creation date, so the same input gives the same file. */
export interface PdfInfo {
  /** The document's title, also said in every page's footer. */
  title: string;
  author: string;
  createdAt: Date;
}

/** An open document: its writer, and `end()`, which numbers the pages and answers the file. */
export interface OpenPdf {
  w: PdfWriter;
  end(): Promise<Buffer>;
}

/** Every document's page: A4, with these margins and a text column from MARGIN to RIGHT_EDGE. */
const MARGIN = 50;
const RIGHT_EDGE = 545;
/** The bottom margin leaves room for the page footer; text reaching it continues on a new page. */
const BOTTOM_MARGIN = MARGIN + 20;

const SELLER_LOGO_BOX: [number, number] = [180, 60];
const GREY = '#555555';

const BODY_SIZE = 10;
const INK = '#000000';

/**
 * pdfkit, loaded on the first PDF rather than with this module: a process that writes none (a `billing run` only
 * queues invoice e-mails; their PDFs are drawn at delivery) does not carry its 25 MB (docs/benchmarks.md, "Bill
 * run"). NOTE: its CommonJS build, which loads fontkit's CommonJS build, as pdfFonts.ts does.
 */
let pdfkit: typeof PdfKitDocument | undefined;
export function loadPdfKit(): typeof PdfKitDocument {
  return (pdfkit ??= createRequire(import.meta.url)('pdfkit') as typeof PdfKitDocument);
}

/**
 * Loads pdfkit and the fonts now: a drawing thread does it before it takes its first document, so that no
 * document's time (and budget) is spent loading them.
 */
export function preparePdfDrawing(): void {
  loadPdfKit();
  loadPdfFonts();
}

/** The CJK font's glyphs are one em wide; measuring stands an em dash (one em in DejaVu Sans) in for each. */
const EM_WIDE = '\u2014';

/**
 * A new document (pdfkit, A4) in the page layout every one of ours shares, written with a PdfWriter. Its pages are
 * buffered, so that `end()` can put in every footer which document the page belongs to and where it stands (one
 * short line, whatever the names).
 */
export function openPdf(info: PdfInfo): OpenPdf {
  const PDFDocument = loadPdfKit();
  const doc = new PDFDocument({
    size: 'A4',
    margins: { top: MARGIN, left: MARGIN, right: MARGIN, bottom: BOTTOM_MARGIN },
    bufferPages: true,
    info: { Title: info.title, Author: info.author, CreationDate: info.createdAt, ModDate: info.createdAt },
  });
  const chunks: Buffer[] = [];
  doc.on('data', (chunk: Buffer) => chunks.push(chunk));
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
  const w = new PdfWriter(doc);
  return {
    w,
    end() {
      const pages = doc.bufferedPageRange();
      for (let i = 0; i < pages.count; i += 1) {
        doc.switchToPage(pages.start + i);
        w.footer(`${info.title} · Page ${i + 1} of ${pages.count}`, MARGIN, RIGHT_EDGE - MARGIN);
      }
      doc.end();
      return done;
    },
  };
}

/**
 * Writes text into a pdfkit document in the embedded fonts, switching to the CJK font for the characters the main
 * font lacks. Positions are absolute; each call returns the y below what it wrote.
 */
export class PdfWriter {
  constructor(private readonly doc: PDFKit.PDFDocument) {
    registerPdfFonts(doc);
  }

  text(value: string, x: number, y: number, options: TextOptions): number {
    const doc = this.doc;
    const weight = options.weight ?? 'regular';
    doc.fontSize(options.size ?? BODY_SIZE).fillColor(options.color ?? INK);
    const runs = textRuns(value, weight);
    if (runs.length === 0) return y;
    const align = options.align ?? 'left';
    if (runs.length > 1 && align !== 'left' && !value.includes('\n')) {
      // NOTE: pdfkit aligns each continued fragment on its own, so a right-aligned or centred line of several
      // fonts is placed by hand when it fits on one line.
      const widths = runs.map((run) => doc.font(run.font).widthOfString(run.text));
      const total = widths.reduce((sum, width) => sum + width, 0);
      if (total <= options.width) {
        let at = x + (align === 'right' ? options.width - total : (options.width - total) / 2);
        const lineHeight = Math.max(...runs.map((run) => doc.font(run.font).currentLineHeight(true)));
        runs.forEach((run, i) => {
          doc.font(run.font).text(run.text, at, y, { lineBreak: false });
          at += widths[i]!;
        });
        doc.fillColor(INK);
        return y + lineHeight;
      }
    }
    runs.forEach((run, i) => {
      const placement = { width: options.width, align, continued: i < runs.length - 1 };
      doc.font(run.font);
      if (i === 0) doc.text(run.text, x, y, placement);
      else doc.text(run.text, placement);
    });
    doc.fillColor(INK);
    return doc.y;
  }

  /** The height `text` would take in `width`. */
  height(value: string, width: number, weight: 'regular' | 'bold' = 'regular', size = BODY_SIZE): number {
    const measured = textRuns(value, weight)
      .map((run) =>
        run.font === ('cjk' satisfies PdfFont) ? EM_WIDE.repeat([...run.text].length) : run.text,
      )
      .join('');
    return this.doc.font(weight).fontSize(size).heightOfString(measured, { width });
  }

  /** A framed mark (PAID, OVERDUE...) whose right edge is at `right`; returns the y below it. */
  stamp(label: string, right: number, y: number, color: string): number {
    const doc = this.doc.font('bold').fontSize(16);
    const width = doc.widthOfString(label) + 16;
    const height = doc.currentLineHeight() + 8;
    doc
      .save()
      .lineWidth(2)
      .strokeColor(color)
      .rect(right - width, y, width, height)
      .stroke()
      .restore();
    doc.fillColor(color).text(label, right - width + 8, y + 5, { width: width - 16, lineBreak: false });
    doc.fillColor(INK);
    return y + height;
  }

  /**
   * An image scaled to fit `box` at (x, y). Decoded pixels are written as an image XObject (with a soft mask for
   * their opacity) by the object handed to pdfkit, which takes any object with a width, a height and an `embed`
   * method as an image it has opened (PDFDocument.image): pdfkit's PNG reader, which decodes in an asynchronous
   * callback where a throw ends the process, never runs. A JPEG pdfkit reads synchronously.
   */
  image(logo: PdfImage, x: number, y: number, box: [number, number]): void {
    const src = logo.kind === 'jpeg' ? asBuffer(logo.image) : new DecodedImage(logo);
    this.doc.image(src as PDFKit.Mixins.ImageSrc, x, y, { fit: box });
  }

  /**
   * The seller at the head of a document, the same on every kind (invoices, statements, signed eMandates): its logo
   * above its name and its lines in grey. Returns the y below it.
   */
  sellerBlock(seller: SellerBlock, x: number, y: number, width = 260): number {
    let at = y;
    if (seller.logo) {
      this.image(seller.logo, x, at, SELLER_LOGO_BOX);
      at += SELLER_LOGO_BOX[1] + 10;
    }
    at = this.text(seller.name, x, at, { width, weight: 'bold', size: 13 });
    for (const line of seller.lines) at = this.text(line, x, at, { width, size: 9, color: GREY });
    return at;
  }

  /**
   * What a document is and its facts, at the right of its head from `x` to `right`: the kind, the title, the mark
   * if any, then each fact's label and value. Returns the y below it.
   */
  documentHead(head: DocumentHead, x: number, y: number, right: number): number {
    const box = { width: right - x, align: 'right' as const };
    let at = this.text(head.kind, x, y, { ...box, size: 9, color: GREY });
    at = this.text(head.title, x, at, { ...box, weight: 'bold', size: 18 });
    if (head.mark) at = this.stamp(head.mark.label, right, at + 6, head.mark.color) + 6;
    at += 4;
    for (const [label, value] of head.facts) {
      this.text(`${label}:`, x, at, { width: 90, weight: 'bold' });
      at = this.text(value, x + 90, at, { width: right - x - 90, align: 'right' }) + 2;
    }
    return at;
  }

  /** Whom a document is for ("Bill to"), under a heading, at (x, y). Returns the y below it. */
  partyBlock(heading: string, lines: string[], x: number, y: number): number {
    let at = this.text(heading, x, y, { width: 260, weight: 'bold', size: 11 }) + 2;
    for (const line of lines) at = this.text(line, x, at, { width: 300 });
    return at;
  }

  /** Whether `height` more points fit on the page from `y`, above its footer. */
  fits(y: number, height: number): boolean {
    return y + height <= this.doc.page.height - BOTTOM_MARGIN;
  }

  /** Starts a new page; returns the y its text starts at. */
  newPage(): number {
    this.doc.addPage();
    return MARGIN;
  }

  rule(y: number, from = MARGIN, to = RIGHT_EDGE): void {
    this.doc.save().lineWidth(0.5).strokeColor('#999999').moveTo(from, y).lineTo(to, y).stroke().restore();
  }

  /** A line in the bottom margin of the current page (where text would otherwise start a new page). */
  footer(value: string, x: number, width: number): void {
    const page = this.doc.page;
    const margin = page.margins.bottom;
    page.margins.bottom = 0;
    this.text(value, x, page.height - 40, { width, align: 'center', size: 8, color: '#777777' });
    page.margins.bottom = margin;
  }
}

/**
 * NOTE: a document's model reaches a worker thread by structured clone (src/pdf/documentPool.ts), which turns
 * Buffers into plain Uint8Arrays; pdfkit takes only Buffers, so the bytes are seen as one again, without a copy.
 */
function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** The part of a pdfkit document an image needs to write itself. */
interface ImageHost {
  ref(data: Record<string, unknown>): { data: Record<string, unknown>; end(chunk?: Buffer): void };
}

/** Decoded pixels in the shape of an image pdfkit has opened (label, width, height, obj, embed). */
class DecodedImage {
  readonly label = 'Logo';
  readonly width: number;
  readonly height: number;
  obj: unknown = null;

  constructor(private readonly logo: Extract<PdfImage, { kind: 'pixels' }>) {
    this.width = logo.width;
    this.height = logo.height;
  }

  embed(doc: ImageHost): void {
    const { width, height, colors } = this.logo;
    const samples = asBuffer(this.logo.samples);
    const alpha = this.logo.alpha && asBuffer(this.logo.alpha);
    const image = doc.ref({
      Type: 'XObject',
      Subtype: 'Image',
      Width: width,
      Height: height,
      BitsPerComponent: 8,
      ColorSpace: colors === 1 ? 'DeviceGray' : 'DeviceRGB',
      Filter: 'FlateDecode',
    });
    if (alpha) {
      const mask = doc.ref({
        Type: 'XObject',
        Subtype: 'Image',
        Width: width,
        Height: height,
        BitsPerComponent: 8,
        ColorSpace: 'DeviceGray',
        Filter: 'FlateDecode',
      });
      mask.end(alpha);
      image.data.SMask = mask;
    }
    image.end(samples);
    this.obj = image;
  }
}
