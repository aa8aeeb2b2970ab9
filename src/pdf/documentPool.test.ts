import { afterEach, describe, expect, it } from 'vitest';
import { documentSettings } from '../config.ts';
import { ServiceBusyError } from '../http/customerQueue.ts';
import { DocumentPool } from './documentPool.ts';

/**
 * The pool's turns, with its real worker threads (src/documentWorker.ts). Each job names a kind no drawing has, so
 * the thread answers at once with a failure: the order in which the answers come back is the order the pool handed
 * the jobs out, which is what these tests are about (the drawings themselves are tested through the API).
 */
const ENTRY = new URL('../documentWorker.ts', import.meta.url);

let pool: DocumentPool | undefined;
afterEach(async () => {
  await pool?.close();
  pool = undefined;
});

function startPool(env: Record<string, string>): DocumentPool {
  pool = new DocumentPool(documentSettings({ PDF_THREADS: '1', ...env }), ENTRY);
  return pool;
}

/** Sends a job for the account; records its label in `settled` when its answer comes back. */
function job(p: DocumentPool, accountId: number, label: string, settled: string[]): Promise<unknown> {
  return p.render(accountId, { kind: `test-${label}`, model: {} }).then(
    () => settled.push(label),
    (error: unknown) => {
      settled.push(label);
      return error;
    },
  );
}

describe('DocumentPool', () => {
  it('serves accounts in turns: one account’s documents wait behind each other, not in front of another’s', async () => {
    const p = startPool({});
    const settled: string[] = [];
    // All four are queued before the thread has started, the three of account 1 first.
    const jobs = [job(p, 1, 'a1', settled), job(p, 1, 'a2', settled), job(p, 1, 'a3', settled)];
    jobs.push(job(p, 2, 'b1', settled));
    await Promise.all(jobs);
    expect(settled).toEqual(['a1', 'b1', 'a2', 'a3']);
  });

  it('answers a thread’s failure as the document’s error, naming why', async () => {
    const p = startPool({});
    await expect(p.render(1, { kind: 'no-such-kind', model: {} })).rejects.toThrow(
      'the document could not be drawn: no drawing for documents of kind no-such-kind',
    );
  });

  it('refuses a document with documents_busy when the account’s line is full, and takes another account’s', async () => {
    const p = startPool({ PDF_QUEUE_PER_ACCOUNT: '1' });
    const settled: string[] = [];
    const first = job(p, 1, 'a1', settled);
    const second = job(p, 1, 'a2', settled);
    const refused = await p.render(1, { kind: 'test-a3', model: {} }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ServiceBusyError);
    expect(refused).toMatchObject({ code: 'documents_busy', retryAfterSeconds: 1 });
    await Promise.all([first, second, job(p, 2, 'b1', settled)]);
    expect(settled).toEqual(['a1', 'b1', 'a2']);
  });

  it('refuses what waits when it closes, and stops its threads', async () => {
    const p = startPool({});
    const waiting = p.render(1, { kind: 'test-a1', model: {} }).catch((error: unknown) => error);
    await p.close();
    expect(await waiting).toMatchObject({ message: 'the service is stopping' });
    await expect(p.render(1, { kind: 'test-a2', model: {} })).rejects.toThrow('the document pool is closed');
  });
});
