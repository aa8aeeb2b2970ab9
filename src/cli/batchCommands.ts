import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';

// What a command needs is imported when it runs (src/cli.ts): `billing --help` loads no service.
const runtime = () => import('./runtime.ts');
const batches = () => import('../modules/batches/index.ts');

/**
 * `billing batch …`: what a person does with a batch by hand, in the words the staff's e-mails give them
 * (docs/operations.md, "Batches by hand"): take its file to the bank or Netcash, cancel it, record the bank's
 * statement. Each is the API's own use case (GET /v1/batches/{BatchToken}/file, PUT /v1/batches/cancel,
 * POST /v1/batches/{BatchToken}/returns), for the account named.
 */
export function registerBatchCommands(program: Command, positiveInteger: (value: string) => number): void {
  const batch = program.command('batch').description("an account's payment batches, by hand");
  batch
    .command('file')
    .description(
      "write a built batch's bank file (for Netcash: to upload in its portal); the first download is the file leaving",
    )
    .requiredOption('--account <id>', 'account id', positiveInteger)
    .requiredOption('--batch <token>', 'the BatchToken')
    .option('--out <path>', "where to write it (default: the file's own name, in this directory)")
    .action(async (options: { account: number; batch: string; out?: string }) => {
      const { withStorage, accountContext } = await runtime();
      const { downloadBankFile } = await batches();
      const file = await withStorage(async (storage) =>
        downloadBankFile(await accountContext(storage, options.account, 'billing batch file'), options.batch),
      );
      const out = path.resolve(options.out ?? file.fileName);
      // Never over a file already there: a person's other download, another batch's file.
      fs.writeFileSync(out, file.body, { flag: 'wx', mode: 0o600 });
      console.log(`Batch ${options.batch}: file written to ${out}`);
    });
  batch
    .command('cancel')
    .description('cancel a batch: its debit orders fail, and their invoices owe the money again')
    .requiredOption('--account <id>', 'account id', positiveInteger)
    .requiredOption('--batch <token>', 'the BatchToken')
    .action(async (options: { account: number; batch: string }) => {
      const { withStorage, accountContext } = await runtime();
      const { cancelBatch } = await batches();
      await withStorage(async (storage) =>
        cancelBatch(await accountContext(storage, options.account, 'billing batch cancel'), options.batch),
      );
      console.log(`Batch ${options.batch} cancelled.`);
    });
  batch
    .command('returns')
    .description(
      "record the bank's answer from its file: Netcash's statement, a pain.002, a NACHA return file",
    )
    .requiredOption('--account <id>', 'account id', positiveInteger)
    .requiredOption('--batch <token>', 'the BatchToken')
    .requiredOption('--file <path>', 'the file as the bank sent it')
    .action(async (options: { account: number; batch: string; file: string }) => {
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
    });
}
