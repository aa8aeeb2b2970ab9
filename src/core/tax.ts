import Big from 'big.js';
import type { PlainDate } from './calendar.ts';
import { percOn, rateChangesWithin } from './taxRates.ts';
import type { TaxRateTimeline } from './taxRates.ts';

/**
 * Which taxes a customer pays, from the account's tax settings. Pure: no I/O, no clock.
 *
 * A tax setting (VAT, a state sales tax...) has rules; each rule has a fraction `perc` and a scope:
 * - a state rule (countryId and countryStateId) applies to customers in that state;
 * - a country rule (countryId, no state) applies to customers in that country;
 * - a global rule (neither) applies to every customer.
 *
 * The rule, per setting: the most specific rule matching the customer wins, state over country over global, and
 * the setting applies that rule's perc; a setting with no matching rule applies nothing. So each setting yields
 * at most one tax, and a narrower rule overrides a wider one (a state rule at 0 exempts that state from a
 * country-wide tax). A matching rule at 0 still applies: it is a zero-rated tax shown on the invoice, unlike a
 * setting that does not apply at all. A customer who waives taxes (`isWaiveTaxes`) pays none.
 *
 * Example: VAT with rules {global 0.2, ZA 0.15, ZA-WC 0.1} gives 0.1 to a customer in ZA-WC, 0.15 to one in
 * ZA-GP or in ZA without a state, and 0.2 to one in the US or with no country.
 *
 * The service refuses two rules of one scope in a setting, so at most one rule of each specificity matches;
 * should a list hold two anyway, the first in list order wins.
 */
export interface TaxRuleScope {
  countryId: number | null;
  countryStateId: number | null;
}

export interface ResolvableTaxRule extends TaxRuleScope {
  /** An exact decimal fraction, e.g. "0.15". */
  perc: string;
  /** The rule's rates over time (taxRates.ts), when it has dated rates; `perc` is the rate without a date. */
  timeline?: TaxRateTimeline;
}

export interface ResolvableTaxSetting {
  name: string;
  rules: readonly ResolvableTaxRule[];
}

export interface TaxedCustomer {
  countryId: number | null;
  countryStateId: number | null;
  isWaiveTaxes: boolean;
}

export interface AppliedTax {
  name: string;
  perc: string;
}

/** How specific a rule is for the customer: 2 state, 1 country, 0 global; undefined when it does not match. */
export function ruleSpecificity(rule: TaxRuleScope, customer: TaxRuleScope): number | undefined {
  if (rule.countryStateId !== null) {
    return rule.countryStateId === customer.countryStateId && rule.countryId === customer.countryId
      ? 2
      : undefined;
  }
  if (rule.countryId !== null) return rule.countryId === customer.countryId ? 1 : undefined;
  return 0;
}

/** The rule of each setting that applies to the customer, with its setting's name; none when taxes are waived. */
function matchingRules(
  settings: readonly ResolvableTaxSetting[],
  customer: TaxedCustomer,
): { name: string; rule: ResolvableTaxRule }[] {
  if (customer.isWaiveTaxes) return [];
  const matches: { name: string; rule: ResolvableTaxRule }[] = [];
  for (const setting of settings) {
    let best: { rule: ResolvableTaxRule; specificity: number } | undefined;
    for (const rule of setting.rules) {
      const specificity = ruleSpecificity(rule, customer);
      if (specificity !== undefined && (best === undefined || specificity > best.specificity)) {
        best = { rule, specificity };
      }
    }
    if (best) matches.push({ name: setting.name, rule: best.rule });
  }
  return matches;
}

/** The taxes to apply to a customer, one per setting that has a matching rule, in the settings' order. */
export function taxesFor(settings: readonly ResolvableTaxSetting[], customer: TaxedCustomer): AppliedTax[] {
  return matchingRules(settings, customer).map(({ name, rule }) => ({ name, perc: rule.perc }));
}

/**
 * The taxes of a supply made on `date` (docs/tax.md, "Rates that change on a date"): as taxesFor, each rule at the
 * rate in force that day.
 */
