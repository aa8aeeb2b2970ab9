// `billing serve`: the service in this process, or the primary of N (src/cluster.ts). Loaded only by that command
// (docs/architecture.md, "Module map").
import os from 'node:os';
import { systemClock } from '../clock.ts';
import type { Config } from '../config.ts';
import { modulePorts } from '../modulePorts.ts';
import type { Service } from '../server.ts';
import type { Storage } from '../storage/database.ts';

const runtime = () => import('./runtime.ts');
const auth = () => import('../modules/auth/index.ts');

/**
 * The service in this process, until SIGTERM or SIGINT stops it gracefully. A worker of a cluster leaves the
 * migrations and the first account to its primary, which made them before forking it.
 */
export async function serveInThisProcess(config: Config, { clusterWorker }: { clusterWorker: boolean }) {
  // Signals are handled from the start: one arriving while the service starts stops it once it is up.
  let service: Service | undefined;
  let stopSignal: string | undefined;
  const stop = (signal: string) => {
    stopSignal ??= signal;
    if (!service) return;
    const running = service;
    service = undefined;
    running.log.info({ signal }, 'shutting down: finishing in-flight requests');
    // Whatever hangs (a client that stopped reading a response), the process is gone by then.
    setTimeout(() => process.exit(1), SHUTDOWN_DEADLINE_MS).unref();
    running.close().then(
      () => process.exit(0),
      (error: unknown) => {
        running.log.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  // A second signal to a lone process ends it at once (the default, once the handler is gone). A cluster worker
  // handles every one: a signal sent to the whole process group (systemd's default, `kill -TERM -PGID`) reaches it
  // and then the primary, which sends its own; the second must not cut the stop the first began.
  const listen = clusterWorker ? process.on.bind(process) : process.once.bind(process);
  listen('SIGTERM', () => stop('SIGTERM'));
  listen('SIGINT', () => stop('SIGINT'));

  const { SHUTDOWN_DEADLINE_MS, startService } = await import('../server.ts');
  const started = await startService(config, { migrated: clusterWorker });
  service = started;
  if (stopSignal) return stop(stopSignal);
  if (clusterWorker) return;
  const greeting = await firstAccountGreeting(started.storage);
  if (greeting) console.log(greeting(started.url));
}

/**
 * `--workers N` (N above 1): this process is the cluster's primary (src/cluster.ts). It does what must be done once
 * before N processes start on the database: the migrations, the key file, the first account; then forks the workers
 * and waits for a signal to stop them all.
 */
export async function serveCluster(config: Config, workers: number) {
  const signalled = new Promise<string>((resolve) => {
    process.once('SIGTERM', () => resolve('SIGTERM'));
    process.once('SIGINT', () => resolve('SIGINT'));
  });
  let stopSignal: string | undefined;
  void signalled.then((signal) => (stopSignal = signal));

  const { withStorage, secretBox } = await runtime();
  // Made here, once: N workers creating a missing key file together could read one another's half-written file.
  secretBox();
  const greeting = await withStorage(firstAccountGreeting);
  if (stopSignal) process.exit(0);

  const { createLogger, flushLogs } = await import('../logger.ts');
  const { runCluster } = await import('../cluster.ts');
  const log = createLogger(config.logLevel, undefined, config.logFormat);
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  log.info({ workers }, 'starting the workers');
  const status = await runCluster(
    {
      workers,
      log,
      onListening: (port) => {
        if (greeting) console.log(greeting(`http://${host}:${port}`));
      },
    },
    signalled,
  );
  await flushLogs(log, 1000);
  process.exit(status);
}

/** Each process's PostgreSQL connections: its pool, its idempotency lease and its key listener (docs/operations.md). */
const CONNECTIONS_BESIDE_THE_POOL = 2;

/**
 * How many processes `serve` runs: `--workers`, else WORKERS, else one per core. On PostgreSQL that default is cut
 * to what the server's free connections hold, so that the cores of a large machine cannot open more connections than
 * `max_connections` allows; a count given is kept, with a warning (docs/operations.md, "Scaling out").
 */
export async function workersToStart(config: Config, given: number | undefined): Promise<number> {
  const asked = given ?? config.workers;
  const wanted = asked ?? os.availableParallelism();
  if (config.database.dialect !== 'postgres' || wanted === 1) return wanted;
  const { DEFAULT_POOL, freePostgresConnections } = await import('../storage/database.ts');
  const perProcess = (config.database.pool ?? DEFAULT_POOL).size + CONNECTIONS_BESIDE_THE_POOL;
  const free = await freePostgresConnections(config.database.url);
  const held = Math.max(1, Math.floor(free / perProcess));
  if (held >= wanted) return wanted;
  const { createLogger } = await import('../logger.ts');
  const log = createLogger(config.logLevel, undefined, config.logFormat);
  const figures = { wanted, perProcess, freeConnections: free };
  if (asked !== undefined) {
    log.warn(
      figures,
      'the database has too few free connections for these processes: some requests may get 503',
    );
    return asked;
  }
  log.warn(
    { ...figures, workers: held },
    'fewer processes than cores: the database has too few free connections',
  );
  return held;
}

/**
 * On a database without accounts, what `serve` tells whoever started it, given the URL it listens on: on SQLite a
 * demo account made now, on PostgreSQL how to make the first one. Undefined when there are accounts.
 */
async function firstAccountGreeting(storage: Storage): Promise<((base: string) => string) | undefined> {
  const { countAccounts, createAccount } = await auth();
  if ((await countAccounts(storage.db)) > 0) return undefined;
  if (storage.dialect === 'postgres') {
    // A live key printed to a production log would be a leak: on PostgreSQL the first account is made by hand.
    return () =>
      'No accounts yet: create one with `billing account create --name NAME`' +
      ' (add `--test` for a test account, whose clock you can move).';
  }
  // A test account, so that a newcomer can try what the docs show, moving its clock included; it moves no real
  // money (docs/spec-decisions.md, "Accounts").
  const demo = await createAccount(
    storage.db,
    { clock: systemClock, wallClock: systemClock, ports: modulePorts() },
    { name: 'Demo', isTest: true },
  );
  const credentials = `${demo.account.id}:${demo.apiKey}`;
  const nextMonth = new Date(systemClock.now().getTime() + 31 * 86_400_000).toISOString().slice(0, 10);
  return (base) =>
    [
      '',
      `Created a demo account: id ${demo.account.id}, API key ${demo.apiKey} (shown once; keep it).`,
      'It is a test account: its clock stands still until you move it, and its gateways move no real money.',
      'Try it:',
      `  curl -u ${credentials} -H 'Content-Type: application/json' \\`,
      `       -d '{"Name":"Ada","LastName":"Lovelace","Email":"ada@example.com"}' ${base}/v1/customers`,
      `  curl -u ${credentials} ${base}/v1/customers`,
      `  curl -u ${credentials} -H 'Content-Type: application/json' \\`,
      `       -d '{"To":"${nextMonth}"}' ${base}/v1/test-clock/advance`,
      `API reference: ${base}/docs`,
      '',
    ].join('\n');
}
