/**
 * `billing serve --workers N` with N above 1: this process is the primary of a node:cluster. It forks N workers, each
 * running the whole service (`startService`: the API, the mail, webhook and billing workers) on the one port the
 * primary listens on and hands connections out from, in turn. The primary serves nothing itself: it keeps N workers
 * alive and stops them all on a signal (docs/operations.md, "Scaling out").
 */
import cluster from 'node:cluster';
import type { Worker } from 'node:cluster';
import type { Logger } from 'pino';

/** A worker that lived this long before it died was no start failure: it is replaced at once. */
const STABLE_AFTER_MS = 10_000;
/** Back-off of a worker that keeps dying young: 1 s, 2 s, 4 s... up to this. */
const MAX_RESTART_DELAY_MS = 30_000;
/**
 * A worker stopping exits by itself within 20 s of the signal (SHUTDOWN_DEADLINE_MS in server.ts, which the primary
 * does not load); one still there a second later is killed, and the primary exits 1.
 */
const WORKERS_STOPPED_WITHIN_MS = 21_000;

export interface ClusterSettings {
  workers: number;
  log: Logger;
  /** Called once, when the first worker listens, with the port it listens on. */
  onListening(port: number): void;
}

/** How the cluster ended: the primary's exit status. */
export type ClusterEnd = Promise<number>;

/** Delay before replacing a worker that died after `quickDeaths` deaths in a row, each before STABLE_AFTER_MS. */
export function restartDelayMs(quickDeaths: number): number {
  return quickDeaths === 0 ? 0 : Math.min(MAX_RESTART_DELAY_MS, 1000 * 2 ** (quickDeaths - 1));
}

/**
 * Runs the cluster until a signal stops it (exit status 0 when every worker stopped cleanly) or the first worker fails
 * to start (its own exit status: it has reported why on standard error, once; the others are not started).
 * `stopRequested` resolves with the signal that stops the cluster.
 */
export function runCluster(settings: ClusterSettings, stopRequested: Promise<string>): ClusterEnd {
  const { log } = settings;
  /** Per slot (1..N): how many times in a row its worker died young. */
  const quickDeaths = new Map<number, number>();
  const slotOf = new Map<Worker, { slot: number; forkedAt: number }>();
  const restarts = new Set<NodeJS.Timeout>();
  let everListened = false;
  let stopping = false;

  return new Promise<number>((resolve) => {
    const fork = (slot: number) => {
      const worker = cluster.fork();
      slotOf.set(worker, { slot, forkedAt: performance.now() });
      return worker;
    };

    cluster.on('listening', (worker, address) => {
      log.info({ workerPid: worker.process.pid, slot: slotOf.get(worker)?.slot }, 'worker listening');
      if (everListened || stopping) return;
      everListened = true;
      settings.onListening(address.port);
      // The first worker is up: the start cannot fail for the port or the database any more, so the others start
      // together (and a failure of theirs is a crash to recover from, not a start to give up on).
      for (let slot = 2; slot <= settings.workers; slot++) fork(slot);
    });

    cluster.on('exit', (worker, code, signal) => {
      const { slot, forkedAt } = slotOf.get(worker) ?? { slot: 0, forkedAt: 0 };
      slotOf.delete(worker);
      if (stopping) {
        // A worker the signal reached before it had handlers of its own had nothing to finish: it stopped cleanly.
        if (code !== 0 && signal !== 'SIGTERM') {
          exitStatus = 1;
          log.error({ workerPid: worker.process.pid, code, signal }, 'worker stopped badly');
        }
        if (slotOf.size === 0) resolve(exitStatus);
        return;
      }
      if (!everListened) {
        // The first worker could not start (a port in use, a database it cannot reach): it said why on standard
        // error, and every other worker would fail the same way.
        resolve(code === 0 || code === null ? 1 : code);
        return;
      }
      const lived = performance.now() - forkedAt;
      const deaths = lived < STABLE_AFTER_MS ? (quickDeaths.get(slot) ?? 0) + 1 : 0;
      quickDeaths.set(slot, deaths);
      const delayMs = restartDelayMs(deaths);
      log.error(
        { workerPid: worker.process.pid, code, signal, slot, restartInMs: delayMs },
        'worker died: starting another',
      );
      const timer = setTimeout(() => {
        restarts.delete(timer);
        if (!stopping) fork(slot);
      }, delayMs);
      restarts.add(timer);
    });

    let exitStatus = 0;
    void stopRequested.then((signal) => {
      stopping = true;
      for (const timer of restarts) clearTimeout(timer);
      const running = [...slotOf.keys()];
      log.info({ signal, workers: running.length }, 'shutting down: stopping the workers');
      if (running.length === 0) return resolve(0);
      // Each worker stops as `billing serve` alone does: in-flight requests finish, worker rounds finish.
      for (const worker of running) worker.process.kill('SIGTERM');
      setTimeout(() => {
        for (const worker of slotOf.keys()) {
          log.error(
            { workerPid: worker.process.pid },
            'worker still running at the shutdown deadline: killed',
          );
          worker.process.kill('SIGKILL');
        }
        resolve(1);
      }, WORKERS_STOPPED_WITHIN_MS).unref();
    });

    fork(1);
  });
}
