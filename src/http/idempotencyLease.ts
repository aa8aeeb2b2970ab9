import crypto from 'node:crypto';
import os from 'node:os';
import pg from 'pg';
import { sql } from 'kysely';
import type { DatabaseTarget } from '../config.ts';
import type { Db } from '../storage/database.ts';

/**
 * A reserved Idempotency-Key names the process running its request (its lease). A retry finding the key still
 * without a response asks whether that process is alive: when it is not (it crashed, was killed, restarted), the
 * reservation died with the work and the retry takes the key over at once.
 *
 * - PostgreSQL: each process holds a session advisory lock, on a connection of its own, for its whole life; the
 *   lock goes when the process or its connection does, on whatever host it ran.
 * - SQLite (one host): a process is its host name and process id; it is gone when no process has that id, or
 *   when the id is the asker's own (a restarted container's server is pid 1 again).
 *
 * A lease that cannot be judged (another host's on SQLite, an id now reused) counts as alive; the key is then
 * taken over after IdempotencyOptions' abandonment delay, as before leases.
 */
export interface IdempotencyLease {
  readonly id: string;
  isDead(other: string): Promise<boolean>;
  close(): Promise<void>;
}

const ADVISORY = /^pg:(-?\d{1,20})$/;
const PROCESS = /^proc:([^/]+)\/(\d+)\/[0-9a-f]+$/;

function processLeaseId(): string {
  return `proc:${os.hostname()}/${process.pid}/${crypto.randomBytes(6).toString('hex')}`;
}

function processIsDead(own: string, other: string): boolean {
  const match = PROCESS.exec(other);
  if (!match || match[1] !== os.hostname()) return false;
  const pid = Number(match[2]);
  if (pid === process.pid) return other !== own;
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

/** Takes this process's lease: on PostgreSQL, locks a random advisory key on a connection kept open. */
export async function takeIdempotencyLease(target: DatabaseTarget, db: Db): Promise<IdempotencyLease> {
  if (target.dialect === 'sqlite') {
    const id = processLeaseId();
    return { id, isDead: async (other) => processIsDead(id, other), close: async () => {} };
  }
  const key = crypto.randomBytes(8).readBigInt64BE().toString();
  const holder = new pg.Client({ connectionString: target.url });
  // A dropped connection loses the lock: a retry elsewhere may then run a request of ours again, as after a crash.
  holder.on('error', () => {});
  await holder.connect();
  await holder.query('select pg_advisory_lock($1::bigint)', [key]);
  const id = `pg:${key}`;
  return {
    id,
    async isDead(other) {
      const match = ADVISORY.exec(other);
      if (!match) return false;
      if (other === id) return false;
      // Taken (and, being transaction-scoped, let go at once) only when no live session holds it.
      const { rows } = await sql<{
        free: boolean;
      }>`select pg_try_advisory_xact_lock(${match[1]}::bigint) as free`.execute(db);
      return rows[0]?.free === true;
    },
    close: () => holder.end(),
  };
}
