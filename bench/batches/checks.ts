/** The batch benchmark's check of what the build and the export made, before any figure is printed. */
import type { Db } from '../../src/storage/database.ts';
import { BUILD_AT } from './shared.ts';
import { problemList } from '../common.ts';
import type { BuiltBatch } from './child.ts';
import type { Population, SeededBatch } from './population.ts';

/** Problems beyond this many are counted, not listed. */
const LISTED = 20;

const cents = (minor: number) => `${Math.floor(minor / 100)}.${String(minor % 100).padStart(2, '0')}`;

/** An amount of the file (`123.45`) in cents, exactly. */
function minorOf(text: string): number {
  const match = /^(\d+)\.(\d{2})$/.exec(text);
  return match ? Number(match[1]) * 100 + Number(match[2]) : Number.NaN;
}

/** The transactions of a pain.008 file: end-to-end id and amount of each `<DrctDbtTxInf>`, and its header's figures. */
export function readPain008(body: string) {
  const blocks = body.split('<DrctDbtTxInf>').slice(1);
  const transactions = blocks.map((block) => ({
    endToEndId: /<EndToEndId>([^<]*)<\/EndToEndId>/.exec(block)?.[1] ?? '',
    currency: /<InstdAmt Ccy="([A-Z]{3})">/.exec(block)?.[1] ?? '',
    amountMinor: minorOf(/<InstdAmt Ccy="[A-Z]{3}">([^<]*)<\/InstdAmt>/.exec(block)?.[1] ?? ''),
  }));
  const header = /<GrpHdr>([\s\S]*?)<\/GrpHdr>/.exec(body)?.[1] ?? '';
  return {
    transactions,
    closingTags: body.split('</DrctDbtTxInf>').length - 1,
    headerCount: Number(/<NbOfTxs>(\d+)<\/NbOfTxs>/.exec(header)?.[1] ?? Number.NaN),
    headerSumMinor: minorOf(/<CtrlSum>([^<]*)<\/CtrlSum>/.exec(header)?.[1] ?? ''),
  };
}

/**
 * The batch is `submitted` with its lines (NumberOfPayments, PaymentsTotal and each payment as added, through the
 * API); the run built exactly it and bundled nothing; each of its invoices counts one try, with its invoice.updated
 * event, and the batch has its batch.updated; the export answered 200
 * with a pain.008 of one transaction per line (end-to-end id the payment, its amount in EUR) whose sum and header
 * are the batch's total, and (when the process downloaded it again) the same file on every later download.
 */
export async function verify(
  db: Db,
  population: Population,
  batch: SeededBatch,
  run: BuiltBatch,
  exported: string,
  options: {
    /** The process downloaded the file again: whether each download gave the same file. */
    sameOnLaterDownloads?: boolean;
    /** The building process submitted the batch itself (at its instant: one more batch.updated then). */
    submittedAtBuild?: boolean;
  } = {},
): Promise<void> {
  const { problem, expect, failIfAny } = problemList(LISTED);
  const n = batch.lines.length;

  expect('run: built', run.summary.built, 1);
  expect('run: build failed', run.summary.buildFailed, 0);
  expect('run: bundled', run.summary.bundled, 0);
  expect('export status', run.exportStatus, 200);
  if (options.sameOnLaterDownloads !== undefined) {
    expect('later downloads give the same file', options.sameOnLaterDownloads, true);
  }

  const dto = await population.call('GET', `/v1/batches/${batch.token}`);
  expect('State', dto.State, 'submitted');
  expect('BuildError', dto.BuildError, null);
  expect('NumberOfPayments', dto.NumberOfPayments, n);
  expect('PaymentsTotal', dto.PaymentsTotal, cents(batch.totalMinor));
  const payments = (dto.Payments ?? []) as { paymentID: number; Amount: number }[];
  expect('Payments listed', payments.length, n);
  const added = new Map(batch.lines.map((line) => [line.paymentId, line]));
  for (const payment of payments) {
    const line = added.get(payment.paymentID);
    if (!line) problem(`payment ${payment.paymentID} is in the batch but was not added`);
    else if (Math.round(payment.Amount * 100) !== line.amountMinor) {
      problem(`payment ${payment.paymentID}: Amount ${payment.Amount}, expected ${cents(line.amountMinor)}`);
    }
  }

  const invoiceIds = batch.lines.map((line) => line.invoiceId);
  const tries = await db
    .selectFrom('invoices')
    .select(['id', 'num_tries', 'total_minor', 'paid_pending_minor'])
    .where('account_id', '=', population.accountId)
    .where('id', 'in', invoiceIds)
    .execute();
  expect('invoices of the batch', tries.length, n);
  for (const invoice of tries) {
    if (Number(invoice.num_tries) !== 1)
      problem(`invoice ${invoice.id}: NumTries ${invoice.num_tries}, expected 1`);
    if (Number(invoice.paid_pending_minor) !== Number(invoice.total_minor)) {
      problem(`invoice ${invoice.id}: pending paid ${invoice.paid_pending_minor} of ${invoice.total_minor}`);
    }
  }

  // The build's events (business time BUILD_AT): the batch's batch.updated, and one invoice.updated per invoice.
  const events = await db
    .selectFrom('events')
    .select(['type', 'resource_id'])
    .where('account_id', '=', population.accountId)
    .where('occurred_at', '=', BUILD_AT)
    .where((eb) =>
      eb.or([
        eb.and([eb('type', '=', 'batch.updated'), eb('resource_id', '=', batch.token)]),
        eb.and([eb('type', '=', 'invoice.updated'), eb('resource_id', 'in', invoiceIds.map(String))]),
      ]),
    )
    .execute();
  expect(
    'build: batch.updated events',
    events.filter((e) => e.type === 'batch.updated').length,
    options.submittedAtBuild ? 2 : 1,
  );
  expect('build: invoice.updated events', events.filter((e) => e.type === 'invoice.updated').length, n);

  const file = readPain008(exported);
  expect('file: <DrctDbtTxInf> elements', file.transactions.length, n);
  expect('file: </DrctDbtTxInf> closing tags', file.closingTags, n);
  expect('file: GrpHdr NbOfTxs', file.headerCount, n);
  expect('file: GrpHdr CtrlSum', file.headerSumMinor, batch.totalMinor);
  const sum = file.transactions.reduce((total, t) => total + t.amountMinor, 0);
  expect('file: sum of the transactions', sum, batch.totalMinor);
  const seen = new Set<string>();
  for (const t of file.transactions) {
    const line = added.get(Number(t.endToEndId));
    if (seen.has(t.endToEndId)) problem(`file: EndToEndId ${t.endToEndId} twice`);
    seen.add(t.endToEndId);
    if (!line) problem(`file: EndToEndId ${t.endToEndId} is no payment of the batch`);
    else if (t.amountMinor !== line.amountMinor || t.currency !== 'EUR') {
      problem(
        `file: payment ${t.endToEndId} of ${t.currency} ${t.amountMinor}, expected EUR ${line.amountMinor}`,
      );
    }
  }

  failIfAny(`batch ${batch.token} is wrong`);
}
