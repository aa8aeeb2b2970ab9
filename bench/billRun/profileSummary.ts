/**
 * What a V8 CPU profile of the bill run's process (BENCH_CPU_PROFILE_DIR) spent its time on: the functions with the
 * most self time, and the time spent under each of the bill run's parts (inclusive, each counted once per sample
 * however deep the recursion), per invoice when given the invoices made. Given a sampling heap profile
 * (BENCH_ALLOCATION_PROFILE_DIR, `.heapprofile`), the same of the memory allocated, garbage included.
 *
 *   npx tsx bench/billRun/profileSummary.ts <file.cpuprofile | file.heapprofile> [invoices]
 */
import path from 'node:path';
import { parentsOf, placeOf, readHeapProfile, readProfile } from '../cpuProfile.ts';
import type { Profile } from '../cpuProfile.ts';

/** The parts of the run, by the function that does each (the first found on a sample's stack, from the top). */
const PARTS: [part: string, functionName: string][] = [
  ['bill run (runBilling)', 'runBilling'],
  ['subscriptions billed (billRows)', 'billRows'],
  ['  inputs read (billingInputs)', 'billingInputs'],
  ['  planned (decideBilling)', 'decideBilling'],
  ['  invoices written (insertInvoices)', 'insertInvoices'],
  ['  periods, usage, records (recordBilling)', 'recordBilling'],
  ['  e-mails queued (queueInvoiceMails)', 'queueInvoiceMails'],
  ['  events (emitEvents)', 'emitEvents'],
  ['    rendered (renderAll)', 'renderAll'],
  ['    stored (insertEvents)', 'insertEvents'],
  ['    JSON.stringify of payloads', 'stringify'],
  ['collection (collectDueInvoices)', 'collectDueInvoices'],
  ['batches (runBatches)', 'runBatches'],
  ['statements (sendDueStatements)', 'sendDueStatements'],
  ['time events: invoices (emitInvoicingTimeEvents)', 'emitInvoicingTimeEvents'],
  ['time events: subscriptions (emitSubscriptionTimeEvents)', 'emitSubscriptionTimeEvents'],
  ['Kysely compiling queries (compileQuery)', 'compileQuery'],
  ['garbage collector', '(garbage collector)'],
];

/** A script's place (bench/cpuProfile.ts), Node's own scripts counted together as `node:`. */
function fileOf(url: string): string {
  return url.startsWith('node:') ? 'node:' : placeOf(url);
}

/** How a sample's weight reads: a CPU profile's in microseconds, a heap profile's in bytes. */
interface Units {
  /** What a function's own samples are. */
  self: string;
  total: string;
  perInvoice: string;
  format: (weight: number) => string;
  formatPerInvoice: (weight: number) => string;
}

const TIME: Units = {
  self: 'Self time',
  total: 'ms',
  perInvoice: 'µs/invoice',
  format: (us) => (us / 1000).toFixed(0),
  formatPerInvoice: (us) => us.toFixed(1),
};

const MEMORY: Units = {
  self: 'Allocated (garbage included)',
  total: 'MB',
  perInvoice: 'KB/invoice',
  format: (bytes) => (bytes / 2 ** 20).toFixed(1),
  formatPerInvoice: (bytes) => (bytes / 1024).toFixed(2),
};

function summarise(file: string, profile: Profile, units: Units, invoices: number | undefined): void {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = parentsOf(profile);
  const self = new Map<string, number>();
  const selfByFile = new Map<string, number>();
  const inclusive = new Map<string, number>();
  let total = 0;
  profile.samples.forEach((sample, i) => {
    const weight = profile.timeDeltas[i] ?? 0;
    total += weight;
    const leaf = byId.get(sample)!;
    const where = `${leaf.callFrame.functionName || '(anonymous)'} ${path.basename(leaf.callFrame.url)}:${leaf.callFrame.lineNumber + 1}`;
    self.set(where, (self.get(where) ?? 0) + weight);
    const file = fileOf(leaf.callFrame.url) || leaf.callFrame.functionName;
    selfByFile.set(file, (selfByFile.get(file) ?? 0) + weight);
    const seen = new Set<string>();
    for (let id: number | undefined = sample; id !== undefined; id = parent.get(id)) {
      const node = byId.get(id)!;
      const name = node.callFrame.functionName;
      if (seen.has(name)) continue;
      seen.add(name);
      inclusive.set(name, (inclusive.get(name) ?? 0) + weight);
    }
  });
  const amount = (weight: number) => `${units.format(weight).padStart(7)} ${units.total}`;
  const perInvoice = (weight: number) =>
    invoices ? `${units.formatPerInvoice(weight / invoices).padStart(7)} ${units.perInvoice}` : '';
  const share = (weight: number) => `${((100 * weight) / total).toFixed(1).padStart(5)} %`;
  console.log(`${file}: ${amount(total)} sampled`);
  console.log('\nParts (inclusive):');
  for (const [part, fn] of PARTS) {
    const weight = inclusive.get(fn) ?? 0;
    console.log(`${amount(weight)} ${share(weight)} ${perInvoice(weight)}  ${part}`);
  }
  console.log(
    `\n${units.self} by file, top 25 (storage/database.ts: the SQLite statements, run synchronously there):`,
  );
  for (const [file, weight] of [...selfByFile].sort((a, b) => b[1] - a[1]).slice(0, 25)) {
    console.log(`${amount(weight)} ${share(weight)} ${perInvoice(weight)}  ${file}`);
  }
  console.log(`\n${units.self}, top 30:`);
  for (const [where, weight] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 30)) {
    console.log(`${amount(weight)} ${share(weight)}  ${where}`);
  }
}

const [file, invoices] = process.argv.slice(2);
if (!file) {
  process.stderr.write(
    'usage: npx tsx bench/billRun/profileSummary.ts <file.cpuprofile | file.heapprofile> [invoices]\n',
  );
  process.exit(2);
}
const heap = file.endsWith('.heapprofile');
summarise(
  file,
  heap ? readHeapProfile(file) : readProfile(file),
  heap ? MEMORY : TIME,
  invoices === undefined ? undefined : Number(invoices),
);
