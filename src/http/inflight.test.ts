import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Fastify from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { InFlight, trackRequests } from './inflight.ts';

/** A server whose one route waits for the test to let it answer, its requests tracked. */
async function gatedServer() {
  const inflight = new InFlight();
  const app = Fastify();
  trackRequests(app, inflight);
  let started!: () => void;
  const handlerStarted = new Promise<void>((resolve) => (started = resolve));
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  let settled!: () => void;
  const handlerSettled = new Promise<void>((resolve) => (settled = resolve));
  app.post('/slow', async () => {
    started();
    try {
      await gate;
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
  return { app, inflight, port, handlerStarted, open, handlerSettled, connectionClosed };
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
    const request = postWholeBody(server.port);
    await server.handlerStarted;
    request.destroy();
    await server.connectionClosed;
    await afterTurns();
    expect(server.inflight.pending).toBe(1);
    server.open();
    await server.handlerSettled;
    await afterTurns();
    expect(server.inflight.pending).toBe(0);
  });
});
