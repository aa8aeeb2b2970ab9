import {
  NETCASH_DEFAULT_SOFTWARE_VENDOR_KEY,
  buildNetcashDebitOrderFile,
} from './bankFiles/netcashDebitOrder.ts';
import type { NetcashAccountType } from './bankFiles/netcashDebitOrder.ts';
import { buildNetcashDebiCheckFile } from './bankFiles/netcashDebiCheck.ts';
import {
  NETCASH_DEBIT_TYPES,
  NETCASH_UNPAID_TYPE,
  parseNetcashStatement,
} from './bankFiles/netcashStatement.ts';
import type { PaymentMethod } from '../paymentMethods/index.ts';
import type { BatchLine, BatchRecord } from './batch.ts';

/**
 * The NIF file of a netcash gateway's debit-order batch (docs/gateways/netcash.md, "Batches"): one T record a line,
 * under the gateway's debit-order service key. Each debtor is keyed in Netcash's masterfile by its bank account
 * (`PM` and the payment method's id); the line's payment id goes in Extra 1, which the statement reports back.
 */

/** The account type words we store (src/modules/mandates/bankAccounts.ts) as Netcash's: cheque and current are one. */
const NETCASH_ACCOUNT_TYPES: Readonly<Record<string, NetcashAccountType>> = {
  cheque: 'current',
  current: 'current',
  checking: 'current',
  savings: 'savings',
  transmission: 'transmission',
};

/** The masterfile key of a bank account: more than four characters, the same for every batch. */
export const netcashAccountReference = (methodId: number): string => `PM${String(methodId).padStart(6, '0')}`;

const text = (settings: Record<string, unknown>, key: string): string =>
  typeof settings[key] === 'string' ? (settings[key] as string) : '';

/**
 * The file, or what keeps it from being made: the builder's refusals come back as `lines[i].field` problems for
 * the caller to name by payment.
 */
export function buildNetcashBatchFile(
  batch: BatchRecord,
  batchName: string,
  lines: readonly BatchLine[],
  methods: ReadonlyMap<number, PaymentMethod>,
  settings: Record<string, unknown>,
  /** The authenticated DebiCheck mandates of the lines' bank accounts, by payment method id. */
  debiChecks: ReadonlyMap<number, DebiCheckCollection> = new Map(),
): string | { problems: string[] } {
  if (batch.currencyCode !== 'ZAR') {
    return { problems: [`Netcash collects debit orders in ZAR, not ${batch.currencyCode}`] };
  }
  if (lines.length > 0 && lines.every((line) => debiChecks.has(line.paymentMethodId!))) {
    return buildDebiCheckBatchFile(batchName, batch, lines, settings, debiChecks);
  }
  return buildNetcashDebitOrderFile({
    serviceKey: text(settings, 'serviceKey'),
    softwareVendorKey: text(settings, 'softwareVendorKey') || NETCASH_DEFAULT_SOFTWARE_VENDOR_KEY,
    instruction: 'TwoDay',
    batchName,
    actionDate: batch.actionDate,
    lines: lines.map((line) => {
      const account = methods.get(line.paymentMethodId!)!.bankAccount!;
      return {
        accountReference: netcashAccountReference(line.paymentMethodId!),
        accountName: account.accountHolder,
        bankAccountName: account.accountHolder,
        accountType: NETCASH_ACCOUNT_TYPES[account.accountType.toLowerCase()] ?? ('' as NetcashAccountType),
        branchCode: account.branchCode ?? '',
        bankAccountNumber: account.secrets?.accountNumber ?? '',
        amountMinor: line.amountMinor,
        lineRef: String(line.paymentId),
      };
    }),
  });
}

/** What a DebiCheck collection names of its mandate's authentication (docs/gateways/netcash.md, "DebiCheck"). */
export interface DebiCheckCollection {
  accountReference: string;
  contractReference: string;
  trackingDays: number;
}

/**
 * A batch of collections under authenticated DebiCheck mandates: Netcash's DebiCheck file, each line under the
 * masterfile key and contract reference its authentication was given (the build keeps DebiCheck lines out of a
 * batch of ordinary debit orders: batchMandates.service.ts).
 */
function buildDebiCheckBatchFile(
  batchName: string,
  batch: BatchRecord,
  lines: readonly BatchLine[],
  settings: Record<string, unknown>,
  debiChecks: ReadonlyMap<number, DebiCheckCollection>,
): string {
  return buildNetcashDebiCheckFile({
    serviceKey: text(settings, 'serviceKey'),
    softwareVendorKey: text(settings, 'softwareVendorKey') || NETCASH_DEFAULT_SOFTWARE_VENDOR_KEY,
    batchName,
    actionDate: batch.actionDate,
    lines: lines.map((line) => {
      const debiCheck = debiChecks.get(line.paymentMethodId!)!;
      return {
        accountReference: debiCheck.accountReference,
        amountMinor: line.amountMinor,
        trackingDays: debiCheck.trackingDays,
        contractReference: debiCheck.contractReference,
        lineRef: String(line.paymentId),
      };
    }),
  });
}

/** What a Netcash statement says of one line of the batch. */
export interface NetcashLineReport {
  lineRef: string;
  outcome: 'paid' | 'unpaid';
  code: string | null;
}

/**
 * The entries of a Netcash statement about this batch's lines (Extra 1 is the line's payment id): a debit order
 * collected (TDD, SDD) is paid, an unpaid (DRU) fails the line with its code and outweighs a collection of the
 * same line in the same statement. Every other entry (fees, balances, other batches' lines) is not about the batch.
 */
export function netcashStatementReports(
  document: string,
  lineRefs: ReadonlySet<string>,
): NetcashLineReport[] {
  const entries = parseNetcashStatement(document).filter((entry) => lineRefs.has(entry.extra1));
  const unpaid = new Set(
    entries.filter((entry) => entry.type === NETCASH_UNPAID_TYPE).map((entry) => entry.extra1),
  );
  return entries.flatMap((entry): NetcashLineReport[] => {
    if (entry.type === NETCASH_UNPAID_TYPE) {
      return [{ lineRef: entry.extra1, outcome: 'unpaid', code: entry.unpaidCode }];
    }
    const collected = (NETCASH_DEBIT_TYPES as readonly string[]).includes(entry.type);
    return collected && !unpaid.has(entry.extra1)
      ? [{ lineRef: entry.extra1, outcome: 'paid', code: null }]
      : [];
  });
}
