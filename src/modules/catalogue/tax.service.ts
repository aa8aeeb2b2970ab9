import { inTransaction, nowInstant, readTogether, today } from '../../context.ts';
import type { ServiceContext } from '../../context.ts';
import { ConflictError, NotFoundError, ValidationError } from '../../errors.ts';
import type { FieldProblem } from '../../errors.ts';
import type { Page } from '../../core/paging.ts';
import { optionalText } from '../../core/text.ts';
import { parseTaxPerc } from '../../core/tax.ts';
import { percOn } from '../../core/taxRates.ts';
import type { TaxRateTimeline } from '../../core/taxRates.ts';
import { isUniqueViolation } from '../../storage/database.ts';
import type { Db } from '../../storage/database.ts';
import { checkCountryAndState } from './country.service.ts';
import { emitEvent, snapshotResource } from '../events/index.ts';
import * as repo from './tax.repository.ts';
import type { TaxRuleChanges, TaxRuleRate, TaxSettingRecord } from './tax.repository.ts';

export type { TaxRuleRate } from './tax.repository.ts';

/** A rule as read: its rate today, and every rate it has had or will have (docs/tax.md, "Rates that change on a date"). */
export interface TaxRule {
  id: number;
  /** The rate in force today, in the account's time zone: what `Perc` reads and what `PUT` edits. */
  perc: string;
  /** The rule's rates over time: its opening rate and its dated rates, for billing a supply by its date. */
  timeline: TaxRateTimeline;
  /** The dated rates after today, by date: they may still be withdrawn. */
  scheduledRates: TaxRuleRate[];
  countryId: number | null;
  countryStateId: number | null;
  taxNumber: string | null;
}

export interface TaxSetting {
  id: number;
  name: string;
  rules: TaxRule[];
}

export interface TaxRuleInput {
  /** Only on edit: the rule of this setting to change; absent to add a rule. */
  id?: number | null;
  perc: number;
  countryId?: number | null;
  countryStateId?: number | string | null;
  taxNumber?: string | null;
}

export interface TaxSettingInput {
  name: string;
  /** On edit, undefined keeps the rules as they are; a list replaces them (see editTaxSetting). */
  rules?: TaxRuleInput[];
}

async function withRules(ctx: ServiceContext, settings: TaxSettingRecord[]): Promise<TaxSetting[]> {
  const settingIds = settings.map((setting) => setting.id);
  const [rules, rates] = await readTogether(
    ctx,
    (c) => repo.listTaxRules(c.db, c.account.id, settingIds),
    (c) => repo.listTaxRuleRates(c.db, c.account.id, settingIds),
  );
  const day = today(ctx);
  return settings.map((setting) => ({
    id: setting.id,
    name: setting.name,
    rules: rules
      .filter((rule) => rule.taxSettingId === setting.id)
      .map(({ taxSettingId: _setting, perc: openingPerc, ...rule }) => {
        const ruleRates = rates.filter((rate) => rate.taxRuleId === rule.id);
        const timeline = { openingPerc, rates: ruleRates };
        return {
          ...rule,
          perc: percOn(timeline, day),
          timeline,
          scheduledRates: ruleRates.filter((rate) => rate.effectiveFrom > day),
        };
      }),
  }));
}

const taxSettingRef = (id: number) => ({ type: 'tax_setting', id });

/** The account's tax settings with these ids, by id, with their rules. */
export async function taxSettingsByIds(
  ctx: ServiceContext,
  settingIds: readonly number[],
): Promise<Map<number, TaxSetting>> {
  const settings = await withRules(ctx, await repo.findTaxSettings(ctx.db, ctx.account.id, settingIds));
  return new Map(settings.map((setting) => [setting.id, setting]));
}

export async function getTaxSetting(ctx: ServiceContext, settingId: number): Promise<TaxSetting> {
  const setting = await repo.findTaxSetting(ctx.db, ctx.account.id, settingId);
  if (!setting) throw new NotFoundError('Tax setting', settingId);
  return (await withRules(ctx, [setting]))[0]!;
}

/** A page of settings in creation order; without a page, all of them (for billing). */
export async function listTaxSettings(ctx: ServiceContext, page?: Page): Promise<TaxSetting[]> {
  return withRules(ctx, await repo.listTaxSettings(ctx.db, ctx.account.id, page));
}

function checkedName(name: string): string {
  const trimmed = name.trim();
  if (trimmed === '') throw ValidationError.field('Name', 'must not be blank');
  return trimmed;
}

