import { groupBy } from '../../core/collections.ts';
import { PRICE_DECIMALS } from '../../core/money.ts';
import Big from 'big.js';
import { inTransaction } from '../../context.ts';
import type { ServiceContext } from '../../context.ts';
import { ConflictError, NotFoundError, ValidationError } from '../../errors.ts';
import type { FieldProblem } from '../../errors.ts';
import type { Page } from '../../core/paging.ts';
import { optionalText, requiredText } from '../../core/text.ts';
import type { Db } from '../../storage/database.ts';
import { isUniqueViolation } from '../../storage/database.ts';
import { assertCurrencyEnabled } from './currency.service.ts';
import { assertPackageGroupExists } from './packageGroup.service.ts';
import * as repo from './package.repository.ts';
import {
  countLiveSubscriptionsByPackageVersion,
  countSubscriptionsByPackageVersion,
} from '../subscriptions/index.ts';
import type {
  NewRateRow,
  NewTermRow,
  PackageRow,
  RateRow,
  TermRow,
  VersionRow,
  VersionScope,
} from './package.repository.ts';

/** Samples show days and months; no other period is known (TrialPeriodType, ChargeTermType). */
export const PERIOD_TYPES = ['days', 'months'] as const;
export type PeriodType = (typeof PERIOD_TYPES)[number];

/** Fees and prices are exact decimals with at most this many decimals (the precision of unit prices). */

export interface RateTerm {
  id: number;
  rateId: number;
  /** Exact decimal string. */
  chargePrice: string;
  chargeTerm: number;
  chargeTermType: string;
}

export interface VersionRate {
  id: number;
  packageId: number;
  currencyCode: string;
  /** Exact decimal strings. */
  setupFee: string;
  trialFee: string;
  trialPeriod: number;
  trialPeriodType: string;
  terms: RateTerm[];
}

export interface PackageVersion {
  id: number;
  packageId: number;
  versionNo: number;
  versionName: string;
  isDefault: boolean;
  isActive: boolean;
  subscriptionCount: number;
  rates: VersionRate[];
}

export interface Package {
  id: number;
  packageGroupId: number;
  packageCode: string;
  name: string;
  descrip: string | null;
  isActive: boolean;
  versions: PackageVersion[];
}

/** Amounts arrive as JSON numbers and are checked exactly (see `exactAmount`). */
export interface RateTermInput {
  chargePrice: number;
  chargeTerm: number;
  chargeTermType: string;
}

export interface RateInput {
  currencyCode: string;
  setupFee: number;
  trialFee: number;
  trialPeriod: number;
  trialPeriodType: string;
  terms: RateTermInput[];
}

export interface VersionInput {
  versionName: string;
  isActive: boolean;
  isDefault: boolean;
  rates: RateInput[];
}

export interface PackageInput {
  packageGroupId: number;
  packageCode: string;
  name: string;
  /** Undefined keeps the description on edit (none on create); null or blank clears it. */
  descrip?: string | null;
  isActive: boolean;
}

// Reading: every level is loaded with one statement for the whole page, then assembled here.

/**
 * Subscriptions on each version, future and active included (spec: SubscriptionCount): those not cancelled or
 * expired today.
 */
function subscriptionCounts(ctx: ServiceContext, versionIds: number[]): Promise<Map<number, number>> {
  return countLiveSubscriptionsByPackageVersion(ctx, versionIds);
}

/**
 * Every subscription on the versions, ended ones included: they still refer to the version (its id, its rate
 * term), so it can be neither deleted nor re-priced while any exists.
 */
async function subscriptionsReferring(ctx: ServiceContext, versionIds: number[]): Promise<number> {
  const counts = await countSubscriptionsByPackageVersion(ctx, versionIds);
  return [...counts.values()].reduce((sum, n) => sum + n, 0);
}

/** Whether the checked rates are the version's stored rates and terms, decimals compared by value. */
function samePrices(stored: RateRow[], storedTerms: TermRow[], rates: CheckedVersion['rates']): boolean {
  const termKey = (price: string, count: number, type: string) =>
    `${new Big(price).toFixed()}/${count}/${type}`;
  const rateKey = (
    code: string,
    setup: string,
    trial: string,
    period: number,
    type: string,
    terms: string[],
  ) => [code, new Big(setup).toFixed(), new Big(trial).toFixed(), period, type, ...terms.sort()].join('|');
  const before = stored
    .map((r) =>
      rateKey(
        r.currency_code,
        r.setup_fee,
        r.trial_fee,
        r.trial_period,
        r.trial_period_type,
        storedTerms
          .filter((t) => t.package_rate_id === r.id)
          .map((t) => termKey(t.charge_price, t.charge_term, t.charge_term_type)),
      ),
    )
    .sort();
  const after = rates
    .map(({ rate, terms }) =>
      rateKey(
        rate.currency_code,
        rate.setup_fee,
        rate.trial_fee,
        rate.trial_period,
        rate.trial_period_type,
        terms.map((t) => termKey(t.charge_price, t.charge_term, t.charge_term_type)),
      ),
    )
    .sort();
  return before.length === after.length && before.every((key, i) => key === after[i]);
}

