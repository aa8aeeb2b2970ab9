/**
 * The usage benchmark's flood (bench/README.md, "Usage"): one account sends batches of usage events as fast as its
 * connections go and honours nothing, as an attacker would (a 429 is followed at once by the next batch), against
 * the budget the service ships with (USAGE_EVENTS_PER_SECOND, USAGE_BYTES_PER_SECOND; docs/usage.md, "Limits").
 * Meanwhile another account reads `GET /v1/customers/{id}` and sends its own events, each at a steady rate (open
 * loop): its read p50 and p99 are the figures, against the same reads on the quiet server (the floor).
 */
import { sql } from 'kysely';
import type { Db } from '../../src/storage/database.ts';
import { log, round, setting, sleep } from '../common.ts';
import { CONNECTIONS, SECONDS, fire, percentile } from '../harness.ts';
import type { LoadSpec, Run, Service } from '../harness.ts';
import { METRIC, api } from './population.ts';
import { BATCH_PATH, acceptedIn, batchBody, newEvents } from './wire.ts';

const READ_RATE = setting('BENCH_USAGE_READ_RATE', 20, 1, 1000);
/** The other account's batches a second, OTHER_BATCH events each: far inside its own budget. */
const OTHER_RATE = setting('BENCH_USAGE_OTHER_RATE', 5, 1, 100);
const OTHER_BATCH = 10;
const FLOOD_BATCH = 100;
/** The budget the server runs with: the service's defaults unless the environment sets them (src/config.ts). */
export const FLOOD_LIMITS = {
  eventsPerSecond: Number(process.env.USAGE_EVENTS_PER_SECOND || 1000),
  bytesPerSecond: Number(process.env.USAGE_BYTES_PER_SECOND || 1_000_000),
};

/** What the flooder's answers were: events accepted, batches refused 429, anything else (which fails the run). */
interface FlooderTally {
  requests: number;
  acceptedEvents: number;
  refused: number;
  other: number;
  samples: string[];
}

export interface FloodFigures {
  flooder: FlooderTally & { seconds: number; acceptedEventsPerSecond: number };
  /** The other account's reads: quiet (the floor), then during the flood. */
  quietP50Ms: number;
  quietP99Ms: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** p99 during the flood over p99 on the quiet server. */
  p99VsQuiet: number;
  reads: number;
  readsNon2xx: number;
  /** The other account's own batches during the flood. */
  otherEvents: {
    batches: number;
    accepted: number;
    sent: number;
    non2xx: number;
    p50Ms: number;
    p99Ms: number;
  };
}

export interface FloodCheck {
  name: string;
  ok: boolean;
  detail: string;
}

/** The other account: the same metric, and one customer it reads and sends events for. */
export async function seedOtherAccount(service: Service, authorization: string): Promise<number> {
  await api(
    service,
    'POST',
    '/v1/billable-metrics',
    { Code: METRIC, Name: 'Tokens', Aggregation: 'sum', Property: 'tokens' },
    authorization,
  );
  const customer = await api(service, 'POST', '/v1/customers', { Name: 'Reader' }, authorization);
  return customer.customerID as number;
}

function floodLoad(service: Service, customerIds: number[], tally: FlooderTally): LoadSpec {
  let next = 0;
  return {
    label: `the flooder's POST ${BATCH_PATH} (${FLOOD_BATCH} events), honouring nothing`,
    options: {
      url: `${service.base}${BATCH_PATH}`,
      method: 'POST',
      headers: { authorization: service.authorization, 'content-type': 'application/json' },
      requests: [
        {
          setupRequest: (request) => {
            const body = batchBody(newEvents('flood', next, FLOOD_BATCH, customerIds));
            next += FLOOD_BATCH;
            return { ...request, body };
          },
          onResponse: (status, body) => {
            tally.requests += 1;
            if (status === 429) tally.refused += 1;
            else if (status < 300) tally.acceptedEvents += acceptedIn(body);
            else {
              tally.other += 1;
              if (tally.samples.length < 5) tally.samples.push(`${status}: ${body.slice(0, 300)}`);
            }
          },
        },
      ],
    },
  };
}

const p = (run: Run, at: number) => round(percentile(run.latencies, at), 2);
const non2xx = (run: Run) => run.result.non2xx + run.result.errors + run.result.timeouts;

/**
 * The other account's reads on the quiet server; then the flood on CONNECTIONS connections for SECONDS + 2, and
 * from its first second to its last but one the other account's reads and batches.
 */
