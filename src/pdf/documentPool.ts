import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { Clock } from '../clock.ts';
import { systemClock } from '../clock.ts';
import type { DocumentSettings } from '../config.ts';
import { ServiceBusyError } from '../http/customerQueue.ts';
import { RunningDrawing } from './drawingTurns.ts';

/**
 * A document to draw: which drawing (`kind`, one the worker entry knows) and its model, plain data that crosses to
 * a worker thread by structured clone (Buffers arrive as Uint8Arrays). The data is read on the main thread; the
 * worker only draws.
 */
export interface DocumentJob {
  kind: string;
  model: unknown;
}

/** The request a worker thread receives, and its answer. */
export interface DocumentRequest extends DocumentJob {
  id: number;
}
export type DocumentAnswer =
  | { id: number; ok: true; pdf: Uint8Array }
  | { id: number; ok: false; message: string; overrun: boolean }
  | { ready: true };

/** What a thread starts with: where it says which drawing runs (RunningDrawing), and each drawing's budget. */
export interface DocumentThreadData {
  running: SharedArrayBuffer;
  budgetMs: number;
}

/**
 * Whom a document is drawn for: its account, and when a customer asks in a hosted page (the portal, a pay link, a
 * mandate's page), which customer: the contact signed in, else the address it asks from. Null for the account's own
 * staff (the API) and its mail, which keep a share no customer can take (docs/operations.md, "PDF documents").
 */
export interface DocumentFor {
  accountId: number;
  customer: string | null;
}

/**
 * Draws documents away from the event loop (docs/operations.md, "PDF documents"); what a context carries
 * (ServiceContext.documents) and the mail worker's renderers use.
 */
export interface DocumentRenderer {
  /** The caps on what a document holds, which the use cases check before anything is drawn. */
  readonly limits: Pick<DocumentSettings, 'maxInvoiceLines' | 'maxStatementLines'>;
  /**
   * Takes the asker's place first, then `read`s what to draw and draws it in its account's turn: throws
   * ServiceBusyError `documents_busy` when its line (the account's own, the account's customers', or this
   * customer's share) is full, `too_many_documents` when the customer asked for more than its rate (both before
   * anything is read: a refused request costs no reads), and `document_timeout` when the drawing took longer than
   * its budget. What `read` throws is thrown, and the place is given back.
   */
  render(asker: DocumentFor, read: () => Promise<DocumentJob>): Promise<Buffer>;
}

interface Waiting {
  accountId: number;
  /** The customer's key (`accountId customer`), or null for the account's own. */
  customerKey: string | null;
  job: DocumentJob;
  resolve(pdf: Buffer): void;
  reject(error: unknown): void;
}

interface Thread {
  worker: Worker;
  ready: boolean;
  /** Which of its drawings runs now, and since when (written by the thread). */
  running: RunningDrawing;
  /** The documents it draws, by request id: at most one an account, and `documentsPerThread`. */
  drawing: Map<number, Waiting>;
  /** While it draws: the check that none of its slices overruns the budget. */
  watch: NodeJS.Timeout | undefined;
}

const MINUTE_MS = 60_000;
/** Beyond this many customers counted, the windows that ended are forgotten before one more is counted. */
const MAX_COUNTED_CUSTOMERS = 10_000;

/**
 * A pool of worker threads drawing PDFs, fair between accounts (docs/operations.md, "PDF documents"):
 *
 * - one document of an account is drawn at a time, the others of the account wait behind it in its line, so an
 *   account asking for many at once waits for its own and never stands in front of another account's;
 * - accounts with documents waiting take turns (round robin) for the next free place on a thread; a thread draws
 *   up to `documentsPerThread` documents at once, each in slices of about 20 ms (src/pdf/drawingTurns.ts), so
 *   another account's small document waits for a few slices of a long one, not for all of it;
 * - an account's own documents (its API and its mail) go before its customers' in its turn, and their line holds
 *   at most `waitingPerAccount`: one more is refused at once with 503 `documents_busy`;
 * - its customers' documents (hosted pages) have a line of their own of `customersPerAccount`, each customer at
 *   most `perCustomer` of it and `customerReadsPerMinute` a minute (429 `too_many_documents` past it), so that
 *   no customer can keep the account's staff, its mail or its other customers from their documents;
 * - a drawing whose slices add up to more than `timeoutMs` stops at its next slice and is answered 503
 *   `document_timeout`; one whose single slice runs that long has its thread stopped (pdfkit cannot be
 *   interrupted otherwise), the thread's other documents going back to the front of their lines.
 *
 * Threads start when first needed (most processes draw no PDF, and tests start many services), each loading the
 * drawing code and fonts once.
 */
