import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { DocumentSettings } from '../config.ts';
import { ServiceBusyError } from '../http/customerQueue.ts';

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
  { id: number; ok: true; pdf: Uint8Array } | { id: number; ok: false; message: string } | { ready: true };

/**
 * Draws documents away from the event loop (docs/operations.md, "PDF documents"); what a context carries
 * (ServiceContext.documents) and the mail worker's renderers use.
 */
export interface DocumentRenderer {
  /** The caps on what a document holds, which the use cases check before anything is drawn. */
  readonly limits: Pick<DocumentSettings, 'maxInvoiceLines' | 'maxStatementLines'>;
  /**
   * Draws `job` for the account, in the account's turn: throws ServiceBusyError `documents_busy` when the
   * account's line is full, and `document_timeout` when the drawing took longer than its budget.
   */
  render(accountId: number, job: DocumentJob): Promise<Buffer>;
}

interface Waiting {
  accountId: number;
  job: DocumentJob;
  resolve(pdf: Buffer): void;
  reject(error: unknown): void;
}

interface Thread {
  worker: Worker;
  ready: boolean;
  /** The job it draws, with the timer of its budget; undefined when idle. */
  busy: { id: number; waiting: Waiting; budget: NodeJS.Timeout } | undefined;
}

/**
 * A pool of worker threads drawing PDFs, fair between accounts (docs/operations.md, "PDF documents"):
 *
 * - one document of an account is drawn at a time, the others of the account wait behind it in its line, so an
 *   account asking for many at once waits for its own and never stands in front of another account's;
 * - accounts with documents waiting take turns (round robin) for the next free thread;
 * - an account's line holds at most `waitingPerAccount`: one more is refused at once with 503 `documents_busy`;
 * - a drawing that takes longer than `timeoutMs` has its thread stopped (pdfkit cannot be interrupted otherwise)
 *   and is answered 503 `document_timeout`; a new thread takes its place when next needed.
 *
 * Threads start when first needed (most processes draw no PDF, and tests start many services), each loading the
 * drawing code and fonts once.
 */
export class DocumentPool implements DocumentRenderer {
  readonly limits: DocumentRenderer['limits'];
  readonly #settings: DocumentSettings;
  readonly #entry: URL;
  readonly #threads: Thread[] = [];
  /** Per account, its documents waiting for their turn, in order. */
  readonly #lines = new Map<number, Waiting[]>();
  /** The accounts with documents waiting, in the order of their turns. */
  #turns: number[] = [];
  /** The accounts with a document being drawn. */
  readonly #drawing = new Set<number>();
  #nextId = 1;
  #closed = false;

  /** `entry` is the worker's module (src/documentWorker.ts, or its compiled .js in dist/). */
  constructor(settings: DocumentSettings, entry: URL) {
    this.#settings = settings;
    this.#entry = entry;
    this.limits = {
      maxInvoiceLines: settings.maxInvoiceLines,
      maxStatementLines: settings.maxStatementLines,
    };
  }

