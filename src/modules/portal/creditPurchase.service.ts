import crypto from 'node:crypto';
import { nowInstant } from '../../context.ts';
import type { Account, ServiceContext } from '../../context.ts';
import { minorToDecimalText, minorUnitDigits } from '../../core/money.ts';
import type { FieldProblem } from '../../errors.ts';
import { createTopUp } from '../credits/index.ts';
import { withLockedCustomer } from '../ledger/index.ts';
import * as repo from './portal.repository.ts';

/**
 * Prepaid credit bought in the portal (docs/portal.md, "Prepaid credit"): the credits module's paid top-up, made
 * once per form sent, within the account's bounds for the wallet's currency (PortalTopUpLimits), else the portal's.
 */

/** The least and the most one purchase may be without a limit of the account's, in whole units (docs/portal.md). */
export const TOP_UP_MIN_UNITS = 1;
export const TOP_UP_MAX_UNITS = 10_000;

const unitMinor = (currencyCode: string) => 10 ** minorUnitDigits(currencyCode);

/** The least and the most credit one purchase may be, in minor units of the currency. */
export function topUpBounds(account: Account, currencyCode: string): { minMinor: number; maxMinor: number } {
  const own = account.portalSelfService.topUpLimits.find((limit) => limit.currencyCode === currencyCode);
  return (
    own ?? {
      minMinor: TOP_UP_MIN_UNITS * unitMinor(currencyCode),
      maxMinor: TOP_UP_MAX_UNITS * unitMinor(currencyCode),
    }
  );
}

/**
 * A whole part grouped in thousands with one separator throughout: the comma the portal writes amounts with
 * (money.ts), or a space (a plain, no-break or narrow no-break one, as South Africa writes them). Groups after the
 * first are three digits each, and nothing is grouped after the decimal point.
 */
const GROUPED = /^\d{1,3}(?:([, \u00a0\u202f])\d{3})(?:\1\d{3})*(?:\.\d+)?$/;

/**
 * The amount a customer typed, in minor units of the wallet's currency, or why it cannot be bought, in words. A
 * plain decimal, or one whose thousands are grouped as the portal writes them (docs/portal.md, "Prepaid credit"):
 * "1,0,0" or "12,50" is refused, not read as 100.00 or 1,250.00; anything else that is not a plain decimal is too.
 */
export function topUpAmountOf(
  typed: string,
  currencyCode: string,
  bounds: { minMinor: number; maxMinor: number },
  money: (minor: number) => string,
): { minor: number } | { problem: FieldProblem } {
  const problem = (message: string) => ({ problem: { field: 'amount', message } });
  const trimmed = typed.trim();
  if (trimmed === '') return problem('Enter the amount of credit to buy');
  if (/[,\s]/.test(trimmed) && !GROUPED.test(trimmed)) {
    return problem(
      /^[\d.,\s]+$/.test(trimmed)
        ? 'Write the amount with a point for decimals and thousands in groups of three, such as 1,250.50'
        : 'Enter the amount as a number, such as 50.00',
    );
  }
  const text = trimmed.replace(/[,\s]/g, '');
  if (!/^\d{1,12}(\.\d{1,12})?$/.test(text)) return problem('Enter the amount as a number, such as 50.00');
  const digits = minorUnitDigits(currencyCode);
  const fraction = (text.split('.')[1] ?? '').replace(/0+$/, '');
  if (fraction.length > digits) {
    return problem(
      digits === 0
        ? `Enter a whole number: ${currencyCode} has no smaller unit`
        : `Enter at most ${digits} decimals: ${currencyCode} has no smaller unit`,
    );
  }
  const [whole = '0'] = text.split('.');
  const minor = Number(whole) * unitMinor(currencyCode) + Number(fraction.padEnd(digits, '0') || '0');
  if (minor < bounds.minMinor) return problem(`The least you can buy is ${money(bounds.minMinor)}`);
  if (minor > bounds.maxMinor)
    return problem(`The most you can buy at once here is ${money(bounds.maxMinor)}`);
  return { minor };
}

/**
 * The key of a credit form as sent: the session's form token, the wallet, the amount and the page's own random
 * token (payAttempt). The same form sent twice (a double click, a retry after a network error) is the same key,
 * and so the same invoice; another amount, or the form of a page shown later, is another purchase.
 */
export function topUpFormKey(
  csrfToken: string,
  walletId: number,
  amountMinor: number,
  attempt: string,
): string {
  return crypto
    .createHash('sha256')
    .update(`${csrfToken}\n${walletId}\n${amountMinor}\n${attempt}`)
    .digest('base64url');
}

/** The invoice a form with this key made already, if any. */
export const topUpOfForm = (ctx: ServiceContext, formKey: string) =>
  repo.findTopUpOfForm(ctx.db, ctx.account.id, formKey);

/**
 * Buys `amountMinor` of credit for the customer's wallet: the top-up invoice of POST /v1/wallets/{id}/top-ups,
 * made under the customer's lock unless the same form made one already, which it then answers with. The lock makes
 * two sends of one form wait for each other, so the second finds the first's row.
 */
export async function buyCredit(
  ctx: ServiceContext,
  input: {
    customerId: number;
    contactId: number;
    walletId: number;
    currencyCode: string;
    amountMinor: number;
    formKey: string;
  },
): Promise<{ invoiceId: number; made: boolean }> {
  return withLockedCustomer(ctx, input.customerId, async (tctx) => {
    const earlier = await repo.findTopUpOfForm(tctx.db, ctx.account.id, input.formKey);
    if (earlier) return { invoiceId: earlier.invoiceId, made: false };
    const topUp = await createTopUp(tctx, input.walletId, {
      amount: minorToDecimalText(input.amountMinor, input.currencyCode),
    });
    await repo.insertTopUpOfForm(
      tctx.db,
      {
        accountId: ctx.account.id,
        contactId: input.contactId,
        formKey: input.formKey,
        walletId: input.walletId,
        invoiceId: topUp.invoiceId,
      },
      nowInstant(ctx),
    );
    return { invoiceId: topUp.invoiceId, made: true };
  });
}