function termFromRow(row: TermRow): RateTerm {
  return {
    id: row.id,
    rateId: row.package_rate_id,
    chargePrice: row.charge_price,
    chargeTerm: row.charge_term,
    chargeTermType: row.charge_term_type,
  };
}

async function assembleVersions(
  ctx: ServiceContext,
  versionRows: VersionRow[],
  scope: VersionScope,
): Promise<PackageVersion[]> {
  if (versionRows.length === 0) return [];
  const rateRows: RateRow[] = await repo.listRates(ctx.db, ctx.account.id, scope);
  const termRows = await repo.listTerms(ctx.db, ctx.account.id, scope);
  const counts = await subscriptionCounts(
    ctx,
    versionRows.map((v) => v.id),
  );
  const termsByRate = groupBy(termRows, (t) => t.package_rate_id);
  const ratesByVersion = groupBy(rateRows, (r) => r.package_version_id);
  return versionRows.map((v) => ({
    id: v.id,
    packageId: v.package_id,
    versionNo: v.version_no,
    versionName: v.version_name,
    isDefault: Boolean(v.is_default),
    isActive: Boolean(v.is_active),
    subscriptionCount: counts.get(v.id) ?? 0,
    rates: (ratesByVersion.get(v.id) ?? []).map((r) => ({
      id: r.id,
      packageId: r.package_id,
      currencyCode: r.currency_code,
      setupFee: r.setup_fee,
      trialFee: r.trial_fee,
      trialPeriod: r.trial_period,
      trialPeriodType: r.trial_period_type,
      terms: (termsByRate.get(r.id) ?? []).map(termFromRow),
    })),
  }));
}

/** Packages with all their versions, rates and terms: four statements whatever their number. */
async function assemblePackages(ctx: ServiceContext, rows: PackageRow[]): Promise<Package[]> {
  const packageIds = rows.map((row) => row.id);
  const versionRows = await repo.listVersionsOfPackages(ctx.db, ctx.account.id, packageIds);
  const versions = groupBy(await assembleVersions(ctx, versionRows, { packageIds }), (v) => v.packageId);
  return rows.map((row) => ({
    id: row.id,
    packageGroupId: row.package_group_id,
    packageCode: row.package_code,
    name: row.name,
    descrip: row.descrip,
    isActive: Boolean(row.is_active),
    versions: versions.get(row.id) ?? [],
  }));
}

export async function getPackage(ctx: ServiceContext, packageId: number): Promise<Package> {
  const row = await repo.findPackage(ctx.db, ctx.account.id, packageId);
  if (!row) throw new NotFoundError('Package', packageId);
  return (await assemblePackages(ctx, [row]))[0]!;
}

export async function listPackages(ctx: ServiceContext, page: Page): Promise<Package[]> {
  return assemblePackages(ctx, await repo.listPackages(ctx.db, ctx.account.id, page));
}

async function findPackageOrThrow(db: Db, ctx: ServiceContext, packageId: number): Promise<PackageRow> {
  const row = await repo.findPackage(db, ctx.account.id, packageId);
  if (!row) throw new NotFoundError('Package', packageId);
  return row;
}

async function findVersionOrThrow(
  db: Db,
  ctx: ServiceContext,
  packageId: number,
  versionNo: number,
): Promise<VersionRow> {
  const row = await repo.findVersionByNo(db, ctx.account.id, packageId, versionNo);
  if (!row) throw new NotFoundError('Package version', `${versionNo} of package ${packageId}`);
  return row;
}

export async function listVersions(
  ctx: ServiceContext,
  packageId: number,
  page: Page,
): Promise<PackageVersion[]> {
  await findPackageOrThrow(ctx.db, ctx, packageId);
  const rows = await repo.listVersions(ctx.db, ctx.account.id, packageId, page);
  return assembleVersions(ctx, rows, { versionIds: rows.map((v) => v.id) });
}

export async function getVersion(
  ctx: ServiceContext,
  packageId: number,
  versionNo: number,
): Promise<PackageVersion> {
  await findPackageOrThrow(ctx.db, ctx, packageId);
  const row = await findVersionOrThrow(ctx.db, ctx, packageId, versionNo);
  return (await assembleVersions(ctx, [row], { versionIds: [row.id] }))[0]!;
}