export class DocumentPool implements DocumentRenderer {
  readonly limits: DocumentRenderer['limits'];
  readonly #settings: DocumentSettings;
  readonly #entry: URL;
  readonly #wallClock: Clock;
  readonly #threads: Thread[] = [];
  /** Per account, its documents waiting for their turn, in order: its own, then its customers'. */
  readonly #lines = new Map<number, { own: Waiting[]; customers: Waiting[] }>();
  /** Per customer key, its documents drawn or waiting; per account, its customers' together. */
  readonly #customerDocuments = new Map<string, number>();
  readonly #customersOfAccount = new Map<number, number>();
  /** Per account, its own documents whose data is being read, which its line counts. */
  readonly #ownReading = new Map<number, number>();
  /** Per customer key, the documents it asked for in the current minute (fixed windows). */
  readonly #customerReads = new Map<string, { windowStart: number; count: number }>();
  /** The accounts with documents waiting, in the order of their turns. */
  #turns: number[] = [];
  /** The accounts with a document being drawn, and that document. */
  readonly #drawing = new Map<number, Waiting>();
  #nextId = 1;
  #closed = false;

  /**
   * `entry` is the worker's module (src/documentWorker.ts, or its compiled .js in dist/bundle/); `wallClock` measures a
   * customer's minutes (real time: no test clock moves them).
   */
  constructor(settings: DocumentSettings, entry: URL, wallClock: Clock = systemClock) {
    this.#settings = settings;
    this.#entry = entry;
    this.#wallClock = wallClock;
    this.limits = {
      maxInvoiceLines: settings.maxInvoiceLines,
      maxStatementLines: settings.maxStatementLines,
    };
  }

  async render(asker: DocumentFor, read: () => Promise<DocumentJob>): Promise<Buffer> {
    if (this.#closed) throw new Error('the document pool is closed');
    const { accountId } = asker;
    const customerKey = asker.customer === null ? null : `${accountId} ${asker.customer}`;
    const refusal =
      customerKey === null ? this.#ownRefusal(accountId) : this.#customerRefusal(accountId, customerKey);
    if (refusal) throw refusal;
    const place = { accountId, customerKey };
    this.#takePlace(place);
    let job: DocumentJob;
    try {
      job = await read();
    } catch (error) {
      this.#settled(place);
      throw error;
    } finally {
      if (customerKey === null) this.#count(this.#ownReading, accountId, -1);
    }
    if (this.#closed) {
      this.#settled(place);
      throw new Error('the service is stopping');
    }
    return this.#queue({ ...place, job });
  }

  /**
   * A place is taken before the document's data is read: its customer's share and its account's customers' line
   * count it, and the account's own line counts it while it is read.
   */
  #takePlace({ accountId, customerKey }: Pick<Waiting, 'accountId' | 'customerKey'>): void {
    if (customerKey === null) {
      this.#count(this.#ownReading, accountId, 1);
      return;
    }
    this.#count(this.#customerDocuments, customerKey, 1);
    this.#count(this.#customersOfAccount, accountId, 1);
  }

