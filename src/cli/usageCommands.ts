import type { Command } from 'commander';
import type { UsageStorageReport } from '../modules/usage/index.ts';

// What a command needs is imported when it runs (src/cli.ts): `billing --help` loads no service.
const runtime = () => import('./runtime.ts');

/**
 * `billing usage storage`: what each account stores of usage events beside its cap (docs/usage.md, "Limits";
 * docs/operations.md, "Usage storage"), read from the totals the insert keeps, never from the events themselves.
 */
export function registerUsageCommands(program: Command, positiveInteger: (value: string) => number): void {
  const usage = program.command('usage').description("accounts' usage events");
  usage
    .command('storage')
    .description(
      'what each account stores of usage events (events, bytes as the service counts them) beside the cap ' +
        '(USAGE_STORAGE_BYTES_PER_ACCOUNT), the largest first',
    )
    .option('--account <id>', 'only this account', positiveInteger)
    .option('--json', 'print one JSON array')
    .action(async (options: { account?: number; json?: boolean }) => {
      const { withStorage } = await runtime();
      const { loadConfig } = await import('../config.ts');
      const { getAccount } = await import('../modules/auth/index.ts');
      const { usageStorageReport } = await import('../modules/usage/index.ts');
      const cap = loadConfig().usageStorageBytesPerAccount;
      const report = await withStorage(async (storage) => {
        // An unknown account is an error, not a line of zeros.
        if (options.account !== undefined) await getAccount(storage.db, options.account);
        return usageStorageReport(storage.db, cap, options.account);
      });
      if (options.json) console.log(JSON.stringify(report));
      else console.log(usageStorageTable(report));
    });
}

/** The report as a table: one line per account, numbers aligned right. */
export function usageStorageTable(report: readonly UsageStorageReport[]): string {
  if (report.length === 0) return 'No account has stored usage events.';
  const head = ['Account', 'Events', 'Bytes', 'Cap', 'Used'];
  const lines = report.map((r) => [
    String(r.accountId),
    String(r.events),
    String(r.bytes),
    r.capBytes === null ? 'none' : String(r.capBytes),
    r.used === null ? '-' : `${(r.used * 100).toFixed(1)} %`,
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...lines.map((line) => line[i]!.length)));
  return [head, ...lines]
    .map((line) => line.map((cell, i) => cell.padStart(widths[i]!)).join('  '))
    .join('\n');
}
