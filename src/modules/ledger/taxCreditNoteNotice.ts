import type { ServiceContext } from '../../context.ts';
import { minorToDecimalText } from '../../core/money.ts';
import { documentSeller, mailSenderName } from '../auth/index.ts';
import { customersByIds, queueCustomerNotice } from '../customers/index.ts';
import { emitEvents } from '../events/index.ts';
import { dateForDocument } from '../invoicing/index.ts';
import type { MessageBlock } from '../mail/index.ts';
import { findOfSources } from './taxCreditNote.repository.ts';
import { taxCreditNotesByIds } from './taxCreditNote.service.ts';
import type { TaxCreditNote } from './taxCreditNote.service.ts';

/** The attachment kind of a tax credit note's e-mail; its renderer is taxCreditNotePdf.ts's. */
export const TAX_CREDIT_NOTE_PDF_ATTACHMENT = 'tax_credit_note_pdf';

/**
 * Tax credit notes just issued, told (docs/tax.md, "What customers are told"): `tax_credit_note.issued` for each,
 * whatever the settings, and an e-mail with its PDF to a customer whose invoices are e-mailed (autoSendInvoice and an
 * address) when the account sends credit notes (SendCreditNotes, on by default). In the issuing transaction, once the
 * document holds its lines.
 */
export async function announceTaxCreditNotes(ctx: ServiceContext, ids: readonly number[]): Promise<void> {
  if (ids.length === 0) return;
  await emitEvents(
    ctx,
    ids.map((id) => ({ type: 'tax_credit_note.issued', ref: { type: 'tax_credit_note', id } })),
  );
  if (!ctx.account.notices.creditNotes) return;
  const notes = [...(await taxCreditNotesByIds(ctx, ids)).values()];
  const seller = mailSenderName(await documentSeller(ctx));
  const customers = await customersByIds(
    ctx,
    notes.map((note) => note.customerId),
  );
  let queued = false;
  for (const note of notes) {
    const customer = customers.get(note.customerId);
    if (!customer?.autoSendInvoice || !customer.email) continue;
    queued =
      (await queueCustomerNotice(ctx, customer, {
        subject: `Credit note ${note.creditNumber} from ${seller}`,
        blocks: noticeBlocks(note),
        attachment: { kind: TAX_CREDIT_NOTE_PDF_ATTACHMENT, ref: String(note.id) },
      })) || queued;
  }
  if (queued) ctx.mailQueued();
}

function noticeBlocks(note: TaxCreditNote): MessageBlock[] {
  const money = (minor: number) => `${note.currencyCode} ${minorToDecimalText(minor, note.currencyCode)}`;
  return [
    {
      paragraph:
        `Please find attached credit note ${note.creditNumber} of ${dateForDocument(note.date)} for ` +
        `${money(note.amountMinor)}${note.reason ? `: ${note.reason}` : ''}.`,
    },
    ...(note.lines.length > 0
      ? [
          {
            figures: note.lines.map((line): [string, string] => [
              `Invoice ${line.invoiceNum ?? line.invoiceId} of ${dateForDocument(line.invoiceDate)}`,
              `${money(line.amountMinor)} credited, VAT ${money(line.taxMinor)}`,
            ]),
          },
        ]
      : []),
    ...(note.unappliedMinor > 0
      ? [
          {
            paragraph: `${money(note.unappliedMinor)} of it is credit on your account, for your next invoices.`,
          },
        ]
      : []),
  ];
}

/** announceTaxCreditNotes for the documents of these credit notes or adjustments. */
export async function announceDocumentsOf(
  ctx: ServiceContext,
  kind: 'credit_note' | 'adjustment',
  sourceIds: readonly number[],
): Promise<void> {
  const documents = await findOfSources(ctx.db, ctx.account.id, kind, sourceIds);
  await announceTaxCreditNotes(
    ctx,
    documents.map((document) => document.id),
  );
}
