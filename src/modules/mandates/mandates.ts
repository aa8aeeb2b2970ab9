import type { FieldProblem } from '../../errors.ts';

/**
 * The rules of an eMandate's debit terms (docs/design/mandates.md, "Fields"), pure: collection frequencies, the
 * collection day each allows, the maximum against the instalment, the escalation rate, the statement name.
 */

/**
 * The frequencies a mandate may have: DebiCheck's collection frequencies, weekly to yearly, and ad hoc. Spec
 * part 2, eMandates, shows Monthly, Daily, Yearly and Weekly as examples; Daily has no DebiCheck equivalent and is
 * refused (docs/spec-decisions.md, "eMandates").
 */
export const DEBIT_FREQUENCIES = [
  'Weekly',
  'Fortnightly',
  'Monthly',
  'Quarterly',
  'Biannually',
  'Yearly',
  'AdHoc',
] as const;
export type DebitFrequency = (typeof DEBIT_FREQUENCIES)[number];

/** Other spellings people write for the same frequency, lower case, without spaces, dashes or underscores. */
const FREQUENCY_ALIASES: Record<string, DebitFrequency> = {
  annually: 'Yearly',
  annual: 'Yearly',
  semiannually: 'Biannually',
  halfyearly: 'Biannually',
  biweekly: 'Fortnightly',
};

/** The frequency a wire text names (any letter case), or undefined. */
export function debitFrequencyOf(text: string): DebitFrequency | undefined {
  const key = text
    .trim()
    .toLowerCase()
    .replace(/[\s_-]/g, '');
  // An own entry only: `constructor` is no frequency (docs/spec-decisions.md, "Request bodies").
  const alias = Object.hasOwn(FREQUENCY_ALIASES, key) ? FREQUENCY_ALIASES[key] : undefined;
  return DEBIT_FREQUENCIES.find((f) => f.toLowerCase() === key) ?? alias;
}

/** docs/design/mandates.md, "Fields": the day of the month 99 means the last day of the month. */
export const LAST_DAY_OF_MONTH = 99;

/**
 * Why an action day does not fit its frequency, or undefined: weekly and fortnightly collect on a weekday (1 Monday
 * to 7 Sunday); the others on a day of the month, 1 to 31 or 99 for the last day (a month without the day collects
 * on its last day: docs/design/mandates.md, "Checks at build time").
 */
export function actionDayProblem(frequency: DebitFrequency, day: number): string | undefined {
  if (!Number.isInteger(day)) return 'must be a whole number';
  if (frequency === 'Weekly' || frequency === 'Fortnightly') {
    return day >= 1 && day <= 7 ? undefined : `must be 1 (Monday) to 7 (Sunday) for ${frequency}`;
  }
  return (day >= 1 && day <= 31) || day === LAST_DAY_OF_MONTH
    ? undefined
    : `must be 1 to 31, or 99 for the last day of the month, for ${frequency}`;
}

/**
 * docs/design/mandates.md, "Fields": the maximum is at least the instalment and at most 1.5 times it. Exact in
 * minor units: 2 × max ≤ 3 × instalment.
 */
export function maxAmountProblem(amountMinor: number, maxMinor: number): string | undefined {
  if (maxMinor < amountMinor) return 'must be at least debit_Amt';
  if (2 * maxMinor > 3 * amountMinor) return 'must be at most 1.5 times debit_Amt';
  return undefined;
}

/** DebiCheck's abbreviated short name (docs/design/mandates.md, "Fields"): at most 10 characters. */
export const NAME_ON_STATEMENT_MAX = 10;

/**
 * The escalation as an exact decimal text: a yearly rate in percent, 0 to 100 with at most 2 decimals
 * (docs/spec-decisions.md, "eMandates"). A problem when it is not one.
 */
export function escalationOf(
  value: number | string,
  field: string,
  problems: FieldProblem[],
): string | undefined {
  if (typeof value === 'number' && !Number.isFinite(value)) {
    problems.push({ field, message: 'must be a finite number' });
    return undefined;
  }
  const text = (typeof value === 'number' ? String(value) : value).trim().replace(/%$/, '');
  const match = /^(\d{1,3})(?:\.(\d{1,2}))?$/.exec(text);
  if (!match || Number(text) > 100) {
    problems.push({ field, message: 'must be a yearly rate in percent, 0 to 100 with at most 2 decimals' });
    return undefined;
  }
  const whole = String(Number(match[1]));
  const fraction = (match[2] ?? '').replace(/0+$/, '');
  return fraction ? `${whole}.${fraction}` : whole;
}

/** An account number masked but for its last four digits, as a signee and the API see it. */
export function maskedAccountNumber(lastFour: string): string {
  return `••••${lastFour}`;
}