  #count<K>(counts: Map<K, number>, key: K, by: 1 | -1): void {
    const count = (counts.get(key) ?? 0) + by;
    if (count > 0) counts.set(key, count);
    else counts.delete(key);
  }

  #queue({
    accountId,
    customerKey,
    job,
  }: Pick<Waiting, 'accountId' | 'customerKey' | 'job'>): Promise<Buffer> {
    return new Promise<Buffer>((resolve, reject) => {
      const lines = this.#lines.get(accountId) ?? { own: [], customers: [] };
      const waiting: Waiting = { accountId, customerKey, job, resolve, reject };
      (customerKey === null ? lines.own : lines.customers).push(waiting);
      if (!this.#lines.has(accountId)) {
        this.#lines.set(accountId, lines);
        if (!this.#drawing.has(accountId)) this.#turns.push(accountId);
      }
      this.#dispatch();
    });
  }

  /** Why the account's own line takes no more documents now, if it does not. */
  #ownRefusal(accountId: number): ServiceBusyError | undefined {
    const drawing = this.#drawing.get(accountId);
    const waiting =
      (this.#lines.get(accountId)?.own.length ?? 0) +
      (drawing?.customerKey === null ? 1 : 0) +
      (this.#ownReading.get(accountId) ?? 0);
    if (waiting <= this.#settings.waitingPerAccount) return undefined;
    return new ServiceBusyError(
      'documents_busy',
      `This account already has ${waiting} documents being drawn or waiting in line; send the request again ` +
        'after Retry-After',
    );
  }

  /** Why a customer's document is not taken now, if it is not: its rate, its share, or its account's customers'. */
  #customerRefusal(accountId: number, customerKey: string): ServiceBusyError | undefined {
    const rate = this.#countRead(customerKey);
    if (rate !== undefined) return rate;
    const own = this.#customerDocuments.get(customerKey) ?? 0;
    if (own >= this.#settings.perCustomer) {
      return new ServiceBusyError(
        'documents_busy',
        `You already have ${own} documents being drawn or waiting; open this one once they are ready`,
      );
    }
    if ((this.#customersOfAccount.get(accountId) ?? 0) >= this.#settings.customersPerAccount) {
      return new ServiceBusyError(
        'documents_busy',
        'Many documents are being drawn for this business right now; try again in a moment',
        2,
      );
    }
    return undefined;
  }

  /** Counts a customer's request in its minute; the refusal once it is past its rate. */
  #countRead(customerKey: string): ServiceBusyError | undefined {
    const now = this.#wallClock.now().getTime();
    if (this.#customerReads.size > MAX_COUNTED_CUSTOMERS) {
      for (const [key, counted] of this.#customerReads) {
        if (now - counted.windowStart >= MINUTE_MS) this.#customerReads.delete(key);
      }
    }
    let counted = this.#customerReads.get(customerKey);
    if (!counted || now - counted.windowStart >= MINUTE_MS) {
      counted = { windowStart: now, count: 0 };
      this.#customerReads.set(customerKey, counted);
    }
    counted.count += 1;
    if (counted.count <= this.#settings.customerReadsPerMinute) return undefined;
    return new ServiceBusyError(
      'too_many_documents',
      `You asked for more than ${this.#settings.customerReadsPerMinute} documents in a minute; try again after ` +
        'Retry-After',
      Math.max(1, Math.ceil((counted.windowStart + MINUTE_MS - now) / 1000)),
      429,
    );
  }

  /** Stops every thread; documents waiting or being drawn are refused. */
  async close(): Promise<void> {
    this.#closed = true;
    const refused = new Error('the service is stopping');
    this.#rejectWaiting(refused);
    await Promise.all(
      this.#threads.splice(0).map((thread) => {
        this.#stopWatching(thread);
        for (const waiting of thread.drawing.values()) waiting.reject(refused);
        return thread.worker.terminate();
      }),
    );
  }

  /** Hands the next account's next document to the thread with the most room, while there are both. */
  #dispatch(): void {
    while (!this.#closed && this.#turns.length > 0) {
      const thread = this.#threadWithRoom();
      if (!thread) return;
      const accountId = this.#turns.shift()!;
      const lines = this.#lines.get(accountId)!;
      const waiting = (lines.own.length > 0 ? lines.own : lines.customers).shift()!;
      if (lines.own.length === 0 && lines.customers.length === 0) this.#lines.delete(accountId);
      this.#drawing.set(accountId, waiting);
      const id = this.#nextId++;
      thread.drawing.set(id, waiting);
      thread.watch ??= setInterval(
        () => this.#watchSlices(thread),
        Math.max(10, this.#settings.timeoutMs / 2),
      );
      thread.watch.unref();
      thread.worker.postMessage({ id, ...waiting.job } satisfies DocumentRequest);
    }
  }

  /**
   * The ready thread drawing the fewest documents, if one has room. Another thread is started (up to `threads`)
   * whenever none is idle: a document drawn alone is drawn sooner than one sharing its thread.
   */
  #threadWithRoom(): Thread | undefined {
    let best: Thread | undefined;
    for (const thread of this.#threads) {
      if (!thread.ready || thread.drawing.size >= this.#settings.documentsPerThread) continue;
      if (!best || thread.drawing.size < best.drawing.size) best = thread;
    }
    const idle = best !== undefined && best.drawing.size === 0;
    if (!idle && this.#threads.length < this.#settings.threads) this.#startThread();
    return best;
  }

  #startThread(): void {
    const memory = RunningDrawing.memory();
    const workerData: DocumentThreadData = { running: memory, budgetMs: this.#settings.timeoutMs };
    const thread: Thread = {
      worker: startWorker(this.#entry, workerData),
      ready: false,
      running: new RunningDrawing(memory),
      drawing: new Map(),
      watch: undefined,
    };
    this.#threads.push(thread);
    thread.worker.unref();
    thread.worker.on('message', (answer: DocumentAnswer) => {
      if ('ready' in answer) thread.ready = true;
      else if (thread.drawing.has(answer.id)) this.#answered(this.#finish(thread, answer.id), answer);
      this.#dispatch();
    });
    thread.worker.on('error', (error) => this.#lost(thread, error));
    thread.worker.on('exit', (code) =>
      this.#lost(thread, new Error(`the document thread stopped (${code})`)),
    );
  }

  #answered(waiting: Waiting, answer: Extract<DocumentAnswer, { id: number }>): void {
    if (answer.ok)
      waiting.resolve(Buffer.from(answer.pdf.buffer, answer.pdf.byteOffset, answer.pdf.byteLength));
    else if (answer.overrun) waiting.reject(this.#timeoutError());
    else waiting.reject(new Error(`the document could not be drawn: ${answer.message}`));
  }

  /** The thread's document `id` is over: its account's next document may take its turn. */
  #finish(thread: Thread, id: number): Waiting {
    const waiting = thread.drawing.get(id)!;
    thread.drawing.delete(id);
    if (thread.drawing.size === 0) this.#stopWatching(thread);
    this.#drawing.delete(waiting.accountId);
    this.#settled(waiting);
    if (this.#lines.has(waiting.accountId)) this.#turns.push(waiting.accountId);
    return waiting;
  }

  #stopWatching(thread: Thread): void {
    clearInterval(thread.watch);
    thread.watch = undefined;
  }

  /**
   * A thread whose drawing has run one slice longer than the budget is stopped: that document is answered
   * `document_timeout`, and the thread's other documents go back to the front of their accounts' lines, to be
   * drawn again by the next thread (they did nothing wrong).
   */
  #watchSlices(thread: Thread): void {
    const id = thread.running.overrunning(this.#settings.timeoutMs);
    if (id === undefined || !thread.drawing.has(id)) return;
    this.#finish(thread, id).reject(this.#timeoutError());
    for (const waiting of thread.drawing.values()) this.#drawAgain(waiting);
    thread.drawing.clear();
    this.#stopWatching(thread);
    this.#remove(thread);
    void thread.worker.terminate();
    this.#dispatch();
  }

  /** A document whose thread was stopped under it, first in its account's line again. */
  #drawAgain(waiting: Waiting): void {
    const { accountId } = waiting;
    // An account drawing has no turn waiting (it takes one when its document is done): it takes the first now.
    this.#drawing.delete(accountId);
    this.#turns.unshift(accountId);
    const lines = this.#lines.get(accountId) ?? { own: [], customers: [] };
    this.#lines.set(accountId, lines);
    (waiting.customerKey === null ? lines.own : lines.customers).unshift(waiting);
  }

  /** A customer's document left the pool: its place in its share and its account's customers' line is free. */
  #settled({ accountId, customerKey }: Pick<Waiting, 'accountId' | 'customerKey'>): void {
    if (customerKey === null) return;
    this.#count(this.#customerDocuments, customerKey, -1);
    this.#count(this.#customersOfAccount, accountId, -1);
  }

  /** Every document waiting is refused with `error`. */
  #rejectWaiting(error: Error): void {
    for (const lines of this.#lines.values()) {
      for (const waiting of [...lines.own, ...lines.customers]) {
        this.#settled(waiting);
        waiting.reject(error);
      }
    }
    this.#lines.clear();
    this.#turns = [];
  }

  #timeoutError(): ServiceBusyError {
    return new ServiceBusyError(
      'document_timeout',
      `The document took longer than the ${this.#settings.timeoutMs} ms a document may take to draw, and was ` +
        'stopped; send the request again after Retry-After, or ask for a smaller document',
      // As long as the budget: the same document is likely to take as long again, so not at once.
      Math.max(1, Math.ceil(this.#settings.timeoutMs / 1000)),
    );
  }

  /** A thread that failed or ended: its documents fail, and another thread takes its place when needed. */
  #lost(thread: Thread, error: Error): void {
    if (!this.#remove(thread)) return;
    for (const id of [...thread.drawing.keys()]) this.#finish(thread, id).reject(error);
    if (!thread.ready && !this.#threads.some((other) => other.ready)) {
      // The drawing code could not even load and no thread has: every thread would fail alike, so the waiting
      // documents fail now.
      this.#rejectWaiting(error);
    }
    this.#dispatch();
  }

  #remove(thread: Thread): boolean {
    const at = this.#threads.indexOf(thread);
    if (at === -1) return false;
    this.#threads.splice(at, 1);
    return true;
  }
}

