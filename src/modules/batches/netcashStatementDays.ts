import { lateWindowEnd } from '../../core/bankingDays.ts';
import { addDays, minDate } from '../../core/calendar.ts';
import type { PlainDate } from '../../core/calendar.ts';

/**
 * The days whose Netcash statement may still say something about these batches (docs/gateways/netcash.md,
 * "Statements"): each batch's from its action date (the collection's entries) to the end of its late window (a
 * dispute), and never today or later: a day's statement is ready the next morning. In order. Pure.
 */
export function statementDaysOf(actionDates: readonly PlainDate[], on: PlainDate): PlainDate[] {
  const yesterday = addDays(on, -1);
  const days = new Set<PlainDate>();
  for (const actionDate of actionDates) {
    const last = minDate(yesterday, lateWindowEnd('debit_order', actionDate));
    for (let day = actionDate; day <= last; day = addDays(day, 1)) days.add(day);
  }
  return [...days].sort();
}
