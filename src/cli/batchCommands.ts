import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import type { Batch } from '../modules/batches/index.ts';

// What a command needs is imported when it runs (src/cli.ts): `billing --help` loads no service.
const runtime = () => import('./runtime.ts');
const batches = () => import('../modules/batches/index.ts');
const money = () => import('../core/money.ts');
const bankingDays = () => import('../core/bankingDays.ts');

/** The states in which a batch still has something ahead of it: `batch list` shows these. */
const UNDER_WAY = new Set(['open', 'build', 'submitted', 'processing']);

/** The options of the commands that name a batch by its BatchToken. */
interface BatchOptions {
  account: number;
  batch: string;
}

/**
 * `billing batch …`: what a person does with a batch by hand, in the words the staff's e-mails give them
 * (docs/operations.md, "Batches by hand"; docs/gateways.md, "Batches that go out"): see the batches under way,
 * submit one, take its file to the bank or Netcash, cancel it, record the bank's statement. Each is the API's own use case (GET /v1/batches/{BatchToken}/file, PUT /v1/batches/cancel,
 * POST /v1/batches/{BatchToken}/returns), for the account named.
 */
export function registerBatchCommands(program: Command, positiveInteger: (value: string) => number): void {
  const batch = program.command('batch').description("an account's payment batches, by hand");
  batch
    .command('list')
    .description("list an account's batches under way: open, being built, submitted or processing")
    .requiredOption('--account <id>', 'account id', positiveInteger)
    .option('--json', 'print one JSON array')
    .action(listBatchesUnderWay);
  batch
    .command('submit')
    .description(
      'submit an open batch for its action date, as PUT /v1/batches/submit does; one submitted after its last ' +
        "safe day is re-dated within its mandates' periods, its other debit orders carried to their next dates",
    )
    .requiredOption('--account <id>', 'account id', positiveInteger)
    .argument('<batchToken>', 'the batch, by its BatchToken')
    .action(submitBatch);
  batch
    .command('file')
    .description(
      "write a built batch's bank file (for Netcash: to upload in its portal); the first download is the file leaving",
    )
    .requiredOption('--account <id>', 'account id', positiveInteger)
    .requiredOption('--batch <token>', 'the BatchToken')
    .option('--out <path>', "where to write it (default: the file's own name, in this directory)")
    .action(writeBankFile);
  batch
    .command('cancel')
    .description('cancel a batch: its debit orders fail, and their invoices owe the money again')
    .requiredOption('--account <id>', 'account id', positiveInteger)
    .requiredOption('--batch <token>', 'the BatchToken')
    .action(cancelBatch);
  batch
    .command('returns')
    .description(
      "record the bank's answer from its file: Netcash's statement, a pain.002, a NACHA return file",
    )
    .requiredOption('--account <id>', 'account id', positiveInteger)
    .requiredOption('--batch <token>', 'the BatchToken')
    .requiredOption('--file <path>', 'the file as the bank sent it')
    .action(recordBatchReturns);
}

/** `batch list`: the account's batches under way, a line each (with the last safe day to submit an open one). */
async function listBatchesUnderWay(options: { account: number; json?: boolean }): Promise<void> {
  const { toBatchDto } = await batches();
  const { found, timeZone } = await batchesUnderWay(options.account);
  if (options.json) {
    console.log(JSON.stringify(found.map((one) => toBatchDto(one, timeZone))));
    return;
  }
  if (found.length === 0) console.log(`Account ${options.account} has no batch under way.`);
  for (const one of found) console.log(await batchLine(one));
}

/** The account's batches under way, every page of them, and the account's time zone. */
async function batchesUnderWay(accountId: number): Promise<{ found: Batch[]; timeZone: string }> {
  const { withStorage, accountContext } = await runtime();
  const { listBatches } = await batches();
  return withStorage(async (storage) => {
    const ctx = await accountContext(storage, accountId);
    const all: Batch[] = [];
    for (let offset = 0; ; offset += 200) {
      const page = await listBatches(ctx, { limit: 200, offset });
      all.push(...page.filter((one) => UNDER_WAY.has(one.state)));
      if (page.length < 200) return { found: all, timeZone: ctx.account.timeZone };
    }
  });
}

/** One line of `batch list`: token, state, action date (and for an open batch its last safe day), lines, total. */
async function batchLine(one: Batch): Promise<string> {
  const { isRail, lastSubmitDate } = await bankingDays();
  const { minorToDecimalText } = await money();
  const lastSafe =
    one.state === 'open' && one.rail !== null && isRail(one.rail)
      ? lastSubmitDate(one.rail, one.actionDate)
      : undefined;
  const submitBy = lastSafe ? `, submit by ${lastSafe}` : '';
  return (
    `${one.token}\t${one.state}\taction date ${one.actionDate}${submitBy}\t${one.lines} payment(s)\t` +
    `${one.currencyCode} ${minorToDecimalText(one.totalMinor, one.currencyCode)}`
  );
}

/** `batch submit`: the open batch submitted as the API submits it, and what it now holds. */
async function submitBatch(token: string, options: { account: number }): Promise<void> {
  const { withStorage, accountContext } = await runtime();
  const { getBatch, submitBatchAsked } = await batches();
  const { minorToDecimalText } = await money();
  const submitted = await withStorage(async (storage) => {
    const ctx = await accountContext(storage, options.account, 'billing batch submit');
    await submitBatchAsked(ctx, token, {});
    return getBatch(ctx, token);
  });
  console.log(
    `Batch ${submitted.token} submitted: ${submitted.lines} payment(s) for ${submitted.currencyCode} ` +
      `${minorToDecimalText(submitted.totalMinor, submitted.currencyCode)}, action date ${submitted.actionDate}. ` +
      'The next run builds it.',
  );
}

/** `batch file`: the built batch's bank file downloaded, and written where it was asked to be. */
async function writeBankFile(options: BatchOptions & { out?: string }): Promise<void> {
  const { withStorage, accountContext } = await runtime();
  const { downloadBankFile } = await batches();
  const file = await withStorage(async (storage) =>
    downloadBankFile(await accountContext(storage, options.account, 'billing batch file'), options.batch),
  );
  const out = path.resolve(options.out ?? file.fileName);
  // Never over a file already there: a person's other download, another batch's file.
  fs.writeFileSync(out, file.body, { flag: 'wx', mode: 0o600 });
  console.log(`Batch ${options.batch}: file written to ${out}`);
}

/** `batch cancel`. */
async function cancelBatch(options: BatchOptions): Promise<void> {
  const { withStorage, accountContext } = await runtime();
  const { cancelBatch: cancel } = await batches();
  await withStorage(async (storage) =>
    cancel(await accountContext(storage, options.account, 'billing batch cancel'), options.batch),
  );
  console.log(`Batch ${options.batch} cancelled.`);
}

/** `batch returns`: the bank's file read and recorded, and how many payments it settled or returned. */
async function recordBatchReturns(options: BatchOptions & { file: string }): Promise<void> {
  const { withStorage, accountContext } = await runtime();
  const { uploadBatchReturns } = await batches();
  const document = fs.readFileSync(options.file, 'utf8');
  const outcome = await withStorage(async (storage) =>
    uploadBatchReturns(
      await accountContext(storage, options.account, 'billing batch returns'),
      options.batch,
      document,
    ),
  );
  console.log(
    `Batch ${options.batch}: ${outcome.settled} paid, ${outcome.returned} returned, ${outcome.unchanged} unchanged.`,
  );
}
