import { lastSubmitDate } from '../../core/bankingDays.ts';
import type { PlainDate } from '../../core/calendar.ts';

/**
 * When the staff are told a batch's file waits to reach Netcash (docs/gateways/netcash.md, "Without the web
 * service"): each business day from its build to its last safe day, once a day (`waiting`, then `last_day` on the
 * last safe day), and once more the first business day after it (`missed`: Netcash's cut-off has passed). Pure: the
 * caller says which day it is (a business day) and when the staff were last told.
 */
export type FileReminder = 'waiting' | 'last_day' | 'missed';

export function fileReminderDue(
  actionDate: PlainDate,
  on: PlainDate,
  remindedOn: PlainDate | null,
): FileReminder | undefined {
  const lastSafe = lastSubmitDate('debit_order', actionDate);
  if (on <= lastSafe) {
    if (remindedOn === on) return undefined;
    return on === lastSafe ? 'last_day' : 'waiting';
  }
  return remindedOn === null || remindedOn <= lastSafe ? 'missed' : undefined;
}