// Checking input.

/**
 * An amount as an exact decimal string. JSON numbers reach us as doubles; their shortest round-trip form
 * (`String(0.1)` is "0.1") is the number the client wrote, so big.js reads that text and nothing binary is
 * kept. A value with more than PRICE_DECIMALS decimals is refused, never rounded: a price is what it says.
 */
function exactAmount(value: number, field: string, problems: FieldProblem[]): string {
  const amount = new Big(String(value));
  if (amount.lt(0)) problems.push({ field, message: 'must not be negative' });
  else if (Math.max(0, amount.c.length - amount.e - 1) > PRICE_DECIMALS) {
    problems.push({ field, message: `must have at most ${PRICE_DECIMALS} decimals` });
  }
  return amount.toFixed();
}

/** Case-insensitive in, lower case out. */
function periodType(value: string, field: string, problems: FieldProblem[]): string {
  const type = value.trim().toLowerCase();
  if (!(PERIOD_TYPES as readonly string[]).includes(type)) {
    problems.push({ field, message: `must be one of ${PERIOD_TYPES.join(', ')}` });
  }
  return type;
}

interface CheckedVersion {
  versionName: string;
  isActive: boolean;
  isDefault: boolean;
  rates: { rate: NewRateRow; terms: NewTermRow[] }[];
}

/**
 * Checks a version's fields and rates; `prefix` is where the version sits in the request (`PackageVersion.`
 * inside a package, nothing on the versions' own paths), so that every problem names the field as sent.
 */
async function checkedVersion(
  ctx: ServiceContext,
  input: VersionInput,
  prefix: string,
): Promise<CheckedVersion> {
  const problems: FieldProblem[] = [];
  const versionName = requiredText(input.versionName, `${prefix}VersionName`, problems);
  const rates = input.rates.map((rate, i) => {
    const at = `${prefix}packageVersionRates[${i}]`;
    const terms = rate.terms.map((term, j) => ({
      charge_price: exactAmount(term.chargePrice, `${at}.PackageRateTerms[${j}].ChargePrice`, problems),
      charge_term: term.chargeTerm,
      charge_term_type: periodType(
        term.chargeTermType,
        `${at}.PackageRateTerms[${j}].ChargeTermType`,
        problems,
      ),
    }));
    // Our rule: a subscription picks one term of a rate, so two terms of the same length would be ambiguous.
    terms.forEach((term, j) => {
      const first = terms.findIndex(
        (other) => other.charge_term === term.charge_term && other.charge_term_type === term.charge_term_type,
      );
      if (first < j) {
        problems.push({
          field: `${at}.PackageRateTerms[${j}].ChargeTerm`,
          message: `repeats the term of PackageRateTerms[${first}] (${term.charge_term} ${term.charge_term_type})`,
        });
      }
    });
    return {
      rate: {
        currency_code: rate.currencyCode.trim().toUpperCase(),
        setup_fee: exactAmount(rate.setupFee, `${at}.SetupFee`, problems),
        trial_fee: exactAmount(rate.trialFee, `${at}.TrialFee`, problems),
        trial_period: rate.trialPeriod,
        trial_period_type: periodType(rate.trialPeriodType, `${at}.TrialPeriodType`, problems),
      },
      terms,
    };
  });
  // Our rule: one rate per currency per version (a customer is billed in one currency, so it picks one rate).
  rates.forEach(({ rate }, i) => {
    const first = rates.findIndex((other) => other.rate.currency_code === rate.currency_code);
    if (first < i) {
      problems.push({
        field: `${prefix}packageVersionRates[${i}].CurrencyCode`,
        message: `${rate.currency_code} has a rate already in this version (packageVersionRates[${first}])`,
      });
    }
  });
  for (const [i, { rate }] of rates.entries()) {
    try {
      rate.currency_code = await assertCurrencyEnabled(
        ctx,
        rate.currency_code,
        `${prefix}packageVersionRates[${i}].CurrencyCode`,
      );
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      problems.push(...error.fields);
    }
  }
  if (problems.length) throw new ValidationError(problems);
  return { versionName, isActive: input.isActive, isDefault: input.isDefault, rates };
}

interface CheckedPackage {
  package_group_id: number;
  package_code: string;
  name: string;
  descrip?: string | null;
  is_active: boolean;
}

