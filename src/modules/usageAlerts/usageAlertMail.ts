import type { ServiceContext } from '../../context.ts';
import { addDays } from '../../core/calendar.ts';
import { groupThousands, minorToGroupedText } from '../../core/money.ts';
import { documentSeller, sellerLines, mailSenderName } from '../auth/index.ts';
import { getCustomer } from '../customers/index.ts';
import { dateForDocument } from '../invoicing/index.ts';
import { messageBody, queueMail } from '../mail/index.ts';
import type { Measure, UsageAlert, UsageAlertFiring } from './usageAlert.ts';

/** What the e-mail of a firing names besides the alert. */
export interface FiringFacts {
  alert: UsageAlert;
  firing: UsageAlertFiring;
  /** The alert's metric; null: an amount over every metered component. */
  metric: { code: string; name: string } | null;
  currencyCode: string;
}

/** "1 Mar 2026 – 31 Mar 2026": the period's first and last day (its end is the day after it). */
function periodText(firing: UsageAlertFiring): string {
  return `${dateForDocument(firing.periodStart)} – ${dateForDocument(addDays(firing.periodEnd, -1))}`;
}

function measureText(measure: Measure, currencyCode: string): string {
  return measure.kind === 'quantity'
    ? groupThousands(measure.quantity)
    : `${currencyCode} ${minorToGroupedText(measure.amountMinor, currencyCode)}`;
}

/** The sentence that says what was reached, in the customer's terms. */
function whatWasReached(facts: FiringFacts): string {
  const { alert, firing, metric, currencyCode } = facts;
  const value = measureText(firing.value, currencyCode);
  const threshold = measureText(firing.threshold, currencyCode);
  const group = alert.group === null || alert.group === '' ? '' : ` (${alert.group})`;
  if (firing.value.kind === 'quantity') {
    return `You have used ${value} ${metric?.name ?? ''}${group} so far this period, reaching your alert of ${threshold}.`;
  }
  const of = metric ? ` for ${metric.name}${group}` : '';
  return `Your usage so far this period comes to ${value}${of}, reaching your alert of ${threshold}.`;
}

/**
 * Queues the e-mail of a firing to the customer's Email (copied to its EmailCC), in the caller's transaction (the
 * firing's); the caller wakes the mail worker once it commits. False when the customer has no address.
 */
export async function queueFiringMail(ctx: ServiceContext, facts: FiringFacts): Promise<boolean> {
  const customer = await getCustomer(ctx, facts.alert.customerId);
  if (!customer.email) return false;
  const seller = await documentSeller(ctx);
  const subject = `Usage alert: ${facts.alert.name}`;
  const name = [customer.name, customer.lastName].filter(Boolean).join(' ');
  const body = messageBody({
    title: subject,
    greeting: `Hello ${name},`,
    blocks: [
      { paragraph: whatWasReached(facts) },
      {
        figures: [
          ['Period', periodText(facts.firing)],
          [
            facts.firing.value.kind === 'quantity' ? 'Used so far' : 'Amount so far',
            measureText(facts.firing.value, facts.currencyCode),
          ],
          ['Alert at', measureText(facts.firing.threshold, facts.currencyCode)],
        ],
      },
      {
        paragraph:
          'This is a notice only: usage is billed on your next invoice, and this alert tells you once a period.',
      },
    ],
    signature: [mailSenderName(seller), ...sellerLines(seller)],
  });
  await queueMail(ctx.db, ctx, ctx.account.id, {
    to: customer.email,
    cc: customer.emailCc,
    subject,
    ...body,
  });
  return true;
}
