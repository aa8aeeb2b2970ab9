import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type * as Fontkit from 'fontkit';

/**
 * The fonts invoice PDFs embed, shipped in the project's fonts/ folder (licences beside them): DejaVu Sans for
 * Latin, Greek, Cyrillic and most symbols, and WenQuanYi Micro Hei for Chinese, Japanese and Korean, which
 * DejaVu lacks (Droid Sans Fallback, its smaller ancestor, has no Hangul). pdfkit has no font fallback of its own, so text is cut into runs by which font has each
 * character's glyph (textRuns). pdfkit embeds only the glyphs used (a subset), so a PDF stays small.
 */
export type PdfFont = 'regular' | 'bold' | 'cjk';

const FILES: Record<PdfFont, string> = {
  regular: 'DejaVuSans.ttf',
  bold: 'DejaVuSans-Bold.ttf',
  cjk: 'wqy-microhei.ttc',
};
/** The font of the CJK collection file (which also holds a monospaced one). */
const CJK_FONT_NAME = 'WenQuanYiMicroHei';

/** The fonts/ folder: found upwards from this file, so it is the same from src/ and from a compiled dist/. */
function fontsDirectory(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = path.join(dir, 'fonts');
    if (fs.existsSync(path.join(candidate, FILES.regular))) return candidate;
    const parent = path.dirname(dir);
    if (parent === dir)
      throw new Error(`fonts/${FILES.regular} not found above ${fileURLToPath(import.meta.url)}`);
    dir = parent;
  }
}

let loaded: Record<PdfFont, Fontkit.Font> | undefined;

/**
 * Read and parsed once per process (6.6 MB of files), on the first PDF. fontkit too is loaded then (its CommonJS
 * build, which pdfkit's loads; see loadPdfKit).
 */
function fonts(): Record<PdfFont, Fontkit.Font> {
  if (!loaded) {
    const fontkit = createRequire(import.meta.url)('fontkit') as typeof Fontkit;
    const dir = fontsDirectory();
    const read = (font: PdfFont) => fs.readFileSync(path.join(dir, FILES[font]));
    loaded = {
      regular: fontkit.create(read('regular')) as Fontkit.Font,
      bold: fontkit.create(read('bold')) as Fontkit.Font,
      cjk: fontkit.create(read('cjk'), CJK_FONT_NAME) as Fontkit.Font,
    };
  }
  return loaded;
}

/** Reads and parses the fonts now rather than on the first PDF (a drawing thread, before its first document). */
export function loadPdfFonts(): void {
  fonts();
}

/**
 * Registers the fonts under their PdfFont names. NOTE: pdfkit takes a parsed fontkit font as well as a file
 * (its type declarations say only files); sharing the parsed fonts saves parsing 6.6 MB for every PDF. Each
 * document still makes its own subset, and each text is laid out in one synchronous call, so no two share a
 * layout: documents drawn in turns (drawingTurns.ts) give way only between a table's rows.
 */
export function registerPdfFonts(doc: PDFKit.PDFDocument): void {
  for (const [name, font] of Object.entries(fonts())) doc.registerFont(name, font as unknown as Buffer);
}

export interface TextRun {
  text: string;
  font: PdfFont;
}

/**
 * The text cut into runs of one font: the main font (`weight`) wherever it has the glyph, else the CJK font
 * when it has it. A character neither has stays in the main font (it shows as a box, as in any reader).
 */
export function textRuns(text: string, weight: 'regular' | 'bold'): TextRun[] {
  const { regular: main, cjk } = fonts();
  const runs: TextRun[] = [];
  for (const char of text) {
    const code = char.codePointAt(0)!;
    const font: PdfFont =
      code < 0x80 || main.hasGlyphForCodePoint(code) || !cjk.hasGlyphForCodePoint(code) ? weight : 'cjk';
    const last = runs.at(-1);
    if (last && last.font === font) last.text += char;
    else runs.push({ text: char, font });
  }
  return runs;
}
