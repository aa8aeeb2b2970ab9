import Big from 'big.js';

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

/** The taxes to apply to a customer, one per setting that has a matching rule, in the settings' order. */
export function taxesFor(settings: readonly ResolvableTaxSetting[], customer: TaxedCustomer): AppliedTax[] {
  if (customer.isWaiveTaxes) return [];
  const taxes: AppliedTax[] = [];
  for (const setting of settings) {
    let best: { rule: ResolvableTaxRule; specificity: number } | undefined;
    for (const rule of setting.rules) {
      const specificity = ruleSpecificity(rule, customer);
      if (specificity !== undefined && (best === undefined || specificity > best.specificity)) {
        best = { rule, specificity };
      }
    }
    if (best) taxes.push({ name: setting.name, perc: best.rule.perc });
  }
  return taxes;
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
