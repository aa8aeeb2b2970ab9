import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Fastify from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { InFlight, trackRequests } from './inflight.ts';

/** Lets the test hold a step of the request's work and see when it has started. */
function heldStep() {
  let started!: () => void;
  const reached = new Promise<void>((resolve) => (started = resolve));
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { reached, open, pass: () => (started(), opened) };
}

/**
 * A server whose one route waits for the test to let it answer, its requests tracked. With `hook`, a preHandler hook
 * waits first and then lets the request through, or refuses it with a 401.
 */
async function gatedServer(hook?: { outcome: 'pass' | 'refuse' }) {
  const inflight = new InFlight();
  const app = Fastify();
  trackRequests(app, inflight);
  const hookGate = heldStep();
  if (hook)
    app.addHook('preHandler', async (_request, reply) => {
      await hookGate.pass();
      if (hook.outcome === 'refuse') return reply.code(401).send({ refused: true });
    });
  const handlerGate = heldStep();
  let settled!: () => void;
  const handlerSettled = new Promise<void>((resolve) => (settled = resolve));
  app.post('/slow', async () => {
    try {
      await handlerGate.pass();
      return { ok: true };
    } finally {
      setImmediate(settled);
    }
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  // The server's side of the connection closed: Node's own listeners, added before this one, have run.
  const connectionClosed = new Promise<void>((resolve) =>
    app.server.once('connection', (socket) => socket.once('close', () => resolve())),
  );
  const { port } = app.server.address() as AddressInfo;
  return {
    app,
    inflight,
    port,
    hookGate,
    handlerStarted: handlerGate.reached,
    open: handlerGate.open,
    handlerSettled,
    connectionClosed,
  };
}

function postWholeBody(port: number): http.ClientRequest {
  const body = JSON.stringify({ name: 'x' });
  const request = http.request({
    host: '127.0.0.1',
    port,
    method: 'POST',
    path: '/slow',
    headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
  });
  request.on('error', () => {});
  request.end(body);
  return request;
}

const afterTurns = () => new Promise((resolve) => setImmediate(() => setImmediate(resolve)));

/** Posts the whole body and hangs up once `reached` has; resolves when the server has seen the connection close. */
async function hangUpOnce(
  server: Awaited<ReturnType<typeof gatedServer>>,
  reached: Promise<void>,
): Promise<void> {
  const request = postWholeBody(server.port);
  await reached;
  request.destroy();
  await server.connectionClosed;
  await afterTurns();
}

describe('requests in flight', () => {
  const apps: { close(): Promise<unknown> }[] = [];
  afterEach(async () => {
    await Promise.all(apps.splice(0).map((app) => app.close()));
  });

  it('counts a request until its answer is sent', async () => {
    const server = await gatedServer();
    apps.push(server.app);
    const answered = new Promise<number>((resolve) =>
      postWholeBody(server.port).on('response', (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
      }),
    );
    await server.handlerStarted;
    expect(server.inflight.pending).toBe(1);
    server.open();
    expect(await answered).toBe(200);
    await server.handlerSettled;
    await afterTurns();
    expect(server.inflight.pending).toBe(0);
  });

  // Node leaves `req.aborted` false when the whole body had arrived, so Fastify's onRequestAbort does not run, and
  // an answer written to a closed socket never finishes, so onResponse does not either: only the response's
  // `close` says the client is gone. Counted on, shutdown waited out its whole grace (SHUTDOWN_GRACE_MS).
  it('counts a request whose client hung up after its whole body until its handler settles, then no longer', async () => {
    const server = await gatedServer();
    apps.push(server.app);
    await hangUpOnce(server, server.handlerStarted);
    expect(server.inflight.pending).toBe(1);
    server.open();
    await server.handlerSettled;
    await afterTurns();
    expect(server.inflight.pending).toBe(0);
  });

  // The API key's check and the idempotency key's claim run before the handler; the handler still runs when the
  // client has hung up meanwhile, and must not find the database closed.
  it('counts a request whose client hung up while a hook was at work until its handler settles', async () => {
    const server = await gatedServer({ outcome: 'pass' });
    apps.push(server.app);
    await hangUpOnce(server, server.hookGate.reached);
    expect(server.inflight.pending).toBe(1);
    server.hookGate.open();
    await server.handlerStarted;
    await afterTurns();
    expect(server.inflight.pending).toBe(1);
    server.open();
    await server.handlerSettled;
    await afterTurns();
    expect(server.inflight.pending).toBe(0);
  });

  it('counts a request whose client hung up while a hook was at work until the hook has refused it', async () => {
    const server = await gatedServer({ outcome: 'refuse' });
    apps.push(server.app);
    await hangUpOnce(server, server.hookGate.reached);
    expect(server.inflight.pending).toBe(1);
    server.hookGate.open();
    await afterTurns();
    expect(server.inflight.pending).toBe(0);
  });
});
