import { spawn } from 'node:child_process';
import net from 'node:net';
import { Writable } from 'node:stream';
import pg from 'pg';
import { afterAll, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { startService } from '../../src/server.ts';
import { ROOT } from '../helpers/cli.ts';
import { dialect } from '../helpers/service.ts';
import { servedDatabase } from './hardening.fixtures.ts';
import type { ServedDatabase } from './hardening.fixtures.ts';

// A start that fails part way (here: the port is in use) closes what it had opened: the database, the lease
// connection, the workers and their timers. The caller's process can then end on its own.

const databases: ServedDatabase[] = [];
afterAll(async () => {
  for (const database of databases) await database.drop();
});

async function busyPort(): Promise<{ port: number; close(): Promise<void> }> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (typeof address !== 'object' || !address) throw new Error('no port');
  return { port: address.port, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

function withApplicationName(url: string, name: string): string {
  if (!url.startsWith('postgres')) return url;
  const named = new URL(url);
  named.searchParams.set('application_name', name);
  return named.toString();
}

it('leaves nothing running when the port is in use: the process ends on its own', async () => {
  const database = await servedDatabase();
  databases.push(database);
  const busy = await busyPort();
  try {
    // startService itself, not a test service: the subject is what its failed start leaves running.
    const script = [
      "import { loadConfig } from './src/config.ts';",
      "import { startService } from './src/server.ts';",
      'try {',
      '  await startService(loadConfig());',
      "  console.log('started');",
      '} catch (error) {',
      "  console.log('failed', error.code);",
      '}',
    ].join('\n');
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH,
        ...database.env,
        PORT: String(busy.port),
        HOST: '127.0.0.1',
        LOG_LEVEL: 'fatal',
        BILLING_INTERVAL_MS: '1000',
        WORKER_INTERVAL_MS: '1000',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let said = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (said += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (said += chunk));
    const exited = new Promise<number | null>((resolve) => child.once('close', resolve));
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    const code = await exited;
    clearTimeout(timer);
    expect(said.trim(), 'the child printed').toBe('failed EADDRINUSE');
    // Killed after 20 s when something (a timer, a socket) kept it alive.
    expect(code).toBe(0);
  } finally {
    await busy.close();
  }
}, 60_000);

// PostgreSQL only: an SQLite start opens no connection to leave behind.
if (dialect === 'postgres') {
  it('closes every PostgreSQL connection it opened when the port is in use', async () => {
    const database = await servedDatabase();
    databases.push(database);
    const name = `billing-failed-start-${process.pid}-${Date.now()}`;
    const busy = await busyPort();
    const admin = new pg.Client({ connectionString: database.url });
    await admin.connect();
    const ours = async () => {
      const { rows } = await admin.query<{ n: number }>(
        'select count(*)::int as n from pg_stat_activity where application_name = $1',
        [name],
      );
      return rows[0]!.n;
    };
    try {
      // startService itself, not a test service: the subject is the connections its failed start leaves open.
      const start = startService(
        loadConfig({
          ...database.env,
          DATABASE_URL: withApplicationName(database.url, name),
          PORT: String(busy.port),
          HOST: '127.0.0.1',
          LOG_LEVEL: 'fatal',
        }),
        { logStream: new Writable({ write: (_chunk, _encoding, done) => done() }) },
      );
      await expect(start).rejects.toMatchObject({ code: 'EADDRINUSE' });
      // A closed connection's backend leaves pg_stat_activity a moment later.
      const deadline = Date.now() + 5_000;
      while ((await ours()) > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      expect(await ours()).toBe(0);
    } finally {
      await admin.end();
      await busy.close();
    }
  }, 60_000);
}
