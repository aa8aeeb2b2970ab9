import type { Insertable, Selectable, Updateable } from 'kysely';
import type { Rail } from '../../core/bankingDays.ts';
import type { BatchState } from './batchRules.ts';
import type {
  BatchChanges,
  BatchCollection,
  BatchFigures,
  BatchLine,
  BatchLineRecord,
  BatchRecord,
  NewBatch,
  SepaCollection,
} from './batch.ts';
import type { BatchesTable, BatchLinesTable } from './tables.ts';

/** A batch's row as the repository selects it: its sealed bank file stays in the table, only whether it has one. */
export type BatchRow = Omit<Selectable<BatchesTable>, 'file_sealed'> & { has_file: boolean | number };

/** The one mapping between a batch's row and its record (SQLite answers its booleans as 0 and 1). */
export function batchFromRow(row: BatchRow): BatchRecord {
  return {
    id: row.id,
    accountId: row.account_id,
    token: row.batch_token,
    currencyCode: row.currency_code,
    gatewayId: row.gateway_id,
    actionDate: row.action_date,
    notes: row.notes,
    state: row.state as BatchState,
    buildError: row.build_error,
    rail: row.rail as Rail | null,
    isAuto: Boolean(row.is_auto),
    isDebiCheck: Boolean(row.is_debicheck),
    providerRef: row.provider_ref,
    hasFile: Boolean(row.has_file),
    fileDownloadedAt: row.file_downloaded_at,
    uploadToken: row.upload_token,
    uploadAcceptedAt: row.upload_accepted_at,
    fileRemindedOn: row.file_reminded_on,
    reportsReadOn: row.reports_read_on,
    createdAt: row.created_at,
    submittedAt: row.submitted_at,
    processedAt: row.processed_at,
    cancelledAt: row.cancelled_at,
    updatedAt: row.updated_at,
  };
}

/** Each field a change may set and its column. */
const COLUMN_OF = {
  currencyCode: 'currency_code',
  gatewayId: 'gateway_id',
  actionDate: 'action_date',
  notes: 'notes',
  state: 'state',
  buildError: 'build_error',
  rail: 'rail',
  providerRef: 'provider_ref',
  fileSealed: 'file_sealed',
  fileDownloadedAt: 'file_downloaded_at',
  uploadToken: 'upload_token',
  uploadAcceptedAt: 'upload_accepted_at',
  fileRemindedOn: 'file_reminded_on',
  reportsReadOn: 'reports_read_on',
  submittedAt: 'submitted_at',
  processedAt: 'processed_at',
  cancelledAt: 'cancelled_at',
  updatedAt: 'updated_at',
} as const satisfies Record<keyof BatchChanges, keyof BatchesTable>;

/** The columns a change sets, in the order its fields were given (the statement's shape follows it). */
export function batchChangesToRow(
  changes: BatchChanges,
): Updateable<Omit<BatchesTable, 'id' | 'account_id' | 'batch_token' | 'created_at'>> {
  const row: Record<string, unknown> = {};
  for (const field in changes) {
    const value = changes[field as keyof BatchChanges];
    if (value !== undefined) row[COLUMN_OF[field as keyof BatchChanges]] = value;
  }
  return row;
}

export function newBatchToRow(batch: NewBatch): Insertable<BatchesTable> {
  return {
    account_id: batch.accountId,
    batch_token: batch.token,
    currency_code: batch.currencyCode,
    gateway_id: batch.gatewayId,
    action_date: batch.actionDate,
    notes: batch.notes,
    state: batch.state,
    ...(batch.rail === undefined ? {} : { rail: batch.rail }),
    ...(batch.isAuto === undefined ? {} : { is_auto: batch.isAuto }),
    ...(batch.isDebiCheck === undefined ? {} : { is_debicheck: batch.isDebiCheck }),
    created_at: batch.createdAt,
    updated_at: batch.updatedAt,
  };
}

export function batchFiguresFromRow(row: {
  batch_id: number;
  lines: number | string;
  total_minor: number | string | null;
}): BatchFigures {
  return { batchId: row.batch_id, lines: Number(row.lines), totalMinor: Number(row.total_minor) };
}

export function batchLineRecordFromRow(row: Selectable<BatchLinesTable>): BatchLineRecord {
  return {
    paymentId: row.payment_id,
    accountId: row.account_id,
    batchId: row.batch_id,
    invoiceId: row.invoice_id,
    createdAt: row.created_at,
  };
}

export function batchLineRecordToRow(line: BatchLineRecord): Insertable<BatchLinesTable> {
  return {
    payment_id: line.paymentId,
    account_id: line.accountId,
    batch_id: line.batchId,
    invoice_id: line.invoiceId,
    created_at: line.createdAt,
  };
}

/** A line joined to its payment's state (the ledger's paymentStates). */
export function batchLineFromRow(row: {
  payment_id: number;
  invoice_id: number | null;
  customer_id: number;
  payment_method_id: number | null;
  amount_minor: number;
  currency_code: string;
  state: string;
  failure_code: string | null;
}): BatchLine {
  return {
    paymentId: row.payment_id,
    invoiceId: row.invoice_id,
    customerId: row.customer_id,
    paymentMethodId: row.payment_method_id,
    amountMinor: row.amount_minor,
    currencyCode: row.currency_code,
    state: row.state,
    failureCode: row.failure_code,
  };
}

export function batchCollectionFromRow(row: {
  payment_id: number;
  payment_method_id: number | null;
  action_date: string;
}): BatchCollection {
  return { paymentId: row.payment_id, paymentMethodId: row.payment_method_id, actionDate: row.action_date };
}

export function sepaCollectionFromRow(row: {
  payment_method_id: number | null;
  mandate_reference: string | null;
}): SepaCollection {
  return { paymentMethodId: row.payment_method_id, mandateReference: row.mandate_reference };
}
