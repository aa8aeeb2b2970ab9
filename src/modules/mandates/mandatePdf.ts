import { documentFor } from '../../context.ts';
import type { ServiceContext } from '../../context.ts';
import { ConflictError, GoneError } from '../../errors.ts';
import { openPdf } from '../../pdf/pdfWriter.ts';
import { documentRenderer } from '../../pdf/documentPool.ts';
import { documentSeller, sellerLines, sellerName } from '../auth/index.ts';
import type { DocumentSeller } from '../auth/index.ts';
import { getEmandate } from './emandate.service.ts';
import type { Emandate } from './emandate.ts';
import { CONSENT_VERSION, documentSections } from './mandateDocument.ts';

/**
 * The signed mandate as a PDF (docs/design/mandates.md, "The signed mandate document"), in the invoices' fonts and
 * with their seller block: the beneficiary, the mandate's identity, the signee, the bank account (masked but for
 * its last four digits: the token that downloads it is a bearer capability), the debit terms, the consent the
 * signee gave, the signee's rights, and the evidence of signing with the hashes that bind it.
 */
const MARGIN = 50;
const RIGHT_EDGE = 545;
const LABEL_WIDTH = 150;
const GREY = '#555555';

const RIGHTS =
  'You may dispute a debit that does not keep to this mandate with your bank within 40 days of it. You may ' +
  'cancel this mandate by notice to the beneficiary; cancelling it does not cancel what you owe under the ' +
  'contract. Keep this copy.';

export function mandatePdfFilename(mandate: Emandate): string {
  return `emandate-${mandate.debit.contractRef.replace(/[^A-Za-z0-9._-]+/g, '-')}.pdf`;
}

/** Renders a signed mandate; the document's dates are its signing time, so the same mandate gives the same file. */
export function mandatePdf(mandate: Emandate, seller: DocumentSeller): Promise<Buffer> {
  const signing = mandate.signing;
  if (!signing) throw new Error('only a signed mandate has a signed document');
  const signedAt = new Date(signing.signedAt);
  const title = `Debit order mandate ${mandate.debit.contractRef}`;
  const { w, end } = openPdf({ title, author: sellerName(seller), createdAt: signedAt });
  const width = RIGHT_EDGE - MARGIN;

  const left = w.sellerBlock(
    { name: sellerName(seller), lines: sellerLines(seller), logo: seller.logo },
    MARGIN,
    MARGIN,
  );
  const right = { width: RIGHT_EDGE - 330, align: 'right' as const };
  let top = w.text('DEBIT ORDER MANDATE', 330, MARGIN, { ...right, size: 9, color: GREY });
  top = w.text(mandate.debit.contractRef, 330, top, { ...right, weight: 'bold', size: 16 });
  top = w.stamp('SIGNED', RIGHT_EDGE, top + 6, '#1a7f37') + 6;

  let y = Math.max(left, top) + 16;
  const ensure = (height: number) => {
    if (!w.fits(y, height)) y = w.newPage();
  };
  /** A heading never ends a page: it keeps `keep` points of what follows with it. */
  const heading = (text: string, keep = 16) => {
    ensure(24 + keep);
    y = w.text(text, MARGIN, y + 8, { width, weight: 'bold', size: 11 }) + 2;
    w.rule(y);
    y += 4;
  };
  const row = (label: string, value: string) => {
    const height = Math.max(w.height(label, LABEL_WIDTH), w.height(value, width - LABEL_WIDTH));
    ensure(height);
    w.text(label, MARGIN, y, { width: LABEL_WIDTH, color: GREY });
    w.text(value, MARGIN + LABEL_WIDTH, y, { width: width - LABEL_WIDTH });
    y += height + 2;
  };
  const paragraph = (text: string, size = 10) => {
    ensure(w.height(text, width, 'regular', size));
    y = w.text(text, MARGIN, y, { width, size }) + 2;
  };

  for (const section of documentSections(mandate)) {
    heading(section.title);
    for (const [label, value] of section.rows) row(label, value);
  }
  heading('Authority', w.height(signing.consentText, width));
  paragraph(signing.consentText);
  heading('Your rights', w.height(RIGHTS, width));
  paragraph(RIGHTS);
  heading('Evidence of signing');
  row('Signed (UTC)', signing.signedAt);
  row('Signed by', `${signing.typedName} (typed name)`);
  row(
    'How',
    `Electronically, on the beneficiary's hosted signing page (${mandate.flow === 'embedded' ? 'embedded' : 'redirect'}), ticking the consent (${CONSENT_VERSION})`,
  );
  row('Client address', signing.clientAddress);
  row('User agent', signing.userAgent || '—');
  row('Consent SHA-256', signing.consentSha256);
  row('Document SHA-256', signing.documentSha256);

  return end();
}