/**
 * A worker running `entry`. NOTE: from src/ (tests, benchmarks) the entry is TypeScript, which a worker thread's own
 * loader cannot read: the thread registers tsx's loader (a development dependency) before importing it. From
 * dist/bundle/ it is the compiled JavaScript, run as is.
 */
function startWorker(entry: URL, workerData: DocumentThreadData): Worker {
  if (!entry.pathname.endsWith('.ts')) return new Worker(entry, { workerData });
  const source =
    `import(${JSON.stringify(tsxApi(entry))}).then(({ register }) => { register(); ` +
    `return import(${JSON.stringify(entry.href)}); });`;
  return new Worker(source, { eval: true, workerData });
}

/**
 * tsx's ESM API as `import` finds it from `entry` (`register()` then loads TypeScript in this thread). NOTE: found
 * through tsx's own exports map, since require.resolve would give its CommonJS build, whose register() does not
 * reach a thread's ES module loader; the eval'd source has no file of its own to resolve from.
 */
function tsxApi(entry: URL): string {
  const manifest = createRequire(entry).resolve('tsx/package.json');
  const { exports } = JSON.parse(fs.readFileSync(manifest, 'utf8')) as {
    exports: Record<string, { import: { default: string } }>;
  };
  return pathToFileURL(path.join(path.dirname(manifest), exports['./esm/api']!.import.default)).href;
}

/** The renderer a context or the mail worker carries; a process without one (the CLI) fails loudly. */
export function documentRenderer(holder: { documents?: DocumentRenderer | undefined }): DocumentRenderer {
  if (!holder.documents) throw new Error('this process draws no PDF: no document pool was started');
  return holder.documents;
}
