import type { FastifyInstance, FastifyRequest } from 'fastify';

/**
 * Counts requests still at work, so that shutdown closes the database only after they are done.
 * Fastify's close() waits for responses in progress, but not for the handler of a request whose client hung up:
 * that handler runs on and may still query the database.
 */
export class InFlight {
  private count = 0;
  private waiters: (() => void)[] = [];

  /** Requests and other counted work (`around`) not done yet. */
  get pending(): number {
    return this.count;
  }

  enter(): void {
    this.count++;
  }

  exit(): void {
    this.count--;
    if (this.count === 0) for (const resolve of this.waiters.splice(0)) resolve();
  }

  /** Resolves when nothing is in flight, or after `timeoutMs` at the latest. */
  idle(timeoutMs: number): Promise<void> {
    if (this.count === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, timeoutMs);
      this.waiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  /** Runs `work` counted as in flight. */
  async around<T>(work: () => Promise<T>): Promise<T> {
    this.enter();
    try {
      return await work();
    } finally {
      this.exit();
    }
  }
}

interface RequestState {
  /** Where the request's work is: in the hooks before its handler, in its handler, or past both. */
  stage: 'hooks' | 'handler' | 'done';
  /** The response closed: sent, or its client gone. */
  closed: boolean;
}

/**
 * A request is in flight from onRequest until its response has closed and its work is done: its handler has settled,
 * or an answer was sent without one (a hook refused the request). A client may hang up while the hooks before the
 * handler are still at work (the API key's check, the idempotency key's claim); the handler then still runs, and is
 * counted until it settles. Register before any route, since route handlers are wrapped as they are added.
 *
 * The response's `close` is the one sign that comes in every case: Fastify's onRequestAbort runs only when Node marks
 * the request aborted, which it does not once the whole body has arrived, and onResponse only when the answer
 * finished, which an answer written to a closed socket never does.
 */
export function trackRequests(app: FastifyInstance, inflight: InFlight): void {
  const states = new WeakMap<FastifyRequest, RequestState>();
  // Later in the same turn the onSend hooks start their own counted work (see registerIdempotency).
  const releaseSoon = (request: FastifyRequest) =>
    setImmediate(() => {
      if (states.delete(request)) inflight.exit();
    });
  const releaseIfFinished = (request: FastifyRequest, state: RequestState) => {
    if (state.closed && state.stage === 'done') releaseSoon(request);
  };

  app.addHook('onRequest', (request, reply, done) => {
    const state: RequestState = { stage: 'hooks', closed: false };
    states.set(request, state);
    inflight.enter();
    reply.raw.once('close', () => {
      state.closed = true;
      releaseIfFinished(request, state);
    });
    done();
  });
  // Every answer passes here, the handler's and one a hook sends instead of it.
  app.addHook('onSend', (request, _reply, payload, done) => {
    const state = states.get(request);
    if (state?.stage === 'hooks') {
      state.stage = 'done';
      releaseIfFinished(request, state);
    }
    done(null, payload);
  });
  app.addHook('onRoute', (route) => {
    const handler = route.handler;
    route.handler = function tracked(this: unknown, request, reply) {
      const state = states.get(request);
      if (state) state.stage = 'handler';
      const result = handler.call(this as never, request, reply) as unknown;
      if (!state) return result;
      // Callback-style handlers (static files) return nothing: their answer is sent, or on its way.
      if (!(result instanceof Promise)) {
        state.stage = 'done';
        releaseIfFinished(request, state);
        return result;
      }
      return result.finally(() => {
        state.stage = 'done';
        releaseIfFinished(request, state);
      });
    };
  });
}
