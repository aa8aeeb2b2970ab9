import fs from 'node:fs';
import { InvalidArgumentError } from 'commander';
import type { Command } from 'commander';
import { minorToDecimalText } from './core/money.ts';
import { findCountry, findCountryByCode } from './core/countries.ts';
import { ValidationError } from './errors.ts';
import { LOGO_MAX_BYTES } from './modules/auth/index.ts';
import type { SellerDetails, SellerDetailsInput } from './modules/auth/index.ts';
import type { Account, PortalSelfService } from './context.ts';

/**
 * The seller-details text options of `billing account set` (each takes "" to clear the setting): the flags, the
 * name commander gives the option's value, and the setting it changes.
 */
const TEXT_OPTIONS = [
  ['--legal-name <name>', 'legalName', 'legalName', 'registered legal name printed on invoices'],
  ['--address-line1 <text>', 'addressLine1', 'address1', 'street address'],
  ['--address-line2 <text>', 'addressLine2', 'address2', 'further address line'],
  ['--city <city>', 'city', 'city', 'city or town'],
  ['--postal-code <code>', 'postalCode', 'postalCode', 'postal code'],
  ['--tax-number <number>', 'taxNumber', 'taxNumber', 'tax (VAT, GST) registration number'],
  ['--company-number <number>', 'companyNumber', 'companyNumber', 'company registration number'],
  ['--contact-email <address>', 'contactEmail', 'email', 'contact e-mail address printed on invoices'],
  ['--contact-phone <number>', 'contactPhone', 'phone', 'contact telephone number printed on invoices'],
  ['--sender-name <name>', 'senderName', 'senderName', "the name the account's e-mails come from"],
  ['--reply-to <address>', 'replyTo', 'replyTo', "where answers to the account's e-mails go (Reply-To)"],
  [
    '--payment-instructions <text>',
    'paymentInstructions',
    'paymentInstructions',
    'how to pay (bank details); "\\n" starts a new line',
  ],
] as const;

export type SellerOptions = { [K in (typeof TEXT_OPTIONS)[number][1]]?: string } & {
  country?: string;
  logo?: string;
};

export function addSellerOptions(command: Command): Command {
  for (const [flags, , , description] of TEXT_OPTIONS) command.option(flags, `${description} ("" clears it)`);
  command.option(
    '--country <code>',
    'country of the address: ISO 3166-1 alpha-2 (ZA) or numeric (710); "" clears it',
  );
  command.option(
    '--logo <file>',
    `PNG or JPEG logo printed on invoices, at most ${LOGO_MAX_BYTES / 1024} KB ("" removes it)`,
  );
  return command;
}

function countryIdOf(code: string): number | null {
  if (code.trim() === '') return null;
  const country = /^\d{1,3}$/.test(code.trim()) ? findCountry(Number(code)) : findCountryByCode(code.trim());
  if (!country) throw ValidationError.field('--country', `"${code}" is not an ISO 3166-1 country code`);
  return country.id;
}

function readLogo(file: string): Buffer | null {
  if (file === '') return null;
  let size: number;
  try {
    size = fs.statSync(file).size;
  } catch (error) {
    throw ValidationError.field('--logo', `cannot read ${file}: ${(error as NodeJS.ErrnoException).code}`);
  }
  // A file far beyond the limit is refused unread; the service checks the limit itself on what it is given.
  if (size > LOGO_MAX_BYTES) {
    throw ValidationError.field('--logo', `must be at most ${LOGO_MAX_BYTES} bytes (${file} has ${size})`);
  }
  return fs.readFileSync(file);
}

/**
 * `--bill-cycle-day` (docs/pricing.md, "Bill-cycle day"): "" clears it, read as 0 (NOTE: commander turns a null
 * from a parser into "").
 */
export function addBillCycleDayOption(command: Command): Command {
  return command.option(
    '--bill-cycle-day <day>',
    'day of the month (1 to 31) customers\' monthly subscriptions renew on ("" clears it)',
    (value: string): number => {
      if (value.trim() === '') return 0;
      if (!/^\d{1,2}$/.test(value.trim()) || Number(value) < 1 || Number(value) > 31) {
        throw new InvalidArgumentError('must be a day of the month from 1 to 31, or "" to clear it');
      }
      return Number(value);
    },
  );
}