export function taxesOn(
  settings: readonly ResolvableTaxSetting[],
  customer: TaxedCustomer,
  date: PlainDate,
): AppliedTax[] {
  return matchingRules(settings, customer).map(({ name, rule }) => ({
    name,
    perc: rule.timeline ? percOn(rule.timeline, date) : rule.perc,
  }));
}

/**
 * The days strictly inside the period on which a rate the customer pays changes (taxRates.ts, rateChangesWithin):
 * where a period of service is cut into parts each taxed at its own rates (section 67A).
 */
export function rateChangesFor(
  settings: readonly ResolvableTaxSetting[],
  customer: TaxedCustomer,
  period: { start: PlainDate; end: PlainDate },
): PlainDate[] {
  const timelines = matchingRules(settings, customer).flatMap(({ rule }) =>
    rule.timeline ? [rule.timeline] : [],
  );
  return rateChangesWithin(period, timelines);
}

/** A supply of an invoice: the period [start, end) of service it bills, or null for one made on the invoice date. */
export interface SupplyPeriod {
  start: PlainDate | null;
  end: PlainDate | null;
}

/**
 * One set of taxes for an invoice whose taxes apply to all its lines (docs/tax.md, "Rates that change on a date"):
 * the taxes in force when its periods of service are supplied, when they are the same over every day of every
 * period (a period ending before a change bears the old rate even when invoiced after it, section 67A). Lines
 * without a period follow the others. When the rates differ within the invoice (a period crossing a change, or
 * periods on both sides of it), the taxes of the invoice date. Only an estimate of a whole invoice's taxes (what its
 * coupons are checked against): the invoice itself taxes each line at its own rates, a period crossing a change cut
 * into parts (src/modules/subscriptions/subscriptionTaxParts.ts).
 */
export function taxesForSupplies(
  settings: readonly ResolvableTaxSetting[],
  customer: TaxedCustomer,
  supplies: readonly SupplyPeriod[],
  invoiceDate: PlainDate,
): AppliedTax[] {
  const timelines = matchingRules(settings, customer).flatMap(({ rule }) =>
    rule.timeline ? [rule.timeline] : [],
  );
  const found = new Map<string, AppliedTax[]>();
  for (const { start, end } of supplies) {
    if (start === null) continue;
    // The rates over [start, end) change only on the dates of dated rates inside it.
    const changes = end === null ? [] : rateChangesWithin({ start, end }, timelines);
    for (const day of [start, ...changes]) {
      const taxes = taxesOn(settings, customer, day);
      found.set(JSON.stringify(taxes), taxes);
    }
  }
  return found.size === 1 ? [...found.values()][0]! : taxesOn(settings, customer, invoiceDate);
}

// NOTE: a private constructor in strict mode refuses JS numbers, so no binary float reaches the arithmetic; the
// widest exponent limits keep toString out of exponent form.
const Decimal = Big();
Decimal.strict = true;
Decimal.NE = -1e6;
Decimal.PE = 1e6;

export const PERC_DECIMALS = 6;
const ZERO = new Decimal('0');
const ONE = new Decimal('1');
const HUNDRED = new Decimal('100');

/**
 * A tax fraction as a client sends it (a JSON number), as the canonical exact decimal string to store ("0.14"),
 * or the reason it is refused. Spec, Limits: Perc is a fraction between 0 and 1. The number is read through its
 * shortest string form, which is the decimal the client wrote for any value with at most 15 significant digits,
 * so 0.14 is stored as 0.14 and not as the binary float nearest to it.
 */
export function parseTaxPerc(value: number): { perc: string } | { message: string } {
  if (!Number.isFinite(value)) return { message: 'must be a number between 0 and 1' };
  const perc = new Decimal(String(value));
  if (perc.lt(ZERO) || perc.gt(ONE)) {
    return {
      message:
        perc.gt(ONE) && perc.lte(HUNDRED)
          ? `must be a fraction between 0 and 1, not a percentage: ${value}% is ${perc.div(HUNDRED).toString()}`
          : 'must be a fraction between 0 and 1 (0.15 for 15%)',
    };
  }
  if (!perc.round(PERC_DECIMALS, Decimal.roundDown).eq(perc)) {
    return { message: `must have at most ${PERC_DECIMALS} decimals` };
  }
  return { perc: perc.toString() };
}