  render(accountId: number, job: DocumentJob): Promise<Buffer> {
    if (this.#closed) return Promise.reject(new Error('the document pool is closed'));
    const line = this.#lines.get(accountId) ?? [];
    const waiting = line.length + (this.#drawing.has(accountId) ? 1 : 0);
    if (waiting > this.#settings.waitingPerAccount) {
      return Promise.reject(
        new ServiceBusyError(
          'documents_busy',
          `This account already has ${waiting} documents being drawn or waiting in line; send the request again ` +
            'after Retry-After',
        ),
      );
    }
    return new Promise<Buffer>((resolve, reject) => {
      line.push({ accountId, job, resolve, reject });
      if (line.length === 1) {
        this.#lines.set(accountId, line);
        if (!this.#drawing.has(accountId)) this.#turns.push(accountId);
      }
      this.#dispatch();
    });
  }

  /** Stops every thread; documents waiting or being drawn are refused. */
  async close(): Promise<void> {
    this.#closed = true;
    const refused = new Error('the service is stopping');
    for (const line of this.#lines.values()) for (const waiting of line) waiting.reject(refused);
    this.#lines.clear();
    this.#turns = [];
    await Promise.all(
      this.#threads.splice(0).map((thread) => {
        if (thread.busy) {
          clearTimeout(thread.busy.budget);
          thread.busy.waiting.reject(refused);
        }
        return thread.worker.terminate();
      }),
    );
  }

  /** Hands the next account's next document to an idle thread, while there are both. */
  #dispatch(): void {
    while (!this.#closed && this.#turns.length > 0) {
      const thread = this.#threads.find((candidate) => candidate.ready && !candidate.busy);
      if (!thread) {
        if (this.#threads.length < this.#settings.threads) this.#startThread();
        return;
      }
      const accountId = this.#turns.shift()!;
      const line = this.#lines.get(accountId)!;
      const waiting = line.shift()!;
      if (line.length === 0) this.#lines.delete(accountId);
      this.#drawing.add(accountId);
      const id = this.#nextId++;
      // The budget measures the drawing itself, on the wall clock that setTimeout follows: how long it really took.
      const budget = setTimeout(() => this.#timedOut(thread), this.#settings.timeoutMs);
      thread.busy = { id, waiting, budget };
      thread.worker.postMessage({ id, ...waiting.job } satisfies DocumentRequest);
    }
  }

  #startThread(): void {
    const thread: Thread = { worker: startWorker(this.#entry), ready: false, busy: undefined };
    this.#threads.push(thread);
    thread.worker.unref();
    thread.worker.on('message', (answer: DocumentAnswer) => {
      if ('ready' in answer) {
        thread.ready = true;
      } else if (thread.busy?.id === answer.id) {
        const { waiting } = this.#finish(thread);
        if (answer.ok)
          waiting.resolve(Buffer.from(answer.pdf.buffer, answer.pdf.byteOffset, answer.pdf.byteLength));
        else waiting.reject(new Error(`the document could not be drawn: ${answer.message}`));
      }
      this.#dispatch();
    });
    thread.worker.on('error', (error) => this.#lost(thread, error));
    thread.worker.on('exit', (code) =>
      this.#lost(thread, new Error(`the document thread stopped (${code})`)),
    );
  }

  /** The thread's job is over: its account's next document may take its turn. */
  #finish(thread: Thread): { waiting: Waiting } {
    const busy = thread.busy!;
    clearTimeout(busy.budget);
    thread.busy = undefined;
    const { accountId } = busy.waiting;
    this.#drawing.delete(accountId);
    if (this.#lines.has(accountId)) this.#turns.push(accountId);
    return { waiting: busy.waiting };
  }

  #timedOut(thread: Thread): void {
    if (!thread.busy) return;
    const { waiting } = this.#finish(thread);
    waiting.reject(
      new ServiceBusyError(
        'document_timeout',
        `The document took longer than the ${this.#settings.timeoutMs} ms a document may take to draw, and was ` +
          'stopped; send the request again after Retry-After, or ask for a smaller document',
        // As long as the budget: the same document is likely to take as long again, so not at once.
        Math.max(1, Math.ceil(this.#settings.timeoutMs / 1000)),
      ),
    );
    this.#remove(thread);
    void thread.worker.terminate();
    this.#dispatch();
  }

  /** A thread that failed or ended: its document (if any) fails, and another thread takes its place when needed. */
  #lost(thread: Thread, error: Error): void {
    if (!this.#remove(thread)) return;
    if (thread.busy) this.#finish(thread).waiting.reject(error);
    if (!thread.ready && !this.#threads.some((other) => other.ready)) {
      // The drawing code could not even load and no thread has: every thread would fail alike, so the waiting
      // documents fail now.
      for (const line of this.#lines.values()) for (const waiting of line) waiting.reject(error);
      this.#lines.clear();
      this.#turns = [];
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
 * dist/ it is the compiled JavaScript, run as is.
 */
function startWorker(entry: URL): Worker {
  if (!entry.pathname.endsWith('.ts')) return new Worker(entry);
  const source =
    `import(${JSON.stringify(tsxApi(entry))}).then(({ register }) => { register(); ` +
    `return import(${JSON.stringify(entry.href)}); });`;
  return new Worker(source, { eval: true });
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