/** The seller-details change the options ask for ("\n" in payment instructions becomes a line break). */
export function sellerInputFromOptions(options: SellerOptions): SellerDetailsInput {
  const input: SellerDetailsInput = {};
  for (const [, option, setting] of TEXT_OPTIONS) input[setting] = options[option];
  if (input.paymentInstructions !== undefined) {
    input.paymentInstructions = input.paymentInstructions!.replace(/\\n/g, '\n');
  }
  if (options.country !== undefined) input.countryId = countryIdOf(options.country);
  if (options.logo !== undefined) input.logo = readLogo(options.logo);
  return input;
}

/** The seller details as `account set` reports them. */
function sellerLines(seller: SellerDetails): string[] {
  const country = seller.countryId === null ? null : findCountry(seller.countryId);
  const address = [seller.address1, seller.address2, seller.city, seller.postalCode, country?.name]
    .filter(Boolean)
    .join(', ');
  return [
    `Legal name: ${seller.legalName ?? '(none)'}`,
    `Address: ${address || '(none)'}`,
    `Tax number: ${seller.taxNumber ?? '(none)'}`,
    `Company number: ${seller.companyNumber ?? '(none)'}`,
    `Contact: ${[seller.email, seller.phone].filter(Boolean).join(', ') || '(none)'}`,
    `Payment instructions: ${seller.paymentInstructions ? seller.paymentInstructions.replace(/\n/g, ' / ') : '(none)'}`,
    // Shown once set, so that the lines of accounts without them read as they did.
    ...(seller.senderName || seller.replyTo
      ? [
          `E-mails from: ${seller.senderName ?? '(the legal name, else the account name)'}` +
            (seller.replyTo ? `, Reply-To ${seller.replyTo}` : ''),
        ]
      : []),
    `Logo: ${seller.logo ? seller.logo.contentType : '(none)'}`,
  ];
}

/** The account's settings and seller details as `account set` prints them, after its change. */
export function accountSetLines(
  changed: Account,
  details: SellerDetails,
  asked: { topUps: boolean; topUpLimits: boolean; pause: boolean; taxInclusive: boolean },
): string[] {
  return [
    `Account ${changed.id} updated.`,
    `Time zone: ${changed.timeZone}`,
    `Invoices due after: ${changed.invoiceDueDays} day(s)`,
    `Invoice notes: ${changed.invoiceNotes ?? '(none)'}`,
    `Invoice terms: ${changed.invoiceTerms ?? '(none)'}`,
    `Statement period: ${changed.statementPeriod}`,
    ...portalLines(changed.portalSelfService, asked),
    // Shown when asked about or on, so that the output of the other settings reads as it did.
    ...(asked.taxInclusive || changed.isTaxInclusive
      ? [`Prices include tax: ${changed.isTaxInclusive ? 'yes' : 'no'}`]
      : []),
    ...(changed.billCycleDay === null ? [] : [`Bill-cycle day: ${changed.billCycleDay}`]),
    ...sellerLines(details),
  ];
}

/**
 * What portal customers may do, as `account set` prints it; credit purchases only when asked about or off, and
 * pausing only when asked about or on, so that the output of the other settings reads as it did.
 */
function portalLines(
  portal: PortalSelfService,
  asked: { topUps: boolean; topUpLimits: boolean; pause: boolean },
): string[] {
  const limits = portal.topUpLimits.map(
    (limit) =>
      `${limit.currencyCode} ${minorToDecimalText(limit.minMinor, limit.currencyCode)}` +
      `–${minorToDecimalText(limit.maxMinor, limit.currencyCode)}`,
  );
  return [
    `Portal cancellations: ${portal.allowCancel ? 'allowed' : 'not allowed'}`,
    `Portal package switches: ${portal.switchPackageIds.join(', ') || '(none)'}`,
    ...(asked.topUps || !portal.allowTopUps
      ? [`Portal credit purchases: ${portal.allowTopUps ? 'allowed' : 'not allowed'}`]
      : []),
    ...(asked.topUpLimits || limits.length > 0
      ? [`Portal credit purchase limits: ${limits.join(', ') || '(the defaults)'}`]
      : []),
    ...(asked.pause || portal.pause.allowed
      ? [
          `Portal pauses: ${portal.pause.allowed ? 'allowed' : 'not allowed'}, at most ` +
            `${portal.pause.maxDays} day(s) long, ${portal.pause.maxPerYear} in 365 days`,
        ]
      : []),
  ];
}
