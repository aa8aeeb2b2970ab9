/**
 * A bill-cycle day as the account, a customer and a subscription accept it: a day of the month, 1 to 31 (the rule
 * that renews on it lives with subscriptions, billCycleDay.ts).
 */
export const BILL_CYCLE_DAY_MIN = 1;
export const BILL_CYCLE_DAY_MAX = 31;

export function isBillCycleDay(value: unknown): value is number {
  return (
    typeof value === 'number' &&
    Number.isInteger(value) &&
    value >= BILL_CYCLE_DAY_MIN &&
    value <= BILL_CYCLE_DAY_MAX
  );
}

/** Why a value sent as a BillCycleDay is refused (null clears one where `nullable`), or undefined when it is fine. */
export function billCycleDayProblem(value: unknown, nullable: boolean): string | undefined {
  if (isBillCycleDay(value) || (nullable && value === null)) return undefined;
  return `must be a whole number from ${BILL_CYCLE_DAY_MIN} to ${BILL_CYCLE_DAY_MAX}${nullable ? ', or null' : ''}`;
}
