// Every benchmark of bench/README.md, with the settings of its shortened runs: `quick` for trying bench:all
// (BENCH_ALL_QUICK=1), `tiny` for the suite's run of each script (bench/scripts.test.ts), which proves the script
// still seeds, runs and checks what it made, in seconds, its figures not judged.

export interface Benchmark {
  script: string;
  measures: string;
  /** Settings for BENCH_ALL_QUICK=1: enough to see every benchmark run and check itself, quickly. */
  quick: Record<string, string>;
  /** Settings for the suite's run of the script: the least that still runs every part of it and its checks. */
  tiny: Record<string, string>;
}

/** In the order of bench/README.md; each runs on SQLite, then on PostgreSQL. */
export const BENCHMARKS: readonly Benchmark[] = [
  {
    script: 'bench',
    measures:
      'HTTP reads and writes (a customer, the catalogue pages) against `GET /healthz` on the same server.',
    quick: { BENCH_SECONDS: '2', BENCH_WARMUP_SECONDS: '1' },
    tiny: { BENCH_SECONDS: '1', BENCH_WARMUP_SECONDS: '0', BENCH_CATALOGUE_ITEMS: '3' },
  },
  {
    script: 'bench:billing',
    measures: 'One bill run over subscriptions due the same day against the same rows written bare.',
    quick: { BENCH_SUBSCRIPTIONS: '2000' },
    tiny: { BENCH_SUBSCRIPTIONS: '20' },
  },
  {
    script: 'bench:payments',
    measures: '`POST /v1/payments` with `AutoApply`, spread and on one customer, against `GET /healthz`.',
    quick: { BENCH_SECONDS: '2', BENCH_WARMUP_SECONDS: '1', BENCH_CUSTOMERS: '100' },
    tiny: {
      BENCH_SECONDS: '1',
      BENCH_WARMUP_SECONDS: '0',
      BENCH_CUSTOMERS: '5',
      BENCH_INVOICES_PER_CUSTOMER: '2',
    },
  },
  {
    script: 'bench:fairness',
    measures:
      "Another tenant's reads while one tenant floods one customer with payments, against the same reads quiet.",
    quick: { BENCH_SECONDS: '2', BENCH_WARMUP_SECONDS: '1', BENCH_CUSTOMERS: '50' },
    tiny: {
      BENCH_SECONDS: '1',
      BENCH_WARMUP_SECONDS: '0',
      BENCH_CUSTOMERS: '5',
      BENCH_FLOOD_CONNECTIONS: '2',
    },
  },
  {
    script: 'bench:nofreeze',
    measures:
      "Another account's GET while a bill run, a test-clock advance, a batch build, four PDFs and a customer's PDF loop run (and its small PDF during the loop), against the same quiet.",
    quick: {
      BENCH_SUBSCRIPTIONS: '1000',
      BENCH_BATCH_LINES: '50',
      BENCH_QUIET_SECONDS: '1',
      BENCH_PDF_FLOOD_SECONDS: '2',
    },
    tiny: {
      BENCH_SUBSCRIPTIONS: '40',
      BENCH_BATCH_LINES: '5',
      BENCH_PDFS: '1',
      BENCH_PDF_LINES: '5',
      BENCH_QUIET_SECONDS: '1',
      BENCH_PDF_FLOOD_SECONDS: '1',
      BENCH_PDF_FLOOD_PARALLEL: '2',
    },
  },
  {
    script: 'bench:webhooks',
    measures: 'Webhook deliveries to a local receiver against plain POSTs of the same bodies.',
    quick: { BENCH_WEBHOOK_EVENTS: '200', BENCH_SECONDS: '2' },
    tiny: { BENCH_WEBHOOK_EVENTS: '10', BENCH_SECONDS: '1' },
  },
  {
    script: 'bench:collections',
    measures: 'Collection of due card invoices through the test gateway against the gateway charges alone.',
    quick: { BENCH_INVOICES: '300' },
    tiny: { BENCH_INVOICES: '10' },
  },
  {
    script: 'bench:reminders',
    measures: "One day's reminder pass over past-due EFT invoices against the same e-mails queued bare.",
    quick: { BENCH_INVOICES: '300' },
    tiny: { BENCH_INVOICES: '10' },
  },
  {
    script: 'bench:batches',
    measures:
      'Building and exporting a SEPA batch, and adding its lines, against the reads the file needs and the file made bare.',
    quick: { BENCH_LINES: '100', BENCH_REPEATS: '1', BENCH_WARM_REPEATS: '2' },
    tiny: { BENCH_LINES: '5', BENCH_REPEATS: '1', BENCH_WARM_REPEATS: '1' },
  },
  {
    script: 'bench:revocation',
    measures: 'How long a revoked API key still works on a server that keeps its key lookups.',
    quick: { BENCH_ROUNDS: '5' },
    tiny: { BENCH_ROUNDS: '1' },
  },
  {
    script: 'bench:usage',
    measures:
      "Usage events through `POST /v1/usage-events/batch` against the same rows inserted bare; another account's reads while one floods past its budget; a period aggregate.",
    quick: {
      BENCH_SECONDS: '2',
      BENCH_WARMUP_SECONDS: '1',
      BENCH_USAGE_CUSTOMERS: '20',
      BENCH_USAGE_PERIOD_EVENTS: '10000',
      BENCH_USAGE_AGGREGATE_RUNS: '10',
    },
    tiny: {
      BENCH_SECONDS: '1',
      BENCH_WARMUP_SECONDS: '0',
      BENCH_USAGE_CUSTOMERS: '2',
      BENCH_USAGE_PERIOD_EVENTS: '1000',
      BENCH_USAGE_AGGREGATE_RUNS: '10',
    },
  },
  {
    script: 'bench:scaling',
    measures:
      'A customer read, payments and a bill run with 1 and with 2 processes, against `GET /healthz` with as many.',
    quick: {
      BENCH_SECONDS: '2',
      BENCH_WARMUP_SECONDS: '1',
      BENCH_CUSTOMERS: '50',
      BENCH_BILLRUN_SUBSCRIPTIONS: '500',
    },
    tiny: {
      BENCH_SECONDS: '1',
      BENCH_WARMUP_SECONDS: '0',
      BENCH_CUSTOMERS: '5',
      BENCH_BILLRUN_SUBSCRIPTIONS: '20',
    },
  },
  {
    script: 'bench:startup',
    measures: '`billing --help`, `billing serve` to its first answer, and its idle memory (SQLite).',
    quick: { STARTUP_RUNS: '2', STARTUP_IDLE_MS: '500' },
    tiny: { STARTUP_RUNS: '1', STARTUP_IDLE_MS: '0' },
  },
];
