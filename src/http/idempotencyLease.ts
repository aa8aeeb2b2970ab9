import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import { loadPg } from '../storage/pgModule.ts';
import { sql } from 'kysely';
import type { DatabaseTarget } from '../config.ts';
import type { Db } from '../storage/database.ts';

/**
 * A reserved Idempotency-Key names the process running its request (its lease). A retry finding the key still
 * without a response asks whether that process is alive: when it is not (it crashed, was killed, restarted) and the
 * key's operation records its response inside its own transaction, the reservation died with the work and the
 * retry takes the key over at once (see registerIdempotency).
 *
 * - PostgreSQL: each process holds a session advisory lock, on a connection of its own, for its whole life; the
 *   lock goes when the process or its connection does, on whatever host it ran. When that connection breaks (a
 *   PostgreSQL restart, a network drop) the lock is gone while the process lives on: from then on the process
 *   hands out an id nobody can judge, and its keys fall back to the abandonment delay.
 * - SQLite (one host): a process is its host name, boot, PID namespace, process id and start time. It is gone when
 *   it was in the asker's namespace (same host and boot) and no process has that id any more, or one has it with
 *   another start time (the id was reused, e.g. by a restarted server).
 *
 * A lease that cannot be judged (another host's, boot's or PID namespace's on SQLite, a lost PostgreSQL lease, a
 * system without /proc) counts as alive; the key is then taken over after the abandonment delay, as before leases.
 */
export interface IdempotencyLease {
  /** The id to reserve keys under now: it changes when the lease is lost. */
  readonly id: string;
  isDead(other: string): Promise<boolean>;
  close(): Promise<void>;
}

const ADVISORY = /^pg:(-?\d{1,20})$/;
const PROCESS = /^proc:([^/]+)\/([^/]+)\/([^/]+)\/(\d+)\/([^/]+)\/[0-9a-f]+$/;
const UNKNOWN = '-';

function randomSuffix(): string {
  return crypto.randomBytes(6).toString('hex');
}

/** An id no process can judge: keys reserved under it are taken over only after the abandonment delay. */
function unjudgeableId(): string {
  return `lost:${randomSuffix()}`;
}

function readOr(read: () => string): string {
  try {
    return read() || UNKNOWN;
  } catch {
    return UNKNOWN;
  }
}

/** Field 22 of /proc/<pid>/stat: when the process started, in clock ticks since boot; `-` when unknown. */
function startTime(pid: number | 'self'): string {
  return readOr(() => {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) is in parentheses and may hold spaces and parentheses itself.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return fields[19] ?? UNKNOWN;
  });
}

interface ProcessIdentity {
  host: string;
  boot: string;
  pidNamespace: string;
  start: string;
}

function ownIdentity(): ProcessIdentity {
  return {
    host: os.hostname(),
    boot: readOr(() => fs.readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim()),
    // pid:[4026531836]: process ids mean something only inside one namespace (containers have their own).
    pidNamespace: readOr(() => /\[(\d+)\]/.exec(fs.readlinkSync('/proc/self/ns/pid'))?.[1] ?? ''),
    start: startTime('self'),
  };
}

function processLeaseId(self: ProcessIdentity): string {
  return `proc:${self.host}/${self.boot}/${self.pidNamespace}/${process.pid}/${self.start}/${randomSuffix()}`;
}

function processIsDead(self: ProcessIdentity, own: string, other: string): boolean {
  const match = PROCESS.exec(other);
  if (!match || other === own) return false;
  const [, host, boot, pidNamespace, pidText, start] = match;
  if (host !== self.host || boot !== self.boot || pidNamespace !== self.pidNamespace) return false;
  if (boot === UNKNOWN || pidNamespace === UNKNOWN || start === UNKNOWN) return false;
  const pid = Number(pidText);
  // Our own pid and start time: another app in this very process, alive.
  if (pid === process.pid) return start !== self.start;
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
  const now = startTime(pid);
  return now !== UNKNOWN && now !== start;
}

/**
 * Takes this process's lease: on PostgreSQL, locks a random advisory key on a connection kept open. `onLost` is
 * told when that connection breaks (the lease is then given up for good).
 */
export async function takeIdempotencyLease(
  target: DatabaseTarget,
  db: Db,
  onLost: (error: Error | undefined) => void = () => {},
): Promise<IdempotencyLease> {
  if (target.dialect === 'sqlite') {
    const self = ownIdentity();
    const id = processLeaseId(self);
    return { id, isDead: async (other) => processIsDead(self, id, other), close: async () => {} };
  }
  const key = crypto.randomBytes(8).readBigInt64BE().toString();
  // keepAlive: a silently dropped connection is noticed (and the lease given up) instead of trusted for hours.
  const holder = new (loadPg().Client)({
    connectionString: target.url,
    keepAlive: true,
    application_name: `billing-lease-${process.pid}`,
  });
  let id = `pg:${key}`;
  let closing = false;
  // A broken connection has lost the lock: another process may already judge our keys dead. Keys reserved from now
  // on get an id nobody can judge (the abandonment delay); those reserved before are guarded at commit
  // (idempotentCreate records only while the key is still under its lease).
  const lose = (error?: Error) => {
    if (closing || !id.startsWith('pg:')) return;
    id = unjudgeableId();
    onLost(error);
  };
  holder.on('error', lose);
  holder.on('end', () => lose());
  try {
    await holder.connect();
    await holder.query('select pg_advisory_lock($1::bigint)', [key]);
  } catch (error) {
    closing = true;
    await holder.end().catch(() => {});
    throw error;
  }
  const own = `pg:${key}`;
  return {
    get id() {
      return id;
    },
    async isDead(other) {
      const match = ADVISORY.exec(other);
      if (!match) return false;
      // Our own requests are alive, even those reserved before the lease was lost.
      if (other === own) return false;
      // Taken (and, being transaction-scoped, let go at once) only when no live session holds it.
      const { rows } = await sql<{
        free: boolean;
      }>`select pg_try_advisory_xact_lock(${match[1]}::bigint) as free`.execute(db);
      return rows[0]?.free === true;
    },
    async close() {
      closing = true;
      await holder.end();
    },
  };
}
