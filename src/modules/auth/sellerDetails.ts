import { findCountry, findCountryByCode } from '../../core/countries.ts';
import { isEmailAddress, optionalText } from '../../core/text.ts';
import type { FieldProblem } from '../../errors.ts';
import type { Db } from '../../storage/database.ts';
import { checkLogo } from './logo.ts';
import type { LogoContentType, LogoImage } from './logo.ts';
import * as repo from './account.repository.ts';
import type { SellerColumns } from './account.repository.ts';
import type { SellerChanges } from './account.ts';

/**
 * Who issues an account's invoices, as a tax invoice must name them: printed on every invoice PDF. All optional;
 * an invoice leaves out what is not given.
 */
export interface SellerDetails {
  legalName: string | null;
  address1: string | null;
  address2: string | null;
  city: string | null;
  postalCode: string | null;
  /** ISO 3166-1 numeric, as customers' countryID. */
  countryId: number | null;
  taxNumber: string | null;
  companyNumber: string | null;
  email: string | null;
  phone: string | null;
  /** Bank details and the like, several lines. */
  paymentInstructions: string | null;
  /** The name the account's e-mails come from (their From and their words); null: mailSenderName's default. */
  senderName: string | null;
  /** Where customers' answers to the account's e-mails go; null: no Reply-To. */
  replyTo: string | null;
  logo: { contentType: LogoContentType; updatedAt: string } | null;
}

/** A change: undefined keeps a value, null (or blank text) clears it. */
export interface SellerDetailsInput {
  legalName?: string | null;
  address1?: string | null;
  address2?: string | null;
  city?: string | null;
  postalCode?: string | null;
  countryId?: number | null;
  taxNumber?: string | null;
  companyNumber?: string | null;
  email?: string | null;
  phone?: string | null;
  paymentInstructions?: string | null;
  senderName?: string | null;
  replyTo?: string | null;
  /** The image's bytes (PNG or JPEG; see logo.ts). */
  logo?: Buffer | null;
}

type TextKey = Exclude<keyof SellerDetailsInput, 'countryId' | 'logo'>;

/** Each text setting: its wire name (problems are keyed by it), its column, its longest length and its shape. */
export const SELLER_TEXT_FIELDS: Record<
  TextKey,
  { field: string; column: keyof SellerChanges; max: number; multiline?: boolean; pattern?: [RegExp, string] }
> = {
  legalName: { field: 'LegalName', column: 'sellerLegalName', max: 200 },
  address1: { field: 'AddressLine1', column: 'sellerAddress1', max: 200 },
  address2: { field: 'AddressLine2', column: 'sellerAddress2', max: 200 },
  city: { field: 'City', column: 'sellerCity', max: 100 },
  postalCode: {
    field: 'PostalCode',
    column: 'sellerPostalCode',
    max: 20,
    pattern: [/^[\p{L}\p{N}][\p{L}\p{N} -]*$/u, 'may hold only letters, digits, spaces and hyphens'],
  },
  taxNumber: {
    field: 'TaxNumber',
    column: 'sellerTaxNumber',
    max: 50,
    pattern: [/^[\p{L}\p{N}][\p{L}\p{N} ./-]*$/u, 'may hold only letters, digits, spaces and . / -'],
  },
  companyNumber: {
    field: 'CompanyNumber',
    column: 'sellerCompanyNumber',
    max: 50,
    pattern: [/^[\p{L}\p{N}][\p{L}\p{N} ./-]*$/u, 'may hold only letters, digits, spaces and . / -'],
  },
  email: { field: 'ContactEmail', column: 'sellerEmail', max: 254 },
  phone: {
    field: 'ContactPhone',
    column: 'sellerPhone',
    max: 30,
    pattern: [/^\+?[0-9 ().-]*[0-9][0-9 ().-]*$/, 'may hold only digits, spaces, + ( ) . and -'],
  },
  paymentInstructions: {
    field: 'PaymentInstructions',
    column: 'paymentInstructions',
    max: 2000,
    multiline: true,
  },
  senderName: { field: 'SenderName', column: 'senderName', max: 100 },
  replyTo: { field: 'ReplyTo', column: 'replyTo', max: 254 },
};