export async function measureFlood(
  service: Service,
  customerIds: number[],
  other: { authorization: string; customerId: number },
): Promise<FloodFigures> {
  const reads: LoadSpec = {
    label: `another account's GET /v1/customers/{id} at ${READ_RATE}/s`,
    options: {
      url: `${service.base}/v1/customers/${other.customerId}`,
      headers: { authorization: other.authorization },
    },
    perSecond: READ_RATE,
  };
  let otherNext = 0;
  const otherAccepted = { events: 0 };
  const otherBatches: LoadSpec = {
    label: `another account's POST ${BATCH_PATH} (${OTHER_BATCH} events) at ${OTHER_RATE}/s`,
    options: {
      url: `${service.base}${BATCH_PATH}`,
      method: 'POST',
      headers: { authorization: other.authorization, 'content-type': 'application/json' },
      requests: [
        {
          setupRequest: (request) => {
            const body = batchBody(newEvents('other', otherNext, OTHER_BATCH, [other.customerId]));
            otherNext += OTHER_BATCH;
            return { ...request, body };
          },
          onResponse: (status, body) => {
            if (status < 300) otherAccepted.events += acceptedIn(body);
          },
        },
      ],
    },
    perSecond: OTHER_RATE,
  };
  log(`flood: another account's reads on the quiet server, ${SECONDS} s`);
  const quiet = await fire(reads, { seconds: SECONDS, connections: 1, phase: 'quiet' });
  const tally: FlooderTally = { requests: 0, acceptedEvents: 0, refused: 0, other: 0, samples: [] };
  log(`flood: ${CONNECTIONS} connections for ${SECONDS + 2} s, the other account's reads and events within`);
  const started = performance.now();
  const [, [during, batches]] = await Promise.all([
    fire(floodLoad(service, customerIds, tally), {
      seconds: SECONDS + 2,
      connections: CONNECTIONS,
      phase: 'flood',
      tolerateFailures: true,
    }),
    sleep(1000).then(() =>
      Promise.all([
        fire(reads, { seconds: SECONDS, connections: 1, phase: 'during the flood', tolerateFailures: true }),
        fire(otherBatches, {
          seconds: SECONDS,
          connections: 1,
          phase: 'during the flood',
          tolerateFailures: true,
        }),
      ]),
    ),
  ]);
  const seconds = round((performance.now() - started) / 1000, 2);
  const quietP99Ms = p(quiet, 99);
  const p99Ms = p(during, 99);
  return {
    flooder: { ...tally, seconds, acceptedEventsPerSecond: round(tally.acceptedEvents / seconds, 0) },
    quietP50Ms: p(quiet, 50),
    quietP99Ms,
    p50Ms: p(during, 50),
    p99Ms,
    maxMs: round(during.latencies.at(-1) ?? 0, 2),
    p99VsQuiet: quietP99Ms > 0 ? round(p99Ms / quietP99Ms, 2) : 0,
    reads: during.result.requests.total,
    readsNon2xx: non2xx(during),
    otherEvents: {
      batches: batches.result.requests.total,
      accepted: otherAccepted.events,
      sent: otherNext,
      non2xx: non2xx(batches),
      p50Ms: p(batches, 50),
      p99Ms: p(batches, 99),
    },
  };
}

/**
 * The flood's checks: the flooder was answered 2xx or 429 only, and got no more than its budget (the rate over the
 * flood's length, and the two seconds' worth gathered before it); what it was told was accepted is stored; the
 * other account's reads were all answered and its events all accepted.
 */
export async function checkFlood(db: Db, flooderAccountId: number, f: FloodFigures): Promise<FloodCheck[]> {
  const { n } = await sql<{ n: string | number }>`
    select count(*) as n from usage_events where account_id = ${flooderAccountId} and transaction_id like 'flood-%'`
    .execute(db)
    .then((r) => r.rows[0]!);
  const stored = Number(n);
  const budget =
    FLOOD_LIMITS.eventsPerSecond * (f.flooder.seconds + 1) + Math.max(2 * FLOOD_LIMITS.eventsPerSecond, 100);
  return [
    {
      name: "the flooder's answers were 2xx or 429",
      ok: f.flooder.other === 0 && f.flooder.requests > 0,
      detail: f.flooder.other === 0 ? `${f.flooder.requests} answers` : f.flooder.samples.join(' | '),
    },
    {
      name: 'the flooder got no more than its budget',
      ok: f.flooder.acceptedEvents <= budget,
      detail: `${f.flooder.acceptedEvents} accepted, budget ${Math.round(budget)} in ${f.flooder.seconds} s`,
    },
    {
      name: "the flooder's accepted events are stored",
      // Requests in flight when autocannon stopped (one a connection at most) may be stored, their answers unread.
      ok:
        stored >= f.flooder.acceptedEvents && stored <= f.flooder.acceptedEvents + CONNECTIONS * FLOOD_BATCH,
      detail: `${stored} stored, ${f.flooder.acceptedEvents} answered accepted`,
    },
    {
      name: "the other account's reads and events were all answered and accepted",
      ok:
        f.readsNon2xx === 0 &&
        f.otherEvents.non2xx === 0 &&
        f.otherEvents.accepted === f.otherEvents.batches * OTHER_BATCH,
      detail:
        `${f.reads} reads (${f.readsNon2xx} not 2xx), ${f.otherEvents.accepted} of ` +
        `${f.otherEvents.batches * OTHER_BATCH} events accepted`,
    },
  ];
}
