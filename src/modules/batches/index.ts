/**
 * Payment batches: bank debits collected together through a gateway, or as a bank file (spec part 2, Batches;
 * docs/design/batches.md). Routes: batches.routes.ts. The engine (src/billing/billRun.ts) runs `runBatches` for each
 * account after card collection: due debit-order invoices bundled, submitted batches built, batches in flight
 * followed to processed, late returns applied.
 */
export type { Batch } from './batch.service.ts';
export { batchesByTokens } from './batch.service.ts';
/** For the CLI (`billing batch`): the batches under way, and submitting one as a person does. */
export { getBatch, listBatches } from './batch.service.ts';
export { submitBatchAsked } from './batchSubmission.service.ts';
/** The day a batch's staff are told to submit it, and how far ahead the run bundles (docs/gateways.md). */
export { bundlingHorizon, submissionNoticeDate } from './batchRules.ts';
export type { BatchRunSummary } from './batchRun.service.ts';
export { emptyBatchRunSummary, runBatches } from './batchRun.service.ts';
export { toBatchDto } from './batches.serializer.ts';
/** For `billing batch …` (src/cli/batchCommands.ts): the file, the cancel and the returns, as the API's routes. */
export { cancelBatch } from './batch.service.ts';
export { downloadBankFile } from './batchFile.service.ts';
export { uploadBatchReturns } from './batchReturns.service.ts';
/** For documents: when a pending debit is presented, its batch's action date (a late batch is re-dated). */
export { debitDatesOfPayments } from './batch.service.ts';

/** Every event type batches emit (docs/webhooks.md lists them; the catalogue walk triggers each). */
export const BATCH_EVENT_TYPES = [
  'batch.created',
  'batch.updated',
  'batch.build_failed',
  'batch.processed',
  'batch.cancelled',
  'batch.submission_due',
] as const;
export type { SepaDirectDebitBatch } from './bankFiles/sepaDirectDebit.ts';
export { buildPain008, invoicesRemittance } from './bankFiles/sepaDirectDebit.ts';
