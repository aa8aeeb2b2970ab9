import { today } from '../../context.ts';
import type { ServiceContext } from '../../context.ts';
import type { Rail } from '../../core/bankingDays.ts';
import { dateAt, startOfDate } from '../../core/calendar.ts';
import type { PlainDate } from '../../core/calendar.ts';
import { heldCollectionProblem } from '../invoicing/index.ts';
import type { DebitProblemCode } from '../invoicing/index.ts';
import { plannedActionDate } from '../mandates/index.ts';
import type { ActionDatePlan } from '../mandates/index.ts';
import { minorToDecimalText } from '../../core/money.ts';
import { queueStaffMail } from '../collections/index.ts';
import { emitEvent, snapshotResource } from '../events/index.ts';
import { getInvoice, setCollectionProblem, setCollectionSchedule } from '../invoicing/index.ts';
import { debiCheckCollectionProblem, emandatesOfPaymentMethods } from '../mandates/index.ts';

/**
 * When a debit is presented: modules/mandates/mandateChecks.ts `plannedActionDate` (docs/gateways.md, "Debit orders on the
 * mandate's day"), with its bank account's eMandate. The invoice's NextTryDate shows it from the first run after the
 * invoice is issued.
 */

export type { ActionDatePlan };

/** What a debit invoice wants: its next try, or else its due date. */
export function wantedDate(
  ctx: ServiceContext,
  invoice: { nextTryDate: string | null; dueDate: PlainDate },
): PlainDate {
  return invoice.nextTryDate ? dateAt(invoice.nextTryDate, ctx.account.timeZone) : invoice.dueDate;
}

/** The action date of the debit, or why its mandate allows none. */
export async function planActionDate(
  ctx: ServiceContext,
  invoice: { nextTryDate: string | null; dueDate: PlainDate },
  paymentMethodId: number,
  rail: Rail,
): Promise<ActionDatePlan> {
  const mandate =
    rail === 'debit_order'
      ? (await emandatesOfPaymentMethods(ctx, [paymentMethodId])).get(paymentMethodId)
      : undefined;
  return plannedActionDate(
    rail,
    wantedDate(ctx, invoice),
    today(ctx),
    mandate && {
      contractRef: mandate.debit.contractRef,
      status: mandate.status,
      terms: mandate.debit,
      // A DebiCheck mandate collects once its bank authenticated it (docs/design/mandates.md, "DebiCheck").
      ...(mandate.debiCheck && { problem: debiCheckCollectionProblem(mandate.debiCheck) }),
    },
  );
}

/** Shows the planned action date as the invoice's NextTryDate, with `invoice.updated`, when it is not shown yet. */
export async function showPlannedDate(
  ctx: ServiceContext,
  invoiceId: number,
  actionDate: PlainDate,
): Promise<void> {
  const nextTryDate = startOfDate(actionDate, ctx.account.timeZone);
  const current = await getInvoice(ctx, invoiceId);
  if (current.nextTryDate === nextTryDate) return;
  const ref = { type: 'invoice', id: invoiceId };
  const before = await snapshotResource(ctx, ref);
  await setCollectionSchedule(ctx, invoiceId, { addTry: false, nextTryDate });
  await emitEvent(ctx, 'invoice.updated', ref, { before });
}

/** A debit that cannot be made, as the staff and the invoice learn of it. */
export interface LineProblem {
  invoiceId: number;
  customerId: number;
  currencyCode: string;
  amountMinor: number;
  problem: string;
  /** What cannot be used; the mandate when left out. */
  code?: DebitProblemCode;
}

/**
 * A debit that cannot be made leaves its batch, or never joins one, with its reason (docs/gateways.md, "One
 * customer never holds up a batch"): the invoice's CollectionProblem, `invoice.collection_blocked`, and no next try
 * until someone acts. Once per problem: an invoice that shows it already is left alone. In the caller's
 * transaction; whether the invoice was marked now (the staff are to be told).
 */
export async function markLineProblem(ctx: ServiceContext, line: LineProblem): Promise<boolean> {
  const invoice = await getInvoice(ctx, line.invoiceId);
  if (invoice.collectionProblem === line.problem && invoice.nextTryDate === null) return false;
  const ref = { type: 'invoice', id: line.invoiceId };
  const before = await snapshotResource(ctx, ref);
  await setCollectionProblem(ctx, line.invoiceId, heldCollectionProblem(line.problem, line.code));
  await setCollectionSchedule(ctx, line.invoiceId, { addTry: false, nextTryDate: null });
  await emitEvent(ctx, 'invoice.collection_blocked', ref, { before });
  return true;
}

/** What the staff can do about each kind of debit that cannot be made. */
const REMEDY: Record<DebitProblemCode, string> = {
  mandate_not_usable: 'Fix the mandate or the bank account',
  bank_account_not_usable: 'Add or validate the bank account to debit',
  gateway_not_usable: 'Enable the gateway, or choose one that collects debit orders',
};

/** markLineProblem, and an e-mail to the account's staff when it marked the invoice; whether mail was queued. */
export async function reportLineProblem(ctx: ServiceContext, line: LineProblem): Promise<boolean> {
  if (!(await markLineProblem(ctx, line))) return false;
  const { invoiceNum } = await getInvoice(ctx, line.invoiceId);
  const amount = `${line.currencyCode} ${minorToDecimalText(line.amountMinor, line.currencyCode)}`;
  return queueStaffMail(ctx, {
    subject: `Debit order for invoice ${invoiceNum} cannot be collected`,
    blocks: [
      {
        paragraph: `The debit order for invoice ${invoiceNum} (customer ${line.customerId}, ${amount}) was left out of its batch: ${line.problem}.`,
      },
      {
        paragraph: `The other debit orders go ahead. ${REMEDY[line.code ?? 'mandate_not_usable']}, or collect the invoice another way; the next run collects it once it can.`,
      },
    ],
  });
}
