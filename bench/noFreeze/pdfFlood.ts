/**
 * The no-freeze benchmark's PDF flood (bench/README.md, "No freezing"): a customer with a pay link asks for the PDF of
 * a long invoice in a loop on several connections at once, honouring nothing (a refusal is followed at once by the
 * next request), while another account reads `GET /v1/customers/{id}` and fetches a small invoice's PDF through
 * the API, each at a steady rate (open loop). The customer's share of the PDF threads (docs/operations.md, "PDF
 * documents") is what keeps the other account's answers coming; the figures are the other account's GET p99 and its
 * small PDF's p50, p99 and max, against the small PDF on the quiet server.
 */
import { signPayLinkToken } from '../../src/modules/collections/index.ts';
import { createSecretBox, loadEncryptionKey } from '../../src/security/secretBox.ts';
import { BenchError, log, round, setting, sleep } from '../common.ts';
import { basicAuth } from '../harness.ts';
import { steadyGets } from './steadyGets.ts';
import type { Latencies } from './steadyGets.ts';

export const PDF_FLOOD_SECONDS = setting('BENCH_PDF_FLOOD_SECONDS', 10, 1, 600);
export const PDF_FLOOD_PARALLEL = Math.round(setting('BENCH_PDF_FLOOD_PARALLEL', 8, 1, 256));
export const SMALL_PDF_RATE = setting('BENCH_SMALL_PDF_RATE', 5, 0.5, 100);
/** Connections the small PDFs are fetched on: the account's own line holds 8 documents (PDF_QUEUE_PER_ACCOUNT). */
const SMALL_PDF_CONNECTIONS = 4;

export interface Account {
  accountID: number;
  apiKey: string;
  customerId: number;
}

/** What the customer's loop was answered: PDFs drawn, refusals (429 or 503 busy), anything else (a failure). */
export interface FloodTally {
  drawn: number;
  refused: number;
  other: number;
  samples: string[];
}

export interface PdfFloodFigures {
  seconds: number;
  flood: FloodTally;
  /** The other account's GETs during the flood. */
  gets: Latencies;
  /** The other account's small PDF, on the quiet server (the floor) and during the flood. */
  smallPdfQuiet: Latencies;
  smallPdf: Latencies;
}

async function createInvoice(base: string, account: Account, lines: number): Promise<number> {
  const response = await fetch(`${base}/v1/invoices`, {
    method: 'POST',
    headers: { authorization: basicAuth(account), 'content-type': 'application/json' },
    body: JSON.stringify({
      customerID: account.customerId,
      Charges: Array.from({ length: lines }, (_, i) => ({ Descrip: `Line ${i + 1}`, Qty: 1, UnitCostEx: 1 })),
    }),
  });
  const text = await response.text();
  if (response.status !== 201) throw new BenchError(`an invoice answered ${response.status}: ${text}`);
  return (JSON.parse(text) as { invoiceID: number }).invoiceID;
}

/** PDF_FLOOD_PARALLEL loops asking for `url` until `stop` resolves, each sending again as soon as it is answered. */
async function flood(url: string, stop: Promise<void>): Promise<FloodTally> {
  const tally: FloodTally = { drawn: 0, refused: 0, other: 0, samples: [] };
  let stopped = false;
  void stop.then(() => (stopped = true));
  const loop = async () => {
    while (!stopped) {
      const response = await fetch(url, { signal: AbortSignal.timeout(120_000) });
      const body = Buffer.from(await response.arrayBuffer());
      if (response.status === 200 && body.subarray(0, 5).toString('latin1') === '%PDF-') tally.drawn += 1;
      else if (response.status === 429 || response.status === 503) tally.refused += 1;
      else {
        tally.other += 1;
        if (tally.samples.length < 5)
          tally.samples.push(`${response.status}: ${body.subarray(0, 200).toString('utf8')}`);
      }
    }
  };
  await Promise.all(Array.from({ length: PDF_FLOOD_PARALLEL }, loop));
  return tally;
}

/**
 * The job: the long invoice (`lines` lines, the `documents` account's) and its pay link; the other account's small
 * invoice, its PDF timed on the quiet server for `quietSeconds`; then the flood, started a second before the other
 * account's GETs and small PDFs and stopped once they have run PDF_FLOOD_SECONDS.
 */
export async function pdfFloodJob(options: {
  base: string;
  getUrl: string;
  getRate: number;
  quietSeconds: number;
  lines: number;
  reader: Account;
  documents: Account;
  encryptionKey: string;
  dataDir: string;
}): Promise<PdfFloodFigures> {
  const { base, reader, documents } = options;
  const longInvoice = await createInvoice(base, documents, options.lines);
  const smallInvoice = await createInvoice(base, reader, 1);
  const secrets = createSecretBox(loadEncryptionKey(options.encryptionKey, options.dataDir));
  const token = signPayLinkToken(secrets, {
    accountId: documents.accountID,
    invoiceId: longInvoice,
    expiresAt: new Date(Math.floor(Date.now() / 1000 + 3600) * 1000).toISOString(),
  });
  const smallUrl = `${base}/v1/invoices/${smallInvoice}/pdf`;
  const readerAuth = basicAuth(reader);
  const small = () =>
    steadyGets(smallUrl, readerAuth, SMALL_PDF_RATE, {
      contentType: 'application/pdf',
      connections: SMALL_PDF_CONNECTIONS,
    });
  log(`PDF flood: the other account's small PDF at ${SMALL_PDF_RATE}/s on the quiet server`);
  const quietSmall = await small();
  await sleep(options.quietSeconds * 1000);
  const smallPdfQuiet = await quietSmall.stop();
  log(`PDF flood: ${PDF_FLOOD_PARALLEL} loops of a ${options.lines}-line PDF through its pay link`);
  let endFlood!: () => void;
  const flooding = flood(
    `${base}/pay/${token}/invoice.pdf`,
    new Promise<void>((resolve) => (endFlood = resolve)),
  );
  const started = performance.now();
  await sleep(1000);
  const gets = await steadyGets(options.getUrl, readerAuth, options.getRate);
  const smalls = await small();
  await sleep(PDF_FLOOD_SECONDS * 1000);
  const [getLatencies, smallLatencies] = await Promise.all([gets.stop(), smalls.stop()]);
  endFlood();
  const tally = await flooding;
  const seconds = round((performance.now() - started) / 1000, 2);
  log(
    `PDF flood: ${tally.drawn} drawn, ${tally.refused} refused; GET p99 ${getLatencies.p99Ms} ms; small PDF ` +
      `p50 ${smallLatencies.p50Ms}, p99 ${smallLatencies.p99Ms}, max ${smallLatencies.maxMs} ms`,
  );
  if (tally.other > 0) throw new BenchError(`the flood was answered otherwise: ${tally.samples.join(' | ')}`);
  if (tally.drawn === 0) throw new BenchError('the flood had no PDF drawn');
  return { seconds, flood: tally, gets: getLatencies, smallPdfQuiet, smallPdf: smallLatencies };
}
