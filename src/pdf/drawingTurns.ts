/**
 * How a drawing shares its thread (docs/operations.md, "PDF documents"): a thread draws several accounts' documents
 * at once, each in slices of about SLICE_MS, so that a small document waits for a slice of a long one, not for all
 * of it. A drawing calls `next()` between the parts it repeats (a table's rows); past its slice it lets the
 * thread's other drawings run, and past its budget it stops there.
 */
export interface DrawingTurns {
  next(): Promise<void>;
}

/** How long a drawing runs before the thread's other drawings take their turn. */
export const SLICE_MS = 20;

/** Thrown from `next()` when a drawing has used its budget: its thread goes on drawing the others. */
export class DrawingOverrun extends Error {
  constructor(budgetMs: number) {
    super(`the drawing took longer than its ${budgetMs} ms`);
  }
}

/**
 * Where a thread tells the pool, through memory both share, which drawing runs now and since when: the pool stops
 * a thread whose drawing has not given way within the budget (a slice that never ends), and knows which drawing
 * it was. Written only by the thread; `[0, …]` while none runs.
 */
export class RunningDrawing {
  readonly #cells: Float64Array;

  constructor(memory: SharedArrayBuffer) {
    this.#cells = new Float64Array(memory);
  }

  static memory(): SharedArrayBuffer {
    return new SharedArrayBuffer(2 * Float64Array.BYTES_PER_ELEMENT);
  }

  set(id: number): void {
    this.#cells[1] = sharedNow();
    this.#cells[0] = id;
  }

  /** The drawing running for longer than `ms`, if one is. */
  overrunning(ms: number): number | undefined {
    const id = this.#cells[0]!;
    return id !== 0 && sharedNow() - this.#cells[1]! > ms ? id : undefined;
  }
}

/**
 * A time both threads read alike: each thread's performance.now() counts from its own start (timeOrigin). Real
 * time, not the injected clock, which no test moves for a drawing.
 */
function sharedNow(): number {
  return performance.timeOrigin + performance.now();
}

/**
 * The turns of drawing `id` in a thread: it counts the time of its own slices against `budgetMs`, lets the others
 * run (setImmediate: each drawing waiting takes its slice in order) and marks itself running again in `running`.
 */
export class SlicedDrawing implements DrawingTurns {
  #sliceStart: number;
  #used = 0;

  constructor(
    private readonly id: number,
    private readonly budgetMs: number,
    private readonly running: RunningDrawing,
  ) {
    this.#sliceStart = performance.now();
    running.set(id);
  }

  async next(): Promise<void> {
    const inSlice = performance.now() - this.#sliceStart;
    if (this.#used + inSlice > this.budgetMs) throw new DrawingOverrun(this.budgetMs);
    if (inSlice < SLICE_MS) return;
    this.#used += inSlice;
    this.running.set(0);
    await new Promise((resolve) => setImmediate(resolve));
    this.#sliceStart = performance.now();
    this.running.set(this.id);
  }

  /** The drawing is done (drawn or failed): none of this drawing runs any more. */
  done(): void {
    this.running.set(0);
  }
}