async function checkedPackage(
  ctx: ServiceContext,
  input: PackageInput,
  packageId?: number,
): Promise<CheckedPackage> {
  const problems: FieldProblem[] = [];
  const changes: CheckedPackage = {
    package_group_id: input.packageGroupId,
    package_code: requiredText(input.packageCode, 'packageCode', problems),
    name: requiredText(input.name, 'Name', problems),
    is_active: input.isActive,
  };
  const descrip = optionalText(input.descrip);
  if (descrip !== undefined) changes.descrip = descrip;
  if (problems.length) throw new ValidationError(problems);
  await assertPackageGroupExists(ctx, input.packageGroupId, 'packageGroupID');
  const holder = await repo.findPackageIdByCode(ctx.db, ctx.account.id, changes.package_code);
  if (holder && holder.id !== packageId) throw codeTaken(changes.package_code);
  return changes;
}

function codeTaken(code: string): ConflictError {
  return new ConflictError('package_code_taken', `packageCode "${code}" belongs to another package`);
}

// Writing.

/**
 * Spec: the package comes with its first version, VersionNo 1, which is the default whatever isDefault says:
 * a package always has exactly one default version.
 */
export async function createPackage(
  ctx: ServiceContext,
  input: PackageInput,
  versionInput: VersionInput,
): Promise<Package> {
  const pkg = await checkedPackage(ctx, input);
  const version = await checkedVersion(ctx, versionInput, 'PackageVersion.');
  const now = ctx.clock.now().toISOString();
  let packageId: number;
  try {
    packageId = await ctx.db.transaction().execute(async (trx) => {
      const id = await repo.insertPackage(trx, {
        account_id: ctx.account.id,
        descrip: null,
        ...pkg,
        last_version_no: 1,
        created_at: now,
      });
      const versionId = await repo.insertVersion(trx, {
        account_id: ctx.account.id,
        package_id: id,
        version_no: 1,
        version_name: version.versionName,
        is_default: true,
        is_active: version.isActive,
        created_at: now,
      });
      await repo.insertRates(trx, ctx.account.id, versionId, version.rates);
      return id;
    });
  } catch (error) {
    // Another request took the code between our check and the insert.
    throw isUniqueViolation(error) ? codeTaken(pkg.package_code) : error;
  }
  return getPackage(ctx, packageId);
}

/** Spec: PUT changes packageGroupID, packageCode, Name, Descrip and isActive; versions are edited on their own. */
export async function editPackage(
  ctx: ServiceContext,
  packageId: number,
  input: PackageInput,
): Promise<void> {
  await findPackageOrThrow(ctx.db, ctx, packageId);
  const changes = await checkedPackage(ctx, input, packageId);
  try {
    if (!(await repo.updatePackage(ctx.db, ctx.account.id, packageId, changes))) {
      throw new NotFoundError('Package', packageId);
    }
  } catch (error) {
    throw isUniqueViolation(error) ? codeTaken(changes.package_code) : error;
  }
}

/** A package with subscriptions on any version cannot be deleted (409): make it inactive instead. */
export async function deletePackage(ctx: ServiceContext, packageId: number): Promise<void> {
  await ctx.db.transaction().execute(async (trx) => {
    if (!(await repo.lockPackage(trx, ctx.account.id, packageId)))
      throw new NotFoundError('Package', packageId);
    const versions = await repo.listVersions(trx, ctx.account.id, packageId);
    const subscriptions = await subscriptionsReferring(
      inTransaction(ctx, trx),
      versions.map((v) => v.id),
    );
    if (subscriptions > 0) {
      throw new ConflictError(
        'package_in_use',
        `Package ${packageId} has ${subscriptions} subscription(s); make it inactive instead`,
      );
    }
    await repo.deletePackage(trx, ctx.account.id, packageId);
  });
}

function defaultRequired(versionNo: number, what: string): ConflictError {
  return new ConflictError(
    'default_version_required',
    `Version ${versionNo} is the package's default version and cannot be ${what} while the package has ` +
      'other versions; make another version the default first',
  );
}

/**
 * Spec: the new version gets the next VersionNo (never one given before, deleted versions included). With
 * isDefault true it becomes the default and the former default stops being one.
 */