/**
 * Names are unique per account, ignoring case: an invoice shows a tax by its name, and two settings both called
 * VAT could not be told apart there.
 */
async function assertNameFree(db: Db, accountId: number, name: string, settingId?: number): Promise<void> {
  const key = name.toLowerCase();
  const holder = (await repo.listTaxSettingNames(db, accountId)).find(
    (setting) => setting.name.toLowerCase() === key && setting.id !== settingId,
  );
  if (holder) {
    throw new ConflictError('tax_name_taken', `Name "${name}" belongs to tax setting ${holder.id}`);
  }
}

/** A concurrent request took the name between the check and the write (the unique index refused it). */
function nameConflict(error: unknown, name: string): unknown {
  return isUniqueViolation(error)
    ? new ConflictError('tax_name_taken', `Name "${name}" belongs to another tax setting`)
    : error;
}

const scopeKey = (rule: TaxRuleChanges) => `${rule.countryId ?? ''}/${rule.countryStateId ?? ''}`;

/**
 * A rule list as stored, or every problem with it, keyed `rules[i].Field`. Spec, Limits: Perc is a fraction
 * between 0 and 1. Two rules of one scope (both global, both for ZA, both for ZA-WC) are refused: which of them
 * applies would be arbitrary.
 */
function checkedRules(rules: TaxRuleInput[], problems: FieldProblem[]): TaxRuleChanges[] {
  const scopes = new Map<string, number>();
  return rules.map((rule, i) => {
    const field = (name: string) => `rules[${i}].${name}`;
    const parsed = parseTaxPerc(rule.perc);
    if ('message' in parsed) problems.push({ field: field('Perc'), message: parsed.message });
    const countryId = rule.countryId ?? null;
    const countryStateId = rule.countryStateId == null ? null : Number(rule.countryStateId);
    const placeProblems = checkCountryAndState(countryId, countryStateId, {
      country: field('countryID'),
      state: field('countryStateID'),
    });
    problems.push(...placeProblems);
    const changes: TaxRuleChanges = {
      perc: 'perc' in parsed ? parsed.perc : '0',
      countryId,
      countryStateId,
      taxNumber: optionalText(rule.taxNumber) ?? null,
    };
    const first = scopes.get(scopeKey(changes));
    if (first !== undefined && placeProblems.length === 0) {
      problems.push({
        field: field(countryStateId !== null ? 'countryStateID' : 'countryID'),
        message: `rules[${first}] has the same country and state; a setting has one rule per place`,
      });
    } else if (first === undefined) scopes.set(scopeKey(changes), i);
    return changes;
  });
}

export async function createTaxSetting(ctx: ServiceContext, input: TaxSettingInput): Promise<TaxSetting> {
  const name = checkedName(input.name);
  const problems: FieldProblem[] = [];
  // Rules are always added on create; a taxRuleID in the body is ignored, so a setting read back can be posted
  // again as a copy.
  const rules = checkedRules(input.rules ?? [], problems);
  if (problems.length) throw new ValidationError(problems);
  const settingId = await ctx.db
    .transaction()
    .execute(async (trx) => {
      await assertNameFree(trx, ctx.account.id, name);
      const id = await repo.insertTaxSetting(trx, ctx.account.id, name, nowInstant(ctx));
      await repo.insertTaxRules(trx, ctx.account.id, id, rules);
      await emitEvent(inTransaction(ctx, trx), 'tax_setting.created', taxSettingRef(id));
      return id;
    })
    .catch((error: unknown) => {
      throw nameConflict(error, name);
    });
  return getTaxSetting(ctx, settingId);
}

/**
 * Spec, Tax settings: on PUT a rule without taxRuleID is added, a rule with a taxRuleID of this setting is
 * edited, and an existing rule left out of the list is deleted. A taxRuleID that is not one of this setting's
 * rules (unknown, or another setting's) is a 422 naming it. A body without `rules` keeps the rules (renaming a
 * setting must not wipe them); `rules: []` deletes them all.
 */
