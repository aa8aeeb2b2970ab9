import { PRICE_DECIMALS } from '../../core/money.ts';
import { requiredText } from '../../core/text.ts';
import { decimalPlaces, readWireDecimal } from '../../core/wireDecimal.ts';
import type { ServiceContext } from '../../context.ts';
import { ValidationError } from '../../errors.ts';
import type { FieldProblem } from '../../errors.ts';
import { assertCurrencyEnabled } from './currency.service.ts';
import type { NewRate, NewRateTerm } from './package.ts';

/** Samples show days and months; no other period is known (TrialPeriodType, ChargeTermType). */
export const PERIOD_TYPES = ['days', 'months'] as const;
export type PeriodType = (typeof PERIOD_TYPES)[number];

/** Amounts arrive as JSON numbers and are checked exactly (see `exactAmount`). */
export interface RateTermInput {
  chargePrice: number;
  chargeTerm: number;
  chargeTermType: string;
}

export interface RateInput {
  currencyCode: string;
  setupFee: number;
  trialFee: number;
  trialPeriod: number;
  trialPeriodType: string;
  /** null or left out: the account's isTaxInclusive. */
  isTaxInclusive?: boolean | null;
  terms: RateTermInput[];
}

export interface VersionInput {
  versionName: string;
  isActive: boolean;
  isDefault: boolean;
  rates: RateInput[];
}

/** A version's fields and rates as they will be stored. */
export interface CheckedVersion {
  versionName: string;
  isActive: boolean;
  isDefault: boolean;
  rates: { rate: NewRate; terms: NewRateTerm[] }[];
}

/**
 * An amount as an exact decimal string (the core's wire-decimal reader). A value with more than PRICE_DECIMALS
 * decimals is refused, never rounded: a price is what it says.
 */
function exactAmount(value: number, field: string, problems: FieldProblem[]): string {
  const read = readWireDecimal(value);
  if ('problem' in read) {
    problems.push({ field, message: 'must be a finite number' });
    return String(value);
  }
  const amount = read.value;
  if (amount.lt(0)) problems.push({ field, message: 'must not be negative' });
  else if (decimalPlaces(amount) > PRICE_DECIMALS) {
    problems.push({ field, message: `must have at most ${PRICE_DECIMALS} decimals` });
  }
  return amount.toFixed();
}

/** Case-insensitive in, lower case out. */
function periodType(value: string, field: string, problems: FieldProblem[]): string {
  const type = value.trim().toLowerCase();
  if (!(PERIOD_TYPES as readonly string[]).includes(type)) {
    problems.push({ field, message: `must be one of ${PERIOD_TYPES.join(', ')}` });
  }
  return type;
}

function checkedTerms(input: RateTermInput[], at: string, problems: FieldProblem[]): NewRateTerm[] {
  const terms = input.map((term, j) => ({
    chargePrice: exactAmount(term.chargePrice, `${at}.PackageRateTerms[${j}].ChargePrice`, problems),
    chargeTerm: term.chargeTerm,
    chargeTermType: periodType(term.chargeTermType, `${at}.PackageRateTerms[${j}].ChargeTermType`, problems),
  }));
  // Our rule: a subscription picks one term of a rate, so two terms of the same length would be ambiguous.
  terms.forEach((term, j) => {
    const first = terms.findIndex(
      (other) => other.chargeTerm === term.chargeTerm && other.chargeTermType === term.chargeTermType,
    );
    if (first < j) {
      problems.push({
        field: `${at}.PackageRateTerms[${j}].ChargeTerm`,
        message: `repeats the term of PackageRateTerms[${first}] (${term.chargeTerm} ${term.chargeTermType})`,
      });
    }
  });
  return terms;
}

/**
 * Checks a version's fields and rates; `prefix` is where the version sits in the request (`PackageVersion.`
 * inside a package, nothing on the versions' own paths), so that every problem names the field as sent.
 */
export async function checkedVersion(
  ctx: ServiceContext,
  input: VersionInput,
  prefix: string,
): Promise<CheckedVersion> {
  const problems: FieldProblem[] = [];
  const versionName = requiredText(input.versionName, `${prefix}VersionName`, problems);
  const rates = input.rates.map((rate, i) => {
    const at = `${prefix}packageVersionRates[${i}]`;
    const terms = checkedTerms(rate.terms, at, problems);
    return {
      rate: {
        currencyCode: rate.currencyCode.trim().toUpperCase(),
        setupFee: exactAmount(rate.setupFee, `${at}.SetupFee`, problems),
        trialFee: exactAmount(rate.trialFee, `${at}.TrialFee`, problems),
        trialPeriod: rate.trialPeriod,
        trialPeriodType: periodType(rate.trialPeriodType, `${at}.TrialPeriodType`, problems),
        isTaxInclusive: rate.isTaxInclusive ?? null,
      },
      terms,
    };
  });
  // Our rule: one rate per currency per version (a customer is billed in one currency, so it picks one rate).
  rates.forEach(({ rate }, i) => {
    const first = rates.findIndex((other) => other.rate.currencyCode === rate.currencyCode);
    if (first < i) {
      problems.push({
        field: `${prefix}packageVersionRates[${i}].CurrencyCode`,
        message: `${rate.currencyCode} has a rate already in this version (packageVersionRates[${first}])`,
      });
    }
  });
  for (const [i, { rate }] of rates.entries()) {
    try {
      rate.currencyCode = await assertCurrencyEnabled(
        ctx,
        rate.currencyCode,
        `${prefix}packageVersionRates[${i}].CurrencyCode`,
      );
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      problems.push(...error.fields);
    }
  }
  if (problems.length) throw new ValidationError(problems);
  return { versionName, isActive: input.isActive, isDefault: input.isDefault, rates };
}
