import crypto from 'node:crypto';
import { addBusinessDays } from '../../core/bankingDays.ts';
import type { Rail } from '../../core/bankingDays.ts';
import { addDays } from '../../core/calendar.ts';
import type { PlainDate } from '../../core/calendar.ts';
import type { Db } from '../../storage/database.ts';
import type {
  BatchLineReport,
  BatchLineToSubmit,
  BatchSubmitResult,
  BatchToSubmit,
  GatewayTarget,
} from './gatewayContract.ts';
import { ownEntry } from '../../core/ownEntry.ts';

/**
 * The test gateway's batches: every line is paid unless its account number or IBAN says otherwise
 * (docs/design/collections.md, "Test gateway"; docs/gateways.md, "The test gateway's bank accounts"). A paid line is
 * never reported: like a real provider, the gateway speaks only of returns, and a line nobody returned within the
 * rail's window is paid. Reports are dated in business time, so a test clock brings them.
 */

/** What happens to a line: returned with `code`, `days` after the action date (business days unless `calendar`). */
interface LineFate {
  code: string;
  days: number;
  calendar?: boolean;
}

// prettier-ignore
const SA_UNPAID_CODES = [
  '02', '03', '04', '06', '08', '10', '12', '14', '16', '18', '22', '26', '28', '30', '32', '34', '36', '50', '51',
  '56', '60',
];

/** SA: `99000000CC` unpaid with code CC two business days after; two accounts are paid, then reversed late. */
function debitOrderFate(accountNumber: string): LineFate | undefined {
  if (accountNumber === '9900000100') return { code: '30', days: 10, calendar: true };
  if (accountNumber === '9900000101') return { code: '02', days: 6 };
  const code = /^99000000(\d\d)$/.exec(accountNumber)?.[1];
  return code && SA_UNPAID_CODES.includes(code) ? { code, days: 2 } : undefined;
}

/** ACH returns two banking days after settlement; the unauthorised family (R07, R10, R11) on day 30. */
const LATE_ACH = new Set(['R07', 'R10', 'R11']);
const ACH_ACCOUNTS: Readonly<Record<string, string>> = {
  '000111111116': 'R03',
  '000111111113': 'R02',
  '000222222227': 'R01',
  '000333333335': 'R10',
};
const ACH_MAGIC_CODES = ['01', '02', '03', '04', '07', '08', '09', '10', '16', '20', '29'];

function achFate(accountNumber: string): LineFate | undefined {
  const magic = /^00098000(\d\d)$/.exec(accountNumber)?.[1];
  const code =
    ownEntry(ACH_ACCOUNTS, accountNumber) ??
    (magic && ACH_MAGIC_CODES.includes(magic) ? `R${magic}` : undefined);
  if (!code) return undefined;
  return LATE_ACH.has(code) ? { code, days: 30, calendar: true } : { code, days: 2 };
}

const SEPA_IBANS: Readonly<Record<string, LineFate>> = {
  AT861904300235473202: { code: 'MS03', days: 2 },
  AT051904300235473205: { code: 'MS03', days: 5 },
  AT591904300235473203: { code: 'MD06', days: 3, calendar: true },
  AT981904300002222227: { code: 'AM04', days: 2 },
  DE57370400440000000101: { code: 'AC01', days: 1 },
  DE73370400440000000104: { code: 'AC04', days: 1 },
  DE19370400440000000106: { code: 'AC06', days: 1 },
  DE24370400440000000404: { code: 'AM04', days: 2 },
  DE40370400440000000601: { code: 'MD01', days: 1 },
  DE02370400440000000606: { code: 'MD06', days: 20, calendar: true },
  DE72370400440000000607: { code: 'MD07', days: 2 },
  DE29370400440000000702: { code: 'MS02', days: 1 },
  DE02370400440000000703: { code: 'MS03', days: 2 },
};

function fateOf(rail: Rail, line: BatchLineToSubmit): LineFate | undefined {
  if (rail === 'sepa') return ownEntry(SEPA_IBANS, line.iban ?? '');
  return rail === 'ach' ? achFate(line.accountNumber ?? '') : debitOrderFate(line.accountNumber ?? '');
}

function reportsOf(batch: BatchToSubmit): BatchLineReport[] {
  const reports: BatchLineReport[] = [];
  for (const line of batch.lines) {
    const fate = fateOf(batch.rail, line);
    if (!fate) continue;
    const reportedOn: PlainDate = fate.calendar
      ? addDays(batch.actionDate, fate.days)
      : addBusinessDays(batch.actionDate, fate.days, batch.rail);
    reports.push({ lineRef: line.lineRef, outcome: 'unpaid', code: fate.code, reportedOn });
  }
  return reports;
}

/** The batch part of the test gateway's driver; `db` holds the simulated provider's record of each batch. */
export function testGatewayBatches(db: Db) {
  return {
    async submitBatch(target: GatewayTarget, batch: BatchToSubmit, at: string): Promise<BatchSubmitResult> {
      await db
        .insertInto('test_gateway_batches')
        .values({
          gateway_id: target.id,
          idempotency_key: batch.idempotencyKey,
          provider_ref: `bt_test_${crypto.randomBytes(12).toString('hex')}`,
          results: JSON.stringify(reportsOf(batch)),
          created_at: at,
          cancelled_at: null,
        })
        // The same key again (a build cut short after the call): the first acceptance stands.
        .onConflict((oc) => oc.columns(['gateway_id', 'idempotency_key']).doNothing())
        .execute();
      const stored = await db
        .selectFrom('test_gateway_batches')
        .select('provider_ref')
        .where('gateway_id', '=', target.id)
        .where('idempotency_key', '=', batch.idempotencyKey)
        .executeTakeFirstOrThrow();
      return { outcome: 'accepted', providerRef: stored.provider_ref };
    },

    async cancelBatch(target: GatewayTarget, providerRef: string, at: string) {
      await db
        .updateTable('test_gateway_batches')
        .set({ cancelled_at: at })
        .where('gateway_id', '=', target.id)
        .where('provider_ref', '=', providerRef)
        .where('cancelled_at', 'is', null)
        .execute();
      return { outcome: 'cancelled' as const };
    },

    async batchReports(
      target: GatewayTarget,
      providerRef: string,
      asOf: PlainDate,
    ): Promise<BatchLineReport[]> {
      const stored = await db
        .selectFrom('test_gateway_batches')
        .select(['results', 'cancelled_at'])
        .where('gateway_id', '=', target.id)
        .where('provider_ref', '=', providerRef)
        .executeTakeFirst();
      const reports = stored && !stored.cancelled_at ? (JSON.parse(stored.results) as BatchLineReport[]) : [];
      return reports.filter((report) => report.reportedOn <= asOf);
    },
  };
}
