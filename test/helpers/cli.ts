import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** Runs the real `billing` CLI (bin/billing.js) as child processes, and makes sure none outlives the tests. */

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const BIN = path.join(ROOT, 'bin', 'billing.js');

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface CliProcess {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Settles once the process has exited and its output is read to the end. */
  exited: Promise<CliResult>;
}

interface Tracked {
  process: CliProcess;
  /** Long-lived (a server shared by several tests): left alone by killTransient(). */
  shared: boolean;
}

const live = new Set<Tracked>();

/** Only what the CLI needs from the parent: configuration comes from `env` alone. */
function childEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const inherited: Record<string, string> = {};
  for (const name of ['PATH', 'HOME', 'TMPDIR', 'SYSTEMROOT']) {
    const value = process.env[name];
    if (value !== undefined) inherited[name] = value;
  }
  // One process unless a test asks for more (`--workers`, WORKERS): the tests look at one process's output,
  // signals and limits, and a server forking one worker per core on every test would only load the machine.
  return { ...inherited, LOG_LEVEL: 'warn', WORKERS: '1', ...env };
}

export function spawnCli(
  args: string[],
  env: Record<string, string>,
  options: { shared?: boolean } = {},
): CliProcess {
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd: ROOT,
    env: childEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<CliResult>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
  const cli: CliProcess = { child, stdout: () => stdout, stderr: () => stderr, exited };
  const tracked: Tracked = { process: cli, shared: options.shared ?? false };
  live.add(tracked);
  exited.then(
    () => live.delete(tracked),
    () => live.delete(tracked),
  );
  return cli;
}

