import fs from 'node:fs';
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/**
 * Checkpoints of a SQLite file's write-ahead log in a thread of their own (docs/architecture.md, "Storage").
 * NOTE: SQLite checkpoints on the connection that commits, once the log passes 1000 pages: it copies them into the
 * database file and syncs it, synchronously, on the event loop, and every request waits (under usage ingestion the
 * thread below made the longest turns of the loop 69-77 ms instead of 93-96; docs/benchmarks.md, "Usage"). So after
 * commits a thread asks for a passive checkpoint on a connection of its own: it copies what the log holds beside the
 * writer, which never waits for it. The writer's own checkpoint stays: it then finds the pages already copied, and it alone can
 * rewind the log once it is all copied, as it begins its next transaction. Should the thread fail, the writer
 * checkpoints as it did before.
 */
export class BackgroundCheckpoints {
  readonly #file: string;
  #worker: Worker | undefined;
  #stopped = false;
  #checkpointing = false;
  #lastAskedAt = -Infinity;

  constructor(file: string) {
    this.#file = file;
  }

  /**
   * After a commit: asks the thread for a checkpoint, at most every ASK_EVERY_MS and never while one runs. The
   * thread starts once the log has passed START_AT_BYTES: a database written a little (a test's) never starts one.
   */
  afterCommit(): void {
    const now = performance.now();
    if (this.#stopped || this.#checkpointing || now - this.#lastAskedAt < ASK_EVERY_MS) return;
    this.#lastAskedAt = now;
    if (this.#worker === undefined && !this.#logHasGrown()) return;
    this.#checkpointing = true;
    (this.#worker ??= this.#start()).postMessage('checkpoint');
  }

  /** Stops the thread (it holds a connection to the file): before the writer closes. */
  async close(): Promise<void> {
    this.#stopped = true;
    await this.#worker?.terminate();
  }

  #logHasGrown(): boolean {
    try {
      return fs.statSync(`${this.#file}-wal`).size >= START_AT_BYTES;
    } catch {
      return false;
    }
  }

  #start(): Worker {
    const worker = new Worker(threadSource(this.#file), { eval: true });
    worker.unref();
    worker.on('message', () => (this.#checkpointing = false));
    worker.on('error', () => {
      this.#stopped = true;
      this.#worker = undefined;
    });
    return worker;
  }
}

/** How often, at most, the thread is asked to checkpoint. */
const ASK_EVERY_MS = 20;

/** A log this large starts the thread: a quarter of the 1000 pages at which the writer checkpoints itself. */
const START_AT_BYTES = 1_000_000;

/**
 * The thread: a connection to the file, and a passive checkpoint for each ask, answered once done. NOTE: the source
 * is evaluated, not a module file, so that it runs the same from src/ (TypeScript, under tests) and from dist/; it
 * loads better-sqlite3 from where this module found it. Like the PDF threads (src/documentWorker.ts) it gives way
 * to the event loop whenever both want a core.
 */
function threadSource(file: string): string {
  const betterSqlite3 = createRequire(import.meta.url).resolve('better-sqlite3');
  return `
    const os = require('node:os');
    const { parentPort } = require('node:worker_threads');
    const Database = require(${JSON.stringify(betterSqlite3)});
    try { os.setPriority(os.constants.priority.PRIORITY_BELOW_NORMAL); } catch {}
    const db = new Database(${JSON.stringify(file)}, { fileMustExist: true });
    parentPort.on('message', () => {
      db.pragma('wal_checkpoint(PASSIVE)');
      parentPort.postMessage('done');
    });
  `;
}
