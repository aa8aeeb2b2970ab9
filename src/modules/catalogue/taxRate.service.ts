import { inTransaction, nowInstant, today } from '../../context.ts';
import type { ServiceContext } from '../../context.ts';
import { checkedWireDate } from '../../core/calendar.ts';
import { parseTaxPerc } from '../../core/tax.ts';
import { ConflictError, NotFoundError, ValidationError } from '../../errors.ts';
import type { FieldProblem } from '../../errors.ts';
import { isUniqueViolation } from '../../storage/database.ts';
import { emitEvent, snapshotResource } from '../events/index.ts';
import * as repo from './tax.repository.ts';
import type { TaxRuleRate } from './tax.repository.ts';

/** A rate to schedule for one of a setting's rules, as the client sent it. */
export interface ScheduledTaxRateInput {
  taxRuleId: number;
  perc: number;
  /** A wire date (docs/spec-decisions.md, "Dates"), read as a calendar date in the account's time zone. */
  effectiveFrom: string;
}

const taxSettingRef = (id: number) => ({ type: 'tax_setting', id });

function dateTaken(effectiveFrom: string): ConflictError {
  return new ConflictError(
    'tax_rate_date_taken',
    `The rule already has a rate from ${effectiveFrom}; withdraw it first to schedule another`,
  );
}

/**
 * Schedules a rule's rate from a later date (docs/tax.md, "Rates that change on a date"). The date must be after
 * today in the account's time zone: a change from today is a PUT of the setting, which edits the rate in force.
 * One rate per rule and date (a second is a 409).
 */
export async function scheduleTaxRate(
  ctx: ServiceContext,
  settingId: number,
  input: ScheduledTaxRateInput,
): Promise<TaxRuleRate> {
  const problems: FieldProblem[] = [];
  const parsed = parseTaxPerc(input.perc);
  if ('message' in parsed) problems.push({ field: 'Perc', message: parsed.message });
  const effectiveFrom = checkedWireDate(input.effectiveFrom, ctx.account.timeZone, 'EffectiveFrom', problems);
  const day = today(ctx);
  if (effectiveFrom !== undefined && effectiveFrom <= day) {
    problems.push({
      field: 'EffectiveFrom',
      message: `must be after today (${day}); PUT /v1/tax/${settingId} changes the rate in force from now`,
    });
  }
  const rateId = await ctx.db
    .transaction()
    .execute(async (trx) => {
      if (!(await repo.lockTaxSetting(trx, ctx.account.id, settingId))) {
        throw new NotFoundError('Tax setting', settingId);
      }
      const rules = await repo.listTaxRules(trx, ctx.account.id, [settingId]);
      if (!rules.some((rule) => rule.id === input.taxRuleId)) {
        problems.push({
          field: 'taxRuleID',
          message: `${input.taxRuleId} is not a rule of tax setting ${settingId}`,
        });
      }
      if (problems.length || !('perc' in parsed) || effectiveFrom === undefined) {
        throw new ValidationError(problems);
      }
      const held = await repo.listTaxRuleRates(trx, ctx.account.id, [settingId]);
      if (held.some((rate) => rate.taxRuleId === input.taxRuleId && rate.effectiveFrom === effectiveFrom)) {
        throw dateTaken(effectiveFrom);
      }
      const tctx = inTransaction(ctx, trx);
      const before = await snapshotResource(tctx, taxSettingRef(settingId));
      const rate = { taxSettingId: settingId, taxRuleId: input.taxRuleId, perc: parsed.perc, effectiveFrom };
      const id = await repo.insertTaxRuleRate(trx, ctx.account.id, rate, nowInstant(ctx));
      await emitEvent(tctx, 'tax_setting.updated', taxSettingRef(settingId), { before });
      return id;
    })
    .catch((error: unknown) => {
      // A concurrent request scheduled the same rule and date between the check and the write.
      throw isUniqueViolation(error) && effectiveFrom !== undefined ? dateTaken(effectiveFrom) : error;
    });
  return (await repo.findTaxRuleRate(ctx.db, ctx.account.id, settingId, rateId))!;
}

/**
 * Withdraws a scheduled rate before its date, as South Africa withdrew the VAT rise of 1 May 2025. A rate in force
 * today or before is refused (409): supplies have been taxed at it, and the law changes a rate only from a date,
 * which is a new rate (or a PUT for today).
 */
export async function withdrawTaxRate(ctx: ServiceContext, settingId: number, rateId: number): Promise<void> {
  await ctx.db.transaction().execute(async (trx) => {
    if (!(await repo.lockTaxSetting(trx, ctx.account.id, settingId))) {
      throw new NotFoundError('Tax setting', settingId);
    }
    const rate = await repo.findTaxRuleRate(trx, ctx.account.id, settingId, rateId);
    if (!rate) throw new NotFoundError('Tax rate', rateId);
    const day = today(ctx);
    if (rate.effectiveFrom <= day) {
      throw new ConflictError(
        'tax_rate_in_force',
        `Tax rate ${rateId} is in force since ${rate.effectiveFrom} (today is ${day}): a rate in force or past ` +
          'cannot be withdrawn; schedule a new rate, or PUT the setting to change the rate from today',
      );
    }
    const tctx = inTransaction(ctx, trx);
    const before = await snapshotResource(tctx, taxSettingRef(settingId));
    await repo.deleteTaxRuleRate(trx, ctx.account.id, settingId, rateId);
    await emitEvent(tctx, 'tax_setting.updated', taxSettingRef(settingId), { before });
  });
}
