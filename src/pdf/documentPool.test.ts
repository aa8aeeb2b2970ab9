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

/** The account's own staff, or one of its customers in a hosted page. */
const own = (accountId: number) => ({ accountId, customer: null });
const customer = (accountId: number, who: string) => ({ accountId, customer: who });

/** Sends a job for the asker (an account's own when a number); records its label when its answer comes back. */
function job(
  p: DocumentPool,
  asker: number | { accountId: number; customer: string | null },
  label: string,
  settled: string[],
): Promise<unknown> {
  return p
    .render(typeof asker === 'number' ? own(asker) : asker, async () => ({
      kind: `test-${label}`,
      model: {},
    }))
    .then(
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
    await expect(p.render(own(1), async () => ({ kind: 'no-such-kind', model: {} }))).rejects.toThrow(
      'the document could not be drawn: no drawing for documents of kind no-such-kind',
    );
  });

  it('refuses a document with documents_busy when the account’s line is full, and takes another account’s', async () => {
    const p = startPool({ PDF_QUEUE_PER_ACCOUNT: '1' });
    const settled: string[] = [];
    const first = job(p, 1, 'a1', settled);
    const second = job(p, 1, 'a2', settled);
    const refused = await p
      .render(own(1), async () => ({ kind: 'test-a3', model: {} }))
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ServiceBusyError);
    expect(refused).toMatchObject({ code: 'documents_busy', retryAfterSeconds: 1 });
    await Promise.all([first, second, job(p, 2, 'b1', settled)]);
    expect(settled).toEqual(['a1', 'b1', 'a2']);
  });

  it('gives each customer a share of two, its account’s customers four, and its staff their own line', async () => {
    const p = startPool({});
    const settled: string[] = [];
    const ada = customer(1, 'contact 7');
    const jobs = [job(p, ada, 'c1', settled), job(p, ada, 'c2', settled)];
    const third = await p
      .render(ada, async () => ({ kind: 'test-c3', model: {} }))
      .catch((error: unknown) => error);
    expect(third).toMatchObject({ code: 'documents_busy', status: 503 });
    jobs.push(job(p, customer(1, 'address 192.0.2.9'), 'd1', settled));
    jobs.push(job(p, customer(1, 'address 192.0.2.9'), 'd2', settled));
    // The account's customers have four drawn or waiting: a fifth customer waits for one of them to be done.
    const fifth = await p
      .render(customer(1, 'contact 8'), async () => ({ kind: 'test-e1', model: {} }))
      .catch((e) => e);
    expect(fifth).toMatchObject({ code: 'documents_busy' });
    // The staff's document is taken, and goes before the customers' still waiting; another account's takes turns.
    jobs.push(job(p, 1, 's1', settled), job(p, 2, 'b1', settled));
    await Promise.all(jobs);
    expect(settled.indexOf('s1')).toBeLessThan(settled.indexOf('d2'));
    expect(settled.indexOf('b1')).toBeLessThan(settled.indexOf('c2'));
    // Once they are done, the customer has its share again.
    await expect(job(p, ada, 'c4', settled)).resolves.toBeInstanceOf(Error);
  });

  it('answers 429 too_many_documents to a customer past its rate, not to another customer or the staff', async () => {
    const p = startPool({ PDF_READS_PER_CUSTOMER_MINUTE: '3' });
    const settled: string[] = [];
    const ada = customer(1, 'contact 7');
    for (const label of ['a1', 'a2', 'a3']) await job(p, ada, label, settled);
    const past = await p
      .render(ada, async () => ({ kind: 'test-a4', model: {} }))
      .catch((error: unknown) => error);
    expect(past).toMatchObject({ code: 'too_many_documents', status: 429 });
    expect((past as ServiceBusyError).retryAfterSeconds).toBeGreaterThan(0);
    await job(p, customer(1, 'contact 8'), 'b1', settled);
    await job(p, 1, 's1', settled);
    expect(settled).toEqual(['a1', 'a2', 'a3', 'b1', 's1']);
  });

  it('refuses what waits when it closes, and stops its threads', async () => {
    const p = startPool({});
    const waiting = p
      .render(own(1), async () => ({ kind: 'test-a1', model: {} }))
      .catch((error: unknown) => error);
    await p.close();
    expect(await waiting).toMatchObject({ message: 'the service is stopping' });
    await expect(p.render(own(1), async () => ({ kind: 'test-a2', model: {} }))).rejects.toThrow(
      'the document pool is closed',
    );
  });
});
