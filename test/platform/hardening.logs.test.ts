import { spawn } from 'node:child_process';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { ROOT, api, freePort, killAll, killTransient, startServer, waitFor } from '../helpers/cli.ts';
import type { CliProcess } from '../helpers/cli.ts';
import { servedDatabase } from './hardening.fixtures.ts';
import type { ServedDatabase } from './hardening.fixtures.ts';

const databases: ServedDatabase[] = [];
afterEach(killTransient);
afterAll(async () => {
  await killAll();
  for (const database of databases) await database.drop();
});

async function database(): Promise<ServedDatabase> {
  const served = await servedDatabase();
  databases.push(served);
  return served;
}

/** An SGR escape sequence (ESC [ n m), which colours terminal text. */
const ANSI_COLOUR = new RegExp(`${String.fromCharCode(27)}\\[\\d+m`);
const PRETTY_LINE =
  /^\[\d{2}:\d{2}:\d{2}\.\d{3}\] INFO(?: \(.*?\))?: Server listening at http:\/\/127\.0\.0\.1:\d+/m;

/** The server's standard output once it has logged a request of ours. */
async function logsOfOneRequest(served: ServedDatabase, env: Record<string, string>): Promise<string> {
  const server = await startServer({ ...served.env, LOG_LEVEL: 'info', ...env });
  expect((await api(server.url, served.account, 'GET', '/v1/customers')).status).toBe(200);
  await waitFor(server, 'the request was logged', () =>
    server.stdout().includes('/v1/customers') ? true : undefined,
  );
  expect((await server.stop()).code).toBe(0);
  return server.stdout();
}

describe('log format', () => {
  it('writes one JSON object a line when standard output is a pipe', async () => {
    const lines = (await logsOfOneRequest(await database(), {})).split('\n').filter((line) => line !== '');
    const entries = lines.map(
      (line) =>
        JSON.parse(line) as {
          level: number;
          msg: string;
          req?: { method: string; url: string };
          res?: { statusCode: number };
          responseTime?: number;
        },
    );
    expect(entries.some((entry) => entry.msg.startsWith('Server listening at'))).toBe(true);
    expect(entries.filter((entry) => entry.req?.url === '/v1/customers')).toEqual([
      expect.objectContaining({
        msg: 'request completed',
        req: expect.objectContaining({ method: 'GET', url: '/v1/customers' }),
        res: { statusCode: 200 },
        responseTime: expect.any(Number),
      }),
    ]);
  });

  it('writes readable lines, uncoloured into a pipe, with LOG_FORMAT=pretty', async () => {
    const output = await logsOfOneRequest(await database(), { LOG_FORMAT: 'pretty' });
    expect(output).toMatch(PRETTY_LINE);
    expect(output).toMatch(/INFO.*: request completed/);
    expect(output).not.toMatch(ANSI_COLOUR);
    expect(output.split('\n').filter((line) => line.startsWith('{'))).toEqual([]);
  });

  it('writes JSON with LOG_FORMAT=json, and refuses another LOG_FORMAT', async () => {
    const served = await database();
    const output = await logsOfOneRequest(served, { LOG_FORMAT: 'json' });
    expect(() =>
      output
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line)),
    ).not.toThrow();
    const refused = await startServer({ ...served.env, LOG_FORMAT: 'yaml' }).catch((error: unknown) => error);
    expect(String(refused)).toContain('LOG_FORMAT must be json or pretty');
  });

  it('writes coloured, readable lines on a terminal (a pseudo-terminal made by script(1))', async () => {
    const served = await database();
    const port = await freePort();
    const command = `exec '${process.execPath}' '${path.join(ROOT, 'bin', 'billing.js')}' serve`;
    // A process group of its own, so that the server inside the terminal is signalled along with script.
    const child = spawn('script', ['-qec', command, '/dev/null'], {
      cwd: ROOT,
      detached: true,
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        ...served.env,
        LOG_LEVEL: 'info',
        PORT: String(port),
        HOST: '127.0.0.1',
      },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
    const cli: CliProcess = {
      child,
      stdout: () => output,
      stderr: () => '',
      exited: exited.then((code) => ({ code, signal: null, stdout: output, stderr: '' })),
    };
    try {
      await waitFor(cli, 'the server listened', () =>
        output.includes('Server listening') ? true : undefined,
      );
      const plain = output.replace(new RegExp(ANSI_COLOUR.source, 'g'), '').replace(/\r/g, '');
      expect(plain).toMatch(PRETTY_LINE);
      expect(output).toMatch(ANSI_COLOUR);
      expect(output).not.toContain('{"level"');
    } finally {
      process.kill(-child.pid!, 'SIGTERM');
      const timer = setTimeout(() => process.kill(-child.pid!, 'SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    }
  });
});