export async function createVersion(
  ctx: ServiceContext,
  packageId: number,
  input: VersionInput,
): Promise<PackageVersion> {
  await findPackageOrThrow(ctx.db, ctx, packageId);
  const version = await checkedVersion(ctx, input, '');
  const versionNo = await ctx.db.transaction().execute(async (trx) => {
    if (!(await repo.lockPackage(trx, ctx.account.id, packageId)))
      throw new NotFoundError('Package', packageId);
    const existing = await repo.listVersions(trx, ctx.account.id, packageId);
    // A package always has a version, so this is only a guard: the only version is the default.
    const isDefault = version.isDefault || existing.length === 0;
    if (isDefault && !version.isActive && existing.length > 0) throw inactiveDefault();
    // The default must be active while other versions exist, and this version will be another one.
    if (!isDefault && existing.some((v) => v.is_default && !v.is_active)) throw inactiveDefault();
    const no = await repo.takeNextVersionNo(trx, ctx.account.id, packageId);
    const versionId = await repo.insertVersion(trx, {
      account_id: ctx.account.id,
      package_id: packageId,
      version_no: no,
      version_name: version.versionName,
      is_default: isDefault,
      is_active: version.isActive,
      created_at: ctx.clock.now().toISOString(),
    });
    if (isDefault) await repo.clearDefaultVersion(trx, ctx.account.id, packageId, versionId);
    await repo.insertRates(trx, ctx.account.id, versionId, version.rates);
    return no;
  });
  return getVersion(ctx, packageId, versionNo);
}

function inactiveDefault(): ConflictError {
  return new ConflictError(
    'default_version_inactive',
    "The package's default version must be active while the package has other versions",
  );
}

/**
 * Spec: same body as add; the rates are replaced (new packageRateID and packageRateTermID). isDefault true makes
 * the version the default; the default cannot be made non-default or inactive while other versions exist.
 * Public notes: to change the price of something that has subscribers, add a version. So a version with
 * subscriptions takes its name and flags but only the prices it has (409 otherwise), which then keep their ids.
 */
export async function editVersion(
  ctx: ServiceContext,
  packageId: number,
  versionNo: number,
  input: VersionInput,
): Promise<void> {
  await findPackageOrThrow(ctx.db, ctx, packageId);
  const version = await checkedVersion(ctx, input, '');
  await ctx.db.transaction().execute(async (trx) => {
    if (!(await repo.lockPackage(trx, ctx.account.id, packageId)))
      throw new NotFoundError('Package', packageId);
    const current = await findVersionOrThrow(trx, ctx, packageId, versionNo);
    const others = (await repo.listVersions(trx, ctx.account.id, packageId)).length - 1;
    // The only version stays the default whatever isDefault says, as the first version is made.
    const isDefault = version.isDefault || others === 0;
    if (current.is_default && !isDefault) throw defaultRequired(versionNo, 'made non-default');
    if (isDefault && !version.isActive && others > 0) throw inactiveDefault();
    await repo.updateVersion(trx, ctx.account.id, current.id, {
      version_name: version.versionName,
      is_default: isDefault,
      is_active: version.isActive,
    });
    if (isDefault) await repo.clearDefaultVersion(trx, ctx.account.id, packageId, current.id);
    const subscriptions = await subscriptionsReferring(inTransaction(ctx, trx), [current.id]);
    if (subscriptions > 0) {
      const scope = { versionIds: [current.id] };
      const stored = await repo.listRates(trx, ctx.account.id, scope);
      const storedTerms = await repo.listTerms(trx, ctx.account.id, scope);
      if (!samePrices(stored, storedTerms, version.rates)) {
        throw new ConflictError(
          'version_in_use',
          `Version ${versionNo} has ${subscriptions} subscription(s); new prices need a new version`,
        );
      }
      return;
    }
    await repo.deleteRatesOfVersion(trx, ctx.account.id, current.id);
    await repo.insertRates(trx, ctx.account.id, current.id, version.rates);
  });
}

/**
 * The last version of a package cannot be deleted (as the spec says of components), nor the default while others
 * exist, nor a version with subscriptions. Its VersionNo is not given again.
 */
export async function deleteVersion(
  ctx: ServiceContext,
  packageId: number,
  versionNo: number,
): Promise<void> {
  await ctx.db.transaction().execute(async (trx) => {
    if (!(await repo.lockPackage(trx, ctx.account.id, packageId)))
      throw new NotFoundError('Package', packageId);
    const current = await findVersionOrThrow(trx, ctx, packageId, versionNo);
    const versions = await repo.listVersions(trx, ctx.account.id, packageId);
    if (versions.length === 1) {
      throw new ConflictError(
        'last_version',
        `Version ${versionNo} is the package's only version; delete the package instead`,
      );
    }
    if (current.is_default) throw defaultRequired(versionNo, 'deleted');
    const subscriptions = await subscriptionsReferring(inTransaction(ctx, trx), [current.id]);
    if (subscriptions > 0) {
      throw new ConflictError('version_in_use', `Version ${versionNo} has ${subscriptions} subscription(s)`);
    }
    await repo.deleteVersion(trx, ctx.account.id, current.id);
  });
}