/** Runs one CLI command to its end; a command still running after `timeoutMs` is killed and fails the test. */
export async function runCli(
  args: string[],
  env: Record<string, string>,
  timeoutMs = 20_000,
): Promise<CliResult> {
  const cli = spawnCli(args, env);
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      cli.child.kill('SIGKILL');
      reject(
        new Error(
          `billing ${args.join(' ')} did not finish within ${timeoutMs} ms\nstdout: ${cli.stdout()}\nstderr: ${cli.stderr()}`,
        ),
      );
    }, timeoutMs);
  });
  try {
    return await Promise.race([cli.exited, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

async function killTracked(tracked: Tracked[]): Promise<void> {
  await Promise.all(
    tracked.map(async ({ process: cli }) => {
      if (cli.child.exitCode === null && cli.child.signalCode === null) cli.child.kill('SIGKILL');
      await cli.exited.catch(() => undefined);
    }),
  );
}

/** Kills every child that is not a shared server (for afterEach). */
export function killTransient(): Promise<void> {
  return killTracked([...live].filter((t) => !t.shared));
}

/** Kills every child still running (for afterAll). */
export function killAll(): Promise<void> {
  return killTracked([...live]);
}

/** A TCP port free on loopback a moment ago. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export interface RunningServer extends CliProcess {
  url: string;
  /** Waits for the process to exit by itself; kills it and fails after `timeoutMs`. */
  exit(timeoutMs?: number): Promise<CliResult>;
  /** Sends `signal` (SIGTERM unless told) and waits for the exit. */
  stop(signal?: NodeJS.Signals, timeoutMs?: number): Promise<CliResult>;
}

/** Polls until `check` returns a value, failing after `timeoutMs` or as soon as `cli` exits. */
export async function waitFor<T>(
  cli: CliProcess,
  what: string,
  check: () => Promise<T | undefined> | T | undefined,
  timeoutMs = 20_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (cli.child.exitCode !== null || cli.child.signalCode !== null) {
      const result = await cli.exited;
      throw new Error(
        `the process exited (code ${result.code}, signal ${result.signal}) before ${what}\nstdout: ${result.stdout}\nstderr: ${result.stderr}`,
      );
    }
    if (Date.now() > deadline) {
      throw new Error(
        `${what}: not within ${timeoutMs} ms\nstdout: ${cli.stdout()}\nstderr: ${cli.stderr()}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Starts `billing serve` (or `args`, e.g. with `--workers`) on a free port and resolves once /healthz answers. */
export async function startServer(
  env: Record<string, string>,
  options: { shared?: boolean; args?: string[] } = {},
): Promise<RunningServer> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const cli = spawnCli(options.args ?? ['serve'], { ...env, PORT: String(port), HOST: '127.0.0.1' }, options);
  await waitFor(cli, 'the server answered /healthz', async () => {
    try {
      const response = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(2000) });
      await response.arrayBuffer();
      return response.ok ? true : undefined;
    } catch {
      return undefined;
    }
  });
  const exit = async (timeoutMs = 15_000) => {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => {
        cli.child.kill('SIGKILL');
        reject(new Error(`the server did not exit within ${timeoutMs} ms`));
      }, timeoutMs);
    });
    try {
      return await Promise.race([cli.exited, timeout]);
    } finally {
      clearTimeout(timer);
    }
  };
  return {
    ...cli,
    url,
    exit,
    stop(signal = 'SIGTERM', timeoutMs?: number) {
      if (cli.child.exitCode === null && cli.child.signalCode === null) cli.child.kill(signal);
      return exit(timeoutMs);
    },
  };
}

export function basicAuth(accountId: number, apiKey: string): string {
  return `Basic ${Buffer.from(`${accountId}:${apiKey}`).toString('base64')}`;
}

/** Calls the API with HTTP Basic credentials (account id as user, key as password). */
export async function api(
  baseUrl: string,
  credentials: { accountId: number; apiKey: string },
  method: string,
  urlPath: string,
  body?: unknown,
): Promise<{ status: number; body: any }> {
  const headers: Record<string, string> = {
    authorization: basicAuth(credentials.accountId, credentials.apiKey),
  };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(baseUrl + urlPath, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(10_000),
  });
  const text = await response.text();
  return { status: response.status, body: text === '' ? undefined : JSON.parse(text) };
}

/**
 * Sends half of a POST body, SIGTERMs the server, sends the rest ~300 ms later, and returns the answer.
 * The server must already have its signal handlers; wait for its exit with `server.exit()`.
 */
export async function postAcrossShutdown(
  server: RunningServer,
  credentials: { accountId: number; apiKey: string },
  urlPath: string,
  payload: unknown,
  agent: http.Agent | false,
  stop: (server: RunningServer) => unknown = (running) => running.child.kill('SIGTERM'),
): Promise<{ status: number; connection: string | undefined; text: string }> {
  const body = JSON.stringify(payload);
  const half = Math.floor(body.length / 2);
  const request = http.request({
    host: '127.0.0.1',
    port: Number(new URL(server.url).port),
    method: 'POST',
    path: urlPath,
    agent,
    headers: {
      authorization: basicAuth(credentials.accountId, credentials.apiKey),
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(body),
    },
  });
  const response = new Promise<{ status: number; connection: string | undefined; text: string }>(
    (resolve, reject) => {
      request.on('error', reject);
      request.on('response', (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, connection: res.headers.connection, text }),
        );
        res.on('error', reject);
      });
    },
  );
  response.catch(() => undefined);
  const connected = new Promise<void>((resolve) =>
    request.once('socket', (socket) => socket.once('connect', resolve)),
  );
  const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  try {
    request.write(body.slice(0, half));
    await connected;
    await pause(200); // the server has the headers: the request is in flight

    await stop(server);
    await pause(300);
    if (server.child.exitCode !== null || server.child.signalCode !== null) {
      const result = await server.exited;
      throw new Error(
        `the server exited (code ${result.code}, signal ${result.signal}) with a request in flight\nstdout: ${result.stdout}\nstderr: ${result.stderr}`,
      );
    }
    request.end(body.slice(half));
    return await response;
  } finally {
    request.destroy();
  }
}