// Control characters would print as nothing or as boxes; only multi-line settings keep line breaks and tabs.
const CONTROL = /[\p{Cc}\u2028\u2029]/u;
const hasControl = (text: string, multiline: boolean) =>
  CONTROL.test(multiline ? text.replace(/[\n\t]/g, '') : text);

/** The column changes a SellerDetailsInput asks for, and its logo (null removes it), or problems. */
export function sellerChanges(
  input: SellerDetailsInput,
  problems: FieldProblem[],
): { changes: SellerChanges; logo: LogoImage | null | undefined } {
  const changes: SellerChanges = {};
  for (const [key, rule] of Object.entries(SELLER_TEXT_FIELDS) as [
    TextKey,
    (typeof SELLER_TEXT_FIELDS)[TextKey],
  ][]) {
    const raw = input[key];
    // Multi-line text keeps its inner line breaks; the line ends are normalised to \n.
    const text =
      rule.multiline && typeof raw === 'string'
        ? optionalText(raw.replace(/\r\n?/g, '\n'))
        : optionalText(raw);
    if (text === undefined) continue;
    if (text !== null) {
      const field = rule.field;
      if ([...text].length > rule.max)
        problems.push({ field, message: `must be at most ${rule.max} characters` });
      else if (hasControl(text, rule.multiline ?? false)) {
        problems.push({ field, message: 'must not contain control characters' });
      } else if (rule.pattern && !rule.pattern[0].test(text))
        problems.push({ field, message: rule.pattern[1] });
      else if ((key === 'email' || key === 'replyTo') && !isEmailAddress(text))
        problems.push({ field, message: 'must be an e-mail address' });
    }
    changes[rule.column] = text;
  }
  if (input.countryId !== undefined) {
    const country = input.countryId === null ? null : findCountry(input.countryId);
    if (country === undefined) {
      problems.push({
        field: 'countryID',
        message: `${input.countryId} is not an ISO 3166-1 numeric country code`,
      });
    }
    changes.sellerCountryCode = country ? country.alpha2 : null;
  }
  const logo =
    input.logo === undefined || input.logo === null ? input.logo : checkLogo(input.logo, 'Logo', problems);
  return { changes, logo };
}

export function sellerDetailsFromRow(
  row: SellerColumns,
  logo: { content_type: string; updated_at: string } | undefined,
): SellerDetails {
  const country = row.seller_country_code === null ? undefined : findCountryByCode(row.seller_country_code);
  return {
    legalName: row.seller_legal_name,
    address1: row.seller_address1,
    address2: row.seller_address2,
    city: row.seller_city,
    postalCode: row.seller_postal_code,
    countryId: country?.id ?? null,
    taxNumber: row.seller_tax_number,
    companyNumber: row.seller_company_number,
    email: row.seller_email,
    phone: row.seller_phone,
    paymentInstructions: row.payment_instructions,
    senderName: row.sender_name,
    replyTo: row.reply_to,
    logo: logo ? { contentType: logo.content_type as LogoContentType, updatedAt: logo.updated_at } : null,
  };
}

/** The account's seller details (an account that does not exist has none: undefined). */
export async function findSellerDetails(db: Db, accountId: number): Promise<SellerDetails | undefined> {
  const row = await repo.findSellerColumns(db, accountId);
  return row && sellerDetailsFromRow(row, await repo.findLogoInfo(db, accountId));
}

/** The account's logo image; undefined when it has none. */
export async function findAccountLogo(db: Db, accountId: number): Promise<LogoImage | undefined> {
  const row = await repo.findLogo(db, accountId);
  return row && { contentType: row.content_type as LogoContentType, image: Buffer.from(row.image) };
}
