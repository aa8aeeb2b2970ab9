import type { ServiceContext } from '../../context.ts';
import { findCountry } from '../../core/countries.ts';
import type { Db } from '../../storage/database.ts';
import { findAccount } from './account.repository.ts';
import { findAccountLogo, findSellerDetails } from './sellerDetails.ts';
import type { SellerDetails } from './sellerDetails.ts';
import { getSellerDetails } from './account.service.ts';
import { printableLogo } from './logo.ts';
import type { PrintableLogo } from './logo.ts';

/** The account as the documents it issues (invoices, signed eMandates) show it at their head. */
export interface DocumentSeller {
  accountName: string;
  details: SellerDetails;
  /** Decoded ahead of drawing (printableLogo), so that pdfkit never decodes an image itself. */
  logo: PrintableLogo | undefined;
}

/** The name a document gives the seller: the legal name, else the account's. */
export function sellerName(seller: Pick<DocumentSeller, 'accountName' | 'details'>): string {
  return seller.details.legalName ?? seller.accountName;
}

/**
 * The name the account's e-mails come from, in their From and in their words ("Invoice 12 from …"): SenderName,
 * else the name documents give (docs/operations.md, "E-mail").
 */
export function mailSenderName(seller: Pick<DocumentSeller, 'accountName' | 'details'>): string {
  return seller.details.senderName ?? sellerName(seller);
}

/** The context's account's mailSenderName, read without its logo. */
export async function mailSenderNameOf(ctx: ServiceContext): Promise<string> {
  return mailSenderName({ accountName: ctx.account.name, details: await getSellerDetails(ctx) });
}

/**
 * The From display name and Reply-To of the account's e-mails, for the mail worker, which sends them with no
 * request context; undefined for an account that does not exist.
 */
export async function findMailSender(
  db: Db,
  accountId: number,
): Promise<{ name: string; replyTo: string | null } | undefined> {
  const [account, details] = await Promise.all([
    findAccount(db, accountId),
    findSellerDetails(db, accountId),
  ]);
  if (!account || !details) return undefined;
  return { name: mailSenderName({ accountName: account.name, details }), replyTo: details.replyTo };
}

/** The seller's lines under its name: address, country, tax and company numbers, contact. */
export function sellerLines(seller: DocumentSeller): string[] {
  const s = seller.details;
  const country = s.countryId === null ? undefined : findCountry(s.countryId);
  return [
    s.address1,
    s.address2,
    [s.postalCode, s.city].filter(Boolean).join(' '),
    country?.name,
    s.taxNumber && `Tax number: ${s.taxNumber}`,
    s.companyNumber && `Company number: ${s.companyNumber}`,
    s.email,
    s.phone,
  ].filter((line): line is string => Boolean(line));
}

/**
 * The seller of the context's account as its documents show it. A stored logo that cannot be drawn (one an earlier
 * version accepted) is left out, and the document is drawn without it rather than not at all.
 */
export async function documentSeller(ctx: ServiceContext): Promise<DocumentSeller> {
  const stored = await findAccountLogo(ctx.db, ctx.account.id);
  const logo = stored && printableLogo(stored);
  if (typeof logo === 'string')
    ctx.log.warn({ accountId: ctx.account.id, problem: `Logo ${logo}` }, 'document drawn without its logo');
  return {
    accountName: ctx.account.name,
    details: await getSellerDetails(ctx),
    logo: typeof logo === 'string' ? undefined : logo,
  };
}
