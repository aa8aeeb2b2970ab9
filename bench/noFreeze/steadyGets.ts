/**
 * The no-freeze benchmark's steady reader (bench/noFreeze.ts): one URL asked for at a steady rate, open loop, over a
 * pool of kept-alive connections, each answer timed from its scheduled send.
 */
import http from 'node:http';
import { round, sleep } from '../common.ts';
import { percentile } from '../harness.ts';

export interface Latencies {
  requests: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** Answers other than 200, and requests that got no answer. */
  failures: number;
}

/**
 * Connections the reader keeps open (keep-alive), opened before its GETs start. NOTE: a client that opens a new
 * connection for a request while a long job runs waits far longer than one reusing a connection (measured: seconds
 * against tens of milliseconds for the same server; the accepts fall behind while the loop turns only between
 * transactions), so the reader behaves like a client with a pool of connections; a request finding them all busy
 * waits for one, and that wait counts in its latency.
 */
const READER_CONNECTIONS = 32;

/**
 * Sends `GET url` `rate` times a second until stopped, whatever the answers; each latency runs from the request's
 * scheduled send time to the end of its answer, so a server that holds requests back cannot hide it by delaying the
 * sends. An answer counts when it is 200 and, with `contentType`, of that type; any other is a failure. The pool
 * is READER_CONNECTIONS connections unless `connections` says otherwise (each opened by a request not counted).
 */
export async function steadyGets(
  url: string,
  authorization: string,
  rate: number,
  { contentType, connections = READER_CONNECTIONS }: { contentType?: string; connections?: number } = {},
) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections, scheduling: 'fifo' });
  const times: number[] = [];
  let failures = 0;
  let stopped = false;
  const inFlight = new Set<Promise<void>>();
  const get = (onAnswer: (ok: boolean) => void) =>
    new Promise<void>((resolve) => {
      const request = http.get(url, { agent, headers: { authorization }, timeout: 60_000 }, (response) => {
        const ok =
          response.statusCode === 200 &&
          (contentType === undefined || (response.headers['content-type'] ?? '').startsWith(contentType));
        response.resume();
        response.on('end', () => {
          onAnswer(ok);
          resolve();
        });
      });
      request.on('timeout', () => request.destroy());
      request.on('error', () => {
        onAnswer(false);
        resolve();
      });
    });
  // The pool opened (answers not counted).
  await Promise.all(Array.from({ length: connections }, () => get(() => {})));
  const send = (scheduledAt: number) => {
    const sent = get((ok) => {
      if (ok) times.push(performance.now() - scheduledAt);
      else failures += 1;
    });
    inFlight.add(sent);
    void sent.then(() => inFlight.delete(sent));
  };
  const started = performance.now();
  const loop = (async () => {
    for (let n = 0; !stopped; n += 1) {
      const scheduledAt = started + (n * 1000) / rate;
      const wait = scheduledAt - performance.now();
      if (wait > 0) await sleep(wait);
      if (!stopped) send(scheduledAt);
    }
  })();
  return {
    async stop(): Promise<Latencies> {
      stopped = true;
      await loop;
      await Promise.all(inFlight);
      agent.destroy();
      const sorted = Float64Array.from(times).sort();
      return {
        requests: times.length + failures,
        p50Ms: round(percentile(sorted, 50), 1),
        p99Ms: round(percentile(sorted, 99), 1),
        maxMs: round(sorted.at(-1) ?? 0, 1),
        failures,
      };
    },
  };
}
