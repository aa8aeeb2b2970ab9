import type { Rail } from '../../core/bankingDays.ts';
import type { PlainDate } from '../../core/calendar.ts';
import type { BatchState } from './batchRules.ts';

/**
 * A batch as its repository reads it (batch.mapper.ts): what the module's use cases and its run work on. Its sealed
 * bank file stays in the table (findBatchFile reads it); the record says only whether it has one. Other modules read
 * `Batch` (batch.service.ts), which adds its gateway's token and its figures.
 */
export interface BatchRecord {
  id: number;
  accountId: number;
  /** The BatchToken, a GUID. */
  token: string;
  currencyCode: string;
  gatewayId: number;
  actionDate: PlainDate;
  notes: string | null;
  state: BatchState;
  buildError: string | null;
  /** Null until the first line. */
  rail: Rail | null;
  /** Made by the run's bundling (AutoSubmitBatches applies to it), not by a person. */
  isAuto: boolean;
  /** An automatic batch of DebiCheck collections only (docs/gateways/netcash.md, "DebiCheck"). */
  isDebiCheck: boolean;
  /** The provider's reference once it took the batch, or the bank file's message id. */
  providerRef: string | null;
  hasFile: boolean;
  fileDownloadedAt: string | null;
  /**
   * Netcash's file token of the batch's file uploaded through its web service (docs/gateways/netcash.md,
   * "Uploading through NIWS_NIF"), and when its load report said the file was loaded; null otherwise.
   */
  uploadToken: string | null;
  uploadAcceptedAt: string | null;
  /** The last business date the staff were told the file waits to reach Netcash. */
  fileRemindedOn: PlainDate | null;
  reportsReadOn: PlainDate | null;
  createdAt: string;
  submittedAt: string | null;
  processedAt: string | null;
  cancelledAt: string | null;
  updatedAt: string;
}

/** A new batch: open, with no lines. */
export interface NewBatch {
  accountId: number;
  token: string;
  currencyCode: string;
  gatewayId: number;
  actionDate: PlainDate;
  notes: string | null;
  state: BatchState;
  rail?: Rail;
  isAuto?: boolean;
  /** An automatic batch of DebiCheck collections only. */
  isDebiCheck?: boolean;
  createdAt: string;
  updatedAt: string;
}

/** What a use case changes of a batch; the sealed file (`fileSealed`) is written here and read by findBatchFile only. */
export interface BatchChanges {
  currencyCode?: string;
  gatewayId?: number;
  actionDate?: PlainDate;
  notes?: string | null;
  state?: BatchState;
  buildError?: string | null;
  rail?: Rail | null;
  providerRef?: string | null;
  fileSealed?: string | null;
  fileDownloadedAt?: string | null;
  uploadToken?: string | null;
  uploadAcceptedAt?: string | null;
  fileRemindedOn?: PlainDate | null;
  reportsReadOn?: PlainDate | null;
  submittedAt?: string | null;
  processedAt?: string | null;
  cancelledAt?: string | null;
  updatedAt?: string;
}

/** A batch's count and total, read from its lines' payments (never kept beside them). */
export interface BatchFigures {
  batchId: number;
  lines: number;
  totalMinor: number;
}

/** A line as its table holds it: the payment it is, in which batch, for which invoice (bundled lines have one). */
export interface BatchLineRecord {
  paymentId: number;
  accountId: number;
  batchId: number;
  invoiceId: number | null;
  createdAt: string;
}

/** A line with what the run, the build and the file need of its payment. */
export interface BatchLine {
  paymentId: number;
  invoiceId: number | null;
  customerId: number;
  paymentMethodId: number | null;
  amountMinor: number;
  currencyCode: string;
  /** The payment's state: pending until the bank answers, then settled or failed. */
  state: string;
  failureCode: string | null;
}

/** A collection another batch made or is making from a bank account, on its batch's action date. */
export interface BatchCollection {
  paymentId: number;
  paymentMethodId: number | null;
  actionDate: PlainDate;
}

/** A SEPA collection handed to the bank, with the mandate it was under. */
export interface SepaCollection {
  paymentMethodId: number | null;
  mandateReference: string | null;
}