/** The kind of document the worker threads draw with drawMandateDocument. */
export const MANDATE_DOCUMENT = 'mandate';

/** What a signed mandate's PDF is drawn from: plain data, read on the main thread and drawn in a worker thread. */
export interface MandateDocument {
  mandate: Emandate;
  seller: DocumentSeller;
}

/** Draws a signed mandate's PDF from its model (in a worker thread: src/documentWorker.ts). */
export function drawMandateDocument(model: MandateDocument): Promise<Buffer> {
  return mandatePdf(model.mandate, model.seller);
}

/**
 * docs/spec-decisions.md, "The signed PDF": the public download link (the token alone) works for 30 days after
 * signing; the merchant's API key downloads it for good.
 */
export const PUBLIC_DOWNLOAD_DAYS = 30;

/** When the public link stops downloading the signed mandate: 30 days after DateSigned; null while unsigned. */
export function publicDownloadEnds(mandate: Emandate): string | null {
  if (!mandate.signing) return null;
  return new Date(Date.parse(mandate.signing.signedAt) + PUBLIC_DOWNLOAD_DAYS * 86_400_000).toISOString();
}

/** Whether the public link downloads the signed mandate now, on the account's clock (a test account's test clock). */
export function isPublicDownloadOpen(ctx: ServiceContext, mandate: Emandate): boolean {
  const ends = publicDownloadEnds(mandate);
  return ends !== null && ctx.clock.now().getTime() < Date.parse(ends);
}

/**
 * The signed mandate as a PDF; 409 before it is signed. By the public link (`/widget/emandate/download`, the
 * token alone), 410 from 30 days after signing; by the API (`GET /v1/emandate/download`, the merchant's key),
 * always.
 */
export async function renderMandatePdf(
  ctx: ServiceContext,
  token: string,
  via: 'link' | 'api',
): Promise<{ mandate: Emandate; pdf: Buffer }> {
  let mandate: Emandate | undefined;
  const pdf = await documentRenderer(ctx).render(documentFor(ctx), async () => {
    mandate = await signedMandate(ctx, token, via);
    const model: MandateDocument = { mandate, seller: await documentSeller(ctx) };
    return { kind: MANDATE_DOCUMENT, model };
  });
  return { mandate: mandate!, pdf };
}

/** The mandate whose signed document is asked for: 409 before it is signed, 410 by a link past its days. */
async function signedMandate(ctx: ServiceContext, token: string, via: 'link' | 'api'): Promise<Emandate> {
  const mandate = await getEmandate(ctx, token);
  if (!mandate.signing) {
    throw new ConflictError(
      'emandate_not_signed',
      'The eMandate is not signed yet: there is no signed document',
    );
  }
  if (via === 'link' && !isPublicDownloadOpen(ctx, mandate)) {
    throw new GoneError(
      'emandate_download_expired',
      `The download link works for ${PUBLIC_DOWNLOAD_DAYS} days after signing, until ${publicDownloadEnds(mandate)}; ` +
        `ask ${mandate.beneficiary.name} for a copy of the signed mandate`,
    );
  }
  return mandate;
}
