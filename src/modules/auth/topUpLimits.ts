import type { TopUpLimit } from '../../context.ts';
import { isCurrencyCode } from '../../core/currencies.ts';
import { minorToWireNumber, wireAmountToMinor } from '../../core/money.ts';
import type { FieldProblem } from '../../errors.ts';

/**
 * PortalTopUpLimits (docs/portal.md, "Prepaid credit"): per currency, the least and the most prepaid credit a customer
 * may buy at once in the portal. A currency not listed keeps the portal's default bounds.
 */
export interface TopUpLimitInput {
  currencyCode: string;
  min: number | string;
  max: number | string;
}

export const TOP_UP_LIMITS_MAX = 50;

/** The limits as stored, in minor units; problems named by the wire's fields, PortalTopUpLimits[1].Max. */
export function topUpLimitsChange(
  input: readonly TopUpLimitInput[] | null,
  problems: FieldProblem[],
): TopUpLimit[] {
  const limits: TopUpLimit[] = [];
  for (const [i, limit] of (input ?? []).entries()) {
    const field = (name: string) => `PortalTopUpLimits[${i}].${name}`;
    const currencyCode = limit.currencyCode.trim().toUpperCase();
    if (!isCurrencyCode(currencyCode)) {
      problems.push({
        field: field('CurrencyCode'),
        message: `"${limit.currencyCode}" is not a currency code`,
      });
      continue;
    }
    if (limits.some((other) => other.currencyCode === currencyCode)) {
      problems.push({ field: field('CurrencyCode'), message: `${currencyCode} is listed twice` });
      continue;
    }
    const min = wireAmountToMinor(limit.min, currencyCode);
    const max = wireAmountToMinor(limit.max, currencyCode);
    if ('message' in min) problems.push({ field: field('Min'), message: min.message });
    if ('message' in max) problems.push({ field: field('Max'), message: max.message });
    if ('message' in min || 'message' in max) continue;
    if (max.minor < min.minor) problems.push({ field: field('Max'), message: 'must be at least Min' });
    limits.push({ currencyCode, minMinor: min.minor, maxMinor: max.minor });
  }
  return limits;
}

/** The limits on the wire: amounts as numbers in their currency. */
export function topUpLimitsOut(limits: readonly TopUpLimit[]) {
  return limits.map((limit) => ({
    CurrencyCode: limit.currencyCode,
    Min: minorToWireNumber(limit.minMinor, limit.currencyCode),
    Max: minorToWireNumber(limit.maxMinor, limit.currencyCode),
  }));
}
