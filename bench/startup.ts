/**
 * Start-up figures of the `billing` command as it ships (bin/billing.js), each the median of several runs:
 *
 * - `billing --help` and `billing --version`: from spawn to exit;
 * - `billing serve` on an already-migrated SQLite file: from spawn to the first successful `GET /healthz`;
 * - the server's resident set size (VmRSS) after it has sat idle for a few seconds.
 *
 *   npm run bench:startup                STARTUP_RUNS=15 npm run bench:startup
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { formatTable, printJsonLine, setting, sleep } from './common.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const BIN = path.join(ROOT, 'bin', 'billing.js');
const RUNS = setting('STARTUP_RUNS', 7, 1, 100);
const IDLE_MS = setting('STARTUP_IDLE_MS', 3000, 0, 60_000);

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

function timeCommand(args: string[], env: NodeJS.ProcessEnv): number {
  const started = process.hrtime.bigint();
  const result = spawnSync(process.execPath, [BIN, ...args], { env, encoding: 'utf8' });
  const elapsed = Number(process.hrtime.bigint() - started) / 1e6;
  if (result.status !== 0)
    throw new Error(`billing ${args.join(' ')} exited ${result.status}: ${result.stderr}`);
  return elapsed;
}

/** Kilobytes resident, from /proc (Linux). */
function residentKb(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const match = /^VmRSS:\s+(\d+) kB/m.exec(status);
  if (!match) throw new Error('no VmRSS in /proc/PID/status');
  return Number(match[1]);
}

async function serveOnce(
  env: NodeJS.ProcessEnv,
  measureIdle: boolean,
): Promise<{ ms: number; rssKb?: number }> {
  const port = await freePort();
  const started = process.hrtime.bigint();
  const child = spawn(process.execPath, [BIN, 'serve'], {
    // One process: its start and its memory, as they were before `--workers` (bench/scaling.ts runs more).
    env: { WORKERS: '1', ...env, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`billing serve exited ${child.exitCode}: ${stderr}`);
      try {
        const response = await fetch(`http://127.0.0.1:${port}/healthz`);
        await response.arrayBuffer();
        if (response.ok) break;
      } catch {
        // not listening yet
      }
      await sleep(2);
    }
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    if (!measureIdle) return { ms };
    await sleep(IDLE_MS);
    return { ms, rssKb: residentKb(child.pid!) };
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
}

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'billing-startup-'));
try {
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    DATA_DIR: dataDir,
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
  };
  // The first start migrates the empty file and makes the demo account; it is not counted.
  await serveOnce(env, false);

  const help: number[] = [];
  const serve: number[] = [];
  const rss: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    help.push(timeCommand(['--help'], env));
    const { ms, rssKb } = await serveOnce(env, true);
    serve.push(ms);
    rss.push(rssKb!);
  }
  const figures = {
    runs: RUNS,
    helpMs: Math.round(median(help)),
    serveToFirstAnswerMs: Math.round(median(serve)),
    idleRssMb: Number((median(rss) / 1024).toFixed(1)),
  };
  console.log(
    formatTable(
      `Start-up, SQLite, the median of ${RUNS} runs`,
      ['figure', 'value'],
      [
        ['`billing --help`, spawn to exit', `${figures.helpMs} ms`],
        ['`billing serve`, spawn to first answer', `${figures.serveToFirstAnswerMs} ms`],
        ['resident memory of the server when idle', `${figures.idleRssMb} MB`],
      ],
    ),
  );
  printJsonLine('billing-startup', figures);
} finally {
  fs.rmSync(dataDir, { recursive: true, force: true });
}