export async function editTaxSetting(
  ctx: ServiceContext,
  settingId: number,
  input: TaxSettingInput,
): Promise<void> {
  const name = checkedName(input.name);
  const problems: FieldProblem[] = [];
  const rules = input.rules === undefined ? undefined : checkedRules(input.rules, problems);
  await ctx.db
    .transaction()
    .execute(async (trx) => {
      const current = await repo.lockTaxSetting(trx, ctx.account.id, settingId);
      if (!current) throw new NotFoundError('Tax setting', settingId);
      const tctx = inTransaction(ctx, trx);
      const before = await snapshotResource(tctx, taxSettingRef(settingId));
      if (rules && input.rules) await replaceRules(tctx, settingId, input.rules, rules, problems);
      if (name !== current.name) await assertNameFree(trx, ctx.account.id, name, settingId);
      if (!(await repo.updateTaxSettingName(trx, ctx.account.id, settingId, name))) {
        throw new NotFoundError('Tax setting', settingId);
      }
      await emitEvent(tctx, 'tax_setting.updated', taxSettingRef(settingId), { before });
    })
    .catch((error: unknown) => {
      throw nameConflict(error, name);
    });
}

/** The ids of the listed rules that are this setting's, each once, or a 422 naming those that are not. */
function keptRuleIds(
  settingId: number,
  existing: ReadonlySet<number>,
  input: readonly TaxRuleInput[],
  problems: FieldProblem[],
): Set<number> {
  const kept = new Set<number>();
  input.forEach((rule, i) => {
    if (rule.id == null) return;
    if (!existing.has(rule.id)) {
      problems.push({
        field: `rules[${i}].taxRuleID`,
        message: `${rule.id} is not a rule of tax setting ${settingId} (leave it out to add a rule)`,
      });
    } else if (kept.has(rule.id)) {
      problems.push({ field: `rules[${i}].taxRuleID`, message: `${rule.id} is given twice` });
    }
    kept.add(rule.id);
  });
  if (problems.length) throw new ValidationError(problems);
  return kept;
}

/**
 * The rule list of a PUT written over the setting's. An edited rule's Perc is the rate in force today, edited in
 * place as it always was (docs/tax.md, "Rates that change on a date"): the dated rate in force today when there is
 * one, else the rule's opening rate; its scheduled rates stay. A deleted rule's dated rates go with it.
 */
async function replaceRules(
  ctx: ServiceContext,
  settingId: number,
  input: readonly TaxRuleInput[],
  rules: readonly TaxRuleChanges[],
  problems: FieldProblem[],
): Promise<void> {
  const existing = await repo.listTaxRules(ctx.db, ctx.account.id, [settingId]);
  const kept = keptRuleIds(settingId, new Set(existing.map((rule) => rule.id)), input, problems);
  const deleted = existing.filter((rule) => !kept.has(rule.id)).map((rule) => rule.id);
  await repo.deleteTaxRules(ctx.db, ctx.account.id, settingId, deleted);
  const rates = await repo.listTaxRuleRates(ctx.db, ctx.account.id, [settingId]);
  const day = today(ctx);
  const added: TaxRuleChanges[] = [];
  for (const [i, rule] of rules.entries()) {
    const ruleId = input[i]!.id;
    if (ruleId == null) {
      added.push(rule);
      continue;
    }
    const inForce = rates.filter((rate) => rate.taxRuleId === ruleId && rate.effectiveFrom <= day).at(-1);
    const opening = existing.find((held) => held.id === ruleId)!.perc;
    const changes = inForce ? { ...rule, perc: opening } : rule;
    if (!(await repo.updateTaxRule(ctx.db, ctx.account.id, settingId, ruleId, changes))) {
      throw new ConflictError(
        'concurrent_change',
        `Tax rule ${ruleId} was deleted by another request; nothing was changed`,
      );
    }
    if (inForce) await repo.updateTaxRuleRatePerc(ctx.db, ctx.account.id, inForce.id, rule.perc);
  }
  await repo.insertTaxRules(ctx.db, ctx.account.id, settingId, added);
}

/**
 * Deletes a setting with its rules. Invoices keep their own copy of the taxes they were billed with (name and
 * Perc), so nothing billed changes.
 */
export async function deleteTaxSetting(ctx: ServiceContext, settingId: number): Promise<void> {
  const deleted = await ctx.db.transaction().execute(async (trx) => {
    const tctx = inTransaction(ctx, trx);
    const before = await snapshotResource(tctx, taxSettingRef(settingId));
    if (!(await repo.deleteTaxSetting(trx, ctx.account.id, settingId))) return false;
    await emitEvent(tctx, 'tax_setting.deleted', taxSettingRef(settingId), { before });
    return true;
  });
  if (!deleted) throw new NotFoundError('Tax setting', settingId);
}
