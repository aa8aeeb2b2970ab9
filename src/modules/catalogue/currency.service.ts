import { nowInstant, withTransaction } from '../../context.ts';
import type { ServiceContext } from '../../context.ts';
import { ConflictError, NotFoundError, ValidationError } from '../../errors.ts';
import type { FieldProblem } from '../../errors.ts';
import { findCurrency } from '../../core/currencies.ts';
import { isForeignKeyViolation } from '../../storage/database.ts';
import type { Db } from '../../storage/database.ts';
import { emitEvent, snapshotResource } from '../events/index.ts';
import * as repo from './currency.repository.ts';

export interface EnabledCurrency {
  code: string;
  name: string;
}

function knownCode(code: string, field = 'CurrencyCode'): string {
  const currency = findCurrency(code);
  if (!currency) throw ValidationError.field(field, `"${code}" is not an ISO 4217 currency code`);
  return currency.code;
}

/** Spec: GET /v1/currencies lists the account's currencies with their full names, in the order enabled. */
export async function listCurrencies(ctx: ServiceContext): Promise<EnabledCurrency[]> {
  const codes = await repo.listEnabledCurrencies(ctx.db, ctx.account.id);
  return codes.map((code) => ({ code, name: findCurrency(code)?.name ?? code }));
}

/** Events name a currency by its code: `{type: 'currency', id: 'EUR'}`. */
export const currencyRef = (code: string) => ({ type: 'currency', id: code });

/** The account's enabled currencies among these codes, by code, as GET /v1/currencies lists them. */
export async function enabledCurrenciesByCodes(
  ctx: ServiceContext,
  codes: readonly string[],
): Promise<Map<string, EnabledCurrency>> {
  const enabled = await repo.enabledAmong(ctx.db, ctx.account.id, codes);
  return new Map(enabled.map((code) => [code, { code, name: findCurrency(code)?.name ?? code }]));
}

export async function enableCurrency(ctx: ServiceContext, code: string): Promise<void> {
  const known = knownCode(code);
  await withTransaction(ctx, async (tctx) => {
    if (!(await repo.insertEnabledCurrency(tctx.db, ctx.account.id, known, nowInstant(ctx)))) {
      throw new ConflictError('currency_enabled', `${known} is enabled already`);
    }
    await emitEvent(tctx, 'currency.added', currencyRef(known));
  });
}

/** Enables an account's first currency when the account is made. */
export async function enableAccountCurrency(
  db: Db,
  accountId: number,
  code: string,
  at: string,
): Promise<void> {
  await repo.insertEnabledCurrency(db, accountId, knownCode(code), at);
}

/** A currency code as the account keeps it, the ISO 4217 code; 422 naming CurrencyCode for any other text. */
export function currencyCodeOf(code: string): string {
  return knownCode(code);
}

/**
 * Removes an enabled currency, in the caller's transaction. A currency in use cannot be removed: the account's
 * default currency, one that customers are billed in (`uses.customers`, counted by the flow that removes it,
 * src/flows/disableCurrency.ts: customers sit above the catalogue), or one that package rates or component prices
 * are in (and, as they arrive, invoices and payments).
 */
export async function removeCurrency(
  ctx: ServiceContext,
  code: string,
  uses: { customers: number },
): Promise<void> {
  const known = knownCode(code);
  if (known === ctx.account.currencyCode) {
    throw new ConflictError('currency_in_use', `${known} is the account's default currency`);
  }
  await withTransaction(ctx, async (tctx) => {
    if (uses.customers > 0) {
      throw new ConflictError('currency_in_use', `${known} is the currency of ${uses.customers} customer(s)`);
    }
    const prices = await repo.countCatalogueUses(tctx.db, ctx.account.id, known);
    if (prices > 0) {
      throw new ConflictError(
        'currency_in_use',
        `${known} prices ${prices} package rate(s) or component version(s)`,
      );
    }
    const before = await snapshotResource(tctx, currencyRef(known));
    if (!(await repo.deleteEnabledCurrency(tctx.db, ctx.account.id, known))) {
      throw new NotFoundError('Currency', known);
    }
    await emitEvent(tctx, 'currency.removed', currencyRef(known), { before });
  }).catch((error: unknown) => {
    // The counts are for a helpful message; the foreign keys to account_currencies settle a concurrent write (and
    // roll back the caller's transaction).
    if (isForeignKeyViolation(error)) {
      throw new ConflictError('currency_in_use', `${known} came into use while it was being removed`);
    }
    throw error;
  });
}

/** Money records may use only the account's enabled currencies; `field` names the request field on refusal. */
export async function assertCurrencyEnabled(
  ctx: ServiceContext,
  code: string,
  field: string,
): Promise<string> {
  const known = knownCode(code, field);
  if (!(await repo.isCurrencyEnabled(ctx.db, ctx.account.id, known))) {
    throw ValidationError.field(
      field,
      `${known} is not enabled for this account (POST /v1/currencies enables it)`,
    );
  }
  return known;
}

/**
 * The currency problem of a body as sent (docs/spec-decisions.md, "One answer for every problem of a body"),
 * before its schema accepted it (src/http/besideSchema.ts) or beside a use case's other problems: none when
 * `CurrencyCode` is absent or not text, which the schema reports itself, or when `known` names it already.
 */
export async function currencyProblems(
  ctx: ServiceContext,
  body: unknown,
  known: readonly FieldProblem[] = [],
): Promise<FieldProblem[]> {
  const field = 'CurrencyCode';
  const code =
    typeof body === 'object' && body !== null ? (body as Record<string, unknown>)[field] : undefined;
  if (typeof code !== 'string' || code.trim() === '' || known.some((p) => p.field === field)) return [];
  try {
    await assertCurrencyEnabled(ctx, code.trim().toUpperCase(), field);
    return [];
  } catch (error) {
    if (error instanceof ValidationError) return error.fields;
    throw error;
  }
}
