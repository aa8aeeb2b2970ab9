// `npm run bench:revocation`: how long a revoked API key still works on a server that keeps its key lookups
// (src/modules/auth/credentialsCache.ts). How to run and read it: bench/README.md, "Revocation delay".
import crypto from 'node:crypto';
import os from 'node:os';
import pino from 'pino';
import { systemClock } from '../src/clock.ts';
import type { ServiceContext } from '../src/context.ts';
import { serviceMemory } from '../src/context.ts';
import { createApiKey, getAccount, revokeApiKey } from '../src/modules/auth/index.ts';
import { createSecretBox } from '../src/security/secretBox.ts';
import { openStorage } from '../src/storage/database.ts';
import { parseDatabaseUrl } from '../src/config.ts';
import type { FastifyBaseLogger } from 'fastify';
import {
  BenchError,
  dialectName,
  forEachDialect,
  formatTable,
  log,
  median,
  printJsonLine,
  problemList,
  round,
  runBenchmark,
  setting,
} from './common.ts';
import type { Dialect } from './common.ts';
import { postgresSetup, sqliteSetup, withService } from './harness.ts';
import type { DialectSetup, Service } from './harness.ts';
import { modulePorts } from '../src/modulePorts.ts';

const ROUNDS = Math.round(setting('BENCH_ROUNDS', 30, 1, 1000));
/** A revoked key still answered 200 after this long fails the run: the change was never heard. */
const GIVE_UP_MS = 5_000;

interface RoundResult {
  /** From the revocation's commit to the first 401, in ms. */
  delayMs: number;
  /** Requests answered 200 with the key after its revocation committed. */
  acceptedAfter: number;
  /** The floor: the last request before the revocation, answered from what the server kept, in ms. */
  requestMs: number;
}

interface DialectResult {
  rounds: number;
  requestMsP50: number;
  delayMsP50: number;
  delayMsMax: number;
  acceptedAfterTotal: number;
  acceptedAfterMax: number;
  /** Rounds in which no request at all got through after the revocation. */
  roundsWithNone: number;
}

async function status(service: Service, accountId: number, apiKey: string): Promise<number> {
  const response = await fetch(`${service.base}/v1/account`, {
    headers: { authorization: `Basic ${Buffer.from(`${accountId}:${apiKey}`).toString('base64')}` },
  });
  await response.arrayBuffer();
  return response.status;
}

/** One round: a new key, used until the server keeps it, revoked here, then asked with until it is refused. */
async function oneRound(service: Service, ctx: ServiceContext): Promise<RoundResult> {
  const key = await createApiKey(ctx);
  const accountId = service.credentials.accountID;
  let requestMs = 0;
  for (let i = 0; i < 3; i++) {
    const started = performance.now();
    const before = await status(service, accountId, key.apiKey);
    requestMs = performance.now() - started;
    if (before !== 200) throw new BenchError(`a new key was answered ${before}`);
  }
  await revokeApiKey(ctx, key.keyId);
  const committed = performance.now();
  let acceptedAfter = 0;
  for (;;) {
    const answer = await status(service, accountId, key.apiKey);
    const delayMs = performance.now() - committed;
    if (answer === 401) return { delayMs, acceptedAfter, requestMs };
    if (answer !== 200) throw new BenchError(`a revoked key was answered ${answer}`);
    acceptedAfter += 1;
    if (delayMs > GIVE_UP_MS) throw new BenchError(`a revoked key still worked ${GIVE_UP_MS} ms later`);
  }
}

async function benchDialect(setup: DialectSetup, tempDir: string): Promise<DialectResult> {
  return withService(setup, tempDir, 'Revocation', async (service) => {
    // The revocations are made in this process through the service's own use case, as the CLI makes them: the
    // delay is measured from their commit.
    const storage = openStorage(parseDatabaseUrl(setup.databaseUrl, tempDir), {});
    try {
      const ctx: ServiceContext = {
        ports: modulePorts(),
        account: await getAccount(storage.db, service.credentials.accountID),
        db: storage.db,
        clock: systemClock,
        wallClock: systemClock,
        log: pino({ level: 'silent' }) as unknown as FastifyBaseLogger,
        // Keys and their events seal nothing: any key will do.
        secrets: createSecretBox(crypto.randomBytes(32)),
        mailQueued: () => {},
        memory: serviceMemory(),
      };
      const rounds: RoundResult[] = [];
      log(`${setup.dialect}: ${ROUNDS} keys made, used and revoked`);
      for (let i = 0; i < ROUNDS; i++) rounds.push(await oneRound(service, ctx));
      const { expect, failIfAny } = problemList();
      expect('rounds ended with the key refused', rounds.length, ROUNDS);
      // SQLite's server asks before every lookup whether anything was committed since: a revocation is seen by
      // the first request after its commit, never later.
      if (setup.dialect === 'sqlite') {
        expect(
          'requests answered 200 after the revocation',
          rounds.reduce((sum, r) => sum + r.acceptedAfter, 0),
          0,
        );
      }
      failIfAny(`${dialectName(setup.dialect)}: check`);
      const delays = rounds.map((r) => r.delayMs);
      return {
        rounds: rounds.length,
        requestMsP50: round(median(rounds.map((r) => r.requestMs)), 2),
        delayMsP50: round(median(delays), 2),
        delayMsMax: round(Math.max(...delays), 2),
        acceptedAfterTotal: rounds.reduce((sum, r) => sum + r.acceptedAfter, 0),
        acceptedAfterMax: Math.max(...rounds.map((r) => r.acceptedAfter)),
        roundsWithNone: rounds.filter((r) => r.acceptedAfter === 0).length,
      };
    } finally {
      await storage.close();
    }
  });
}

function printTable(results: Partial<Record<Dialect, DialectResult>>): void {
  const rows = (Object.entries(results) as [Dialect, DialectResult][]).map(([dialect, r]) => [
    dialectName(dialect),
    String(r.rounds),
    String(r.requestMsP50),
    String(r.delayMsP50),
    String(r.delayMsMax),
    String(r.acceptedAfterTotal),
    String(r.acceptedAfterMax),
    String(r.roundsWithNone),
  ]);
  console.log(
    formatTable(
      'Revocation delay: from the revocation committed to the first 401',
      [
        'database',
        'rounds',
        'a GET p50 ms (floor)',
        'to 401 p50 ms',
        'to 401 max ms',
        'accepted after',
        'most in a round',
        'rounds with none',
      ],
      rows,
    ),
  );
}

async function main(): Promise<number> {
  const results = await forEachDialect({
    tempPrefix: 'billing-bench-revocation-',
    sqlite: sqliteSetup,
    postgres: postgresSetup,
    bench: benchDialect,
  });
  printTable(results);
  printJsonLine('billing-revocation', {
    rounds: ROUNDS,
    loadAverage: os.loadavg().map((value) => round(value, 2)),
    results,
  });
  return 0;
}

await runBenchmark(main, (120 + ROUNDS * 10) * 2 * 1000);
