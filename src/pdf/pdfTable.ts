import type { PdfWriter } from './pdfWriter.ts';

/** A column of a table: where it starts, how wide it is, how its cells align. */
export interface PdfColumn {
  x: number;
  width: number;
  align: 'left' | 'right';
}

/**
 * A table of text cells, written row by row from `y` down, its column heads above the first row and again at the
 * top of every page it runs onto. A page never ends on the heads: they move to the next page with the first row
 * under them.
 */
export class PdfTable<K extends string> {
  /** The y below what the table has written so far. */
  y: number;
  private headed = false;
  private readonly keys: K[];
  private readonly headsHeight: number;

  constructor(
    private readonly w: PdfWriter,
    private readonly columns: Record<K, PdfColumn>,
    private readonly heads: Record<K, string>,
    y: number,
  ) {
    this.y = y;
    this.keys = Object.keys(columns) as K[];
    this.headsHeight =
      Math.max(...this.keys.map((key) => w.height(heads[key], columns[key].width, 'bold'))) + 8;
  }

  /** A row, as tall as its tallest cell; on a new page, under the heads, when it does not fit. */
  row(cells: Record<K, string>, weight: 'regular' | 'bold' = 'regular'): void {
    const height = Math.max(
      ...this.keys.map((key) => this.w.height(cells[key], this.columns[key].width, weight)),
    );
    if (!this.w.fits(this.y, (this.headed ? 0 : this.headsHeight) + height)) {
      this.y = this.w.newPage();
      this.headed = false;
    }
    if (!this.headed) this.writeHeads();
    for (const key of this.keys) {
      const column = this.columns[key];
      this.w.text(cells[key], column.x, this.y, { width: column.width, align: column.align, weight });
    }
    this.y += height + 5;
  }

  /** Closes the table with a rule (under its heads alone when it has no row); returns the rule's y. */
  end(): number {
    if (!this.headed) this.writeHeads();
    this.w.rule(this.y);
    return this.y;
  }

  private writeHeads(): void {
    let next = this.y;
    for (const key of this.keys) {
      const column = this.columns[key];
      next = Math.max(
        next,
        this.w.text(this.heads[key], column.x, this.y, {
          width: column.width,
          align: column.align,
          weight: 'bold',
        }),
      );
    }
    this.y = next + 3;
    this.w.rule(this.y);
    this.y += 5;
    this.headed = true;
  }
}
