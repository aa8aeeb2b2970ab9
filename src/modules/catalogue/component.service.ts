import { groupBy } from '../../core/collections.ts';
import Big from 'big.js';
import { inTransaction } from '../../context.ts';
import type { ServiceContext } from '../../context.ts';
import { ConflictError, NotFoundError, ValidationError } from '../../errors.ts';
import type { FieldProblem } from '../../errors.ts';
import type { Page } from '../../core/paging.ts';
import { SCHEMES, validateBrackets } from '../../core/pricing.ts';
import type { Bracket, BracketProblem, Scheme } from '../../core/pricing.ts';
import { optionalText, requiredText } from '../../core/text.ts';
import type { Db } from '../../storage/database.ts';
import { isUniqueViolation } from '../../storage/database.ts';
import * as repo from './component.repository.ts';
import type {
  BracketRow,
  ComponentChanges,
  ComponentRow,
  ComponentVersionRow,
  NewVersionCurrency,
  VersionCurrencyRow,
  VersionScope,
} from './component.repository.ts';
import { assertCurrencyEnabled } from './currency.service.ts';
import { assertPackageGroupExists } from './packageGroup.service.ts';
import { MAX_PRICE } from '../../core/money.ts';
import { countSubscriptionsWithComponent } from '../subscriptions/index.ts';

/** Public notes, Catalogue: components are of three kinds, quantity, metered and opt-in. */
export const COMPONENT_TYPES = ['quantity', 'metered', 'opt_in'] as const;
export type ComponentType = (typeof COMPONENT_TYPES)[number];

/** Spec, Component: TermType months or days. */
export const TERM_TYPES = ['months', 'days'] as const;
export type TermType = (typeof TERM_TYPES)[number];

/**
 * Spellings of Type, matched ignoring case, spaces, hyphens and underscores: the spec's samples write
 * `quantity` and `Quantity`, the public notes `opt-in`; `OptIn` and `opt_in` are the other obvious spellings.
 */
const TYPE_BY_KEY = new Map<string, ComponentType>([
  ['quantity', 'quantity'],
  ['metered', 'metered'],
  ['optin', 'opt_in'],
]);

/** Quantities are whole, and doubles hold every whole number up to 2^53; 10^15 is a round limit below it. */
const MAX_QUANTITY = new Big('1000000000000000');

export interface Component {
  row: ComponentRow;
  versions: ComponentVersion[];
}

export interface ComponentVersion {
  row: ComponentVersionRow;
  currencies: VersionCurrency[];
}

export interface VersionCurrency {
  row: VersionCurrencyRow;
  brackets: BracketRow[];
}

/** A component's own fields as a request gives them (the version comes apart). */
export interface ComponentInput {
  componentCode?: string;
  name: string;
  type: string;
  scheme: string;
  unitName: string;
  packageGroupId: number;
  term: number;
  termType: string;
  descrip?: string | null;
  isActive?: boolean;
}

/** Decimals as the wire carries them: JSON numbers, or strings for clients that keep decimals exact. */
export interface BracketInput {
  price: number | string;
  qtyFrom: number | string;
  qtyTill?: number | string | null;
}

export interface VersionCurrencyInput {
  currencyCode: string;
  brackets: BracketInput[];
}

export interface VersionInput {
  versionName: string;
  isActive?: boolean;
  isDefault?: boolean;
  /** Undefined keeps a version's prices on edit; a list (even empty) replaces them. */
  currencies?: VersionCurrencyInput[];
}

function typeOf(value: string): ComponentType | undefined {
  return TYPE_BY_KEY.get(value.toLowerCase().replace(/[\s_-]/g, ''));
}

function oneOf<T extends string>(
  values: readonly T[],
  value: string,
  field: string,
  problems: FieldProblem[],
): T {
  const lower = value.trim().toLowerCase();
  if (!(values as readonly string[]).includes(lower)) {
    problems.push({ field, message: `must be one of ${values.join(', ')}` });
  }
  return lower as T;
}

/** The component's columns; PUT replaces them all (Descrip left out is null, isActive left out is false). */
function checkedComponent(input: ComponentInput, problems: FieldProblem[]): ComponentChanges {
  const type = typeOf(input.type);
  if (!type) {
    problems.push({
      field: 'Type',
      message: `must be one of ${COMPONENT_TYPES.join(', ')} (case, spaces and hyphens aside)`,
    });
  }
  const changes: ComponentChanges = {
    name: requiredText(input.name, 'Name', problems),
    descrip: optionalText(input.descrip) ?? null,
    // Spec, Components POST and PUT: isActive defaults to false when unset.
    is_active: input.isActive ?? false,
    unit_name: requiredText(input.unitName, 'UnitName', problems),
    package_group_id: input.packageGroupId,
    term: input.term,
    term_type: oneOf(TERM_TYPES, input.termType, 'TermType', problems),
    type: type ?? input.type,
    scheme: oneOf<Scheme>(SCHEMES, input.scheme, 'Scheme', problems),
  };
  if (input.componentCode !== undefined) {
    changes.component_code = requiredText(input.componentCode, 'ComponentCode', problems);
  }
  return changes;
}

/**
 * A wire decimal as plain text for the pricing rules. A JSON number arrives as a binary double: its shortest
 * round-trip spelling (String) is the decimal the client wrote for up to 15 significant digits, and Big writes
 * it out without an exponent (1e-7 becomes 0.0000001). Strings are taken as written; the rules refuse anything
 * that is not a plain non-negative decimal.
 */
function decimalText(value: number | string): string {
  if (typeof value === 'string') return value.trim();
  // JSON.parse reads 1e400 as Infinity; the rules then refuse the text as not a decimal.
  return Number.isFinite(value) ? new Big(String(value)).toFixed() : String(value);
}

/** Spec, Bracket price: QtyTill null or blank means no upper bound (left out means the same). */
function tillText(value: number | string | null | undefined): string | null {
  if (value === undefined || value === null) return null;
  const text = decimalText(value);
  return text === '' ? null : text;
}

const WIRE_BRACKET_FIELD = { qtyFrom: 'QtyFrom', qtyTill: 'QtyTill', price: 'Price' } as const;

function bracketField(path: string, problem: Pick<BracketProblem, 'index' | 'field'>): string {
  if (problem.index < 0) return `${path}.ComponentBracketPrices`;
  const bracket = `${path}.ComponentBracketPrices[${problem.index}]`;
  return problem.field ? `${bracket}.${WIRE_BRACKET_FIELD[problem.field]}` : bracket;
}

/** Exact canonical text: no exponent, no trailing zeros ("0.8000" is stored as "0.8"). */
function canonical(text: string): string {
  return new Big(text).toFixed();
}

function checkedBrackets(path: string, input: BracketInput[], problems: FieldProblem[]): Bracket[] {
  const brackets: Bracket[] = input.map((bracket) => ({
    price: decimalText(bracket.price),
    qtyFrom: decimalText(bracket.qtyFrom),
    qtyTill: tillText(bracket.qtyTill),
  }));
  // The bracket rules are the pricing module's (src/core/pricing.ts); each problem names its bracket.
  const found = validateBrackets(brackets);
  for (const problem of found)
    problems.push({ field: bracketField(path, problem), message: problem.message });
  if (found.length > 0) return brackets;

  brackets.forEach((bracket, index) => {
    if (new Big(bracket.price).gt(new Big(MAX_PRICE))) {
      problems.push({
        field: bracketField(path, { index, field: 'price' }),
        message: `must be at most ${MAX_PRICE}`,
      });
    }
    for (const field of ['qtyFrom', 'qtyTill'] as const) {
      const value = bracket[field];
      if (value !== null && new Big(value).gt(MAX_QUANTITY)) {
        problems.push({
          field: bracketField(path, { index, field }),
          message: `must be at most ${MAX_QUANTITY}`,
        });
      }
    }
  });
  return brackets.map((bracket) => ({
    price: canonical(bracket.price),
    qtyFrom: canonical(bracket.qtyFrom),
    qtyTill: bracket.qtyTill === null ? null : canonical(bracket.qtyTill),
  }));
}

/** `path` is where the list sits in the request, e.g. `ComponentVersion.ComponentVersionCurrencies`. */
function checkedPrices(
  path: string,
  input: VersionCurrencyInput[],
  problems: FieldProblem[],
): NewVersionCurrency[] {
  const seen = new Set<string>();
  return input.map((currency, index) => {
    const at = `${path}[${index}]`;
    const code = currency.currencyCode.trim().toUpperCase();
    // A version has one price list per currency; a second would make the price of a quantity ambiguous.
    if (seen.has(code)) {
      problems.push({
        field: `${at}.CurrencyCode`,
        message: `${code} is listed twice; a version has one entry per currency`,
      });
    }
    seen.add(code);
    return { currencyCode: code, brackets: checkedBrackets(at, currency.brackets, problems) };
  });
}

/** Prices only in the account's enabled currencies (as customers' currencies). */
async function assertCurrenciesEnabled(
  ctx: ServiceContext,
  path: string,
  prices: NewVersionCurrency[],
): Promise<void> {
  for (const [index, price] of prices.entries()) {
    price.currencyCode = await assertCurrencyEnabled(
      ctx,
      price.currencyCode,
      `${path}[${index}].CurrencyCode`,
    );
  }
}

function checkedVersionName(value: string, field: string, problems: FieldProblem[]): string {
  return requiredText(value, field, problems);
}

function throwIfAny(problems: FieldProblem[]): void {
  if (problems.length > 0) throw new ValidationError(problems);
}

/**
 * Versions with their prices and brackets, in a fixed number of statements however many there are: one per
 * level, each `where ... in (...)` over the scope. Every level is ordered by id.
 */
async function nestVersions(
  db: Db,
  accountId: number,
  versions: ComponentVersionRow[],
  scope: VersionScope,
): Promise<ComponentVersion[]> {
  if (versions.length === 0) return [];
  const currencies = await repo.listCurrencies(db, accountId, scope);
  const brackets = groupBy(
    await repo.listBrackets(db, accountId, scope),
    (b) => b.component_version_currency_id,
  );
  const currenciesByVersion = groupBy(
    currencies.map((row) => ({ row, brackets: brackets.get(row.id) ?? [] })),
    (c) => c.row.component_version_id,
  );
  return versions.map((row) => ({ row, currencies: currenciesByVersion.get(row.id) ?? [] }));
}

async function withVersions(ctx: ServiceContext, rows: ComponentRow[]): Promise<Component[]> {
  const componentIds = rows.map((row) => row.id);
  const versions = await repo.listVersions(ctx.db, ctx.account.id, componentIds);
  const nested = groupBy(
    await nestVersions(ctx.db, ctx.account.id, versions, { componentIds }),
    (v) => v.row.component_id,
  );
  return rows.map((row) => ({ row, versions: nested.get(row.id) ?? [] }));
}

async function findComponentOrThrow(ctx: ServiceContext, componentId: number): Promise<ComponentRow> {
  const row = await repo.findComponent(ctx.db, ctx.account.id, componentId);
  if (!row) throw new NotFoundError('Component', componentId);
  return row;
}

export async function getComponent(ctx: ServiceContext, componentId: number): Promise<Component> {
  return (await withVersions(ctx, [await findComponentOrThrow(ctx, componentId)]))[0]!;
}

export async function listComponents(ctx: ServiceContext, page: Page): Promise<Component[]> {
  return withVersions(ctx, await repo.listComponents(ctx.db, ctx.account.id, page));
}

/** Public notes, Catalogue: component codes are unique (per account). */
async function assertCodeFree(ctx: ServiceContext, code: string, componentId?: number): Promise<void> {
  const holder = await repo.findComponentIdByCode(ctx.db, ctx.account.id, code);
  if (holder && holder.id !== componentId) {
    throw new ConflictError(
      'component_code_taken',
      `ComponentCode "${code}" belongs to component ${holder.id}`,
    );
  }
}

function codeConflict(error: unknown, code: string | undefined): unknown {
  return isUniqueViolation(error)
    ? new ConflictError('component_code_taken', `ComponentCode "${code}" belongs to another component`)
    : error;
}

const VERSION_PRICES = 'ComponentVersionCurrencies';
const FIRST_VERSION_PRICES = `ComponentVersion.${VERSION_PRICES}`;

/** Spec, Components POST: the component with its first version, VersionNo 1, which is the default. */
export async function createComponent(
  ctx: ServiceContext,
  input: ComponentInput & { componentCode: string },
  version: VersionInput,
): Promise<Component> {
  const problems: FieldProblem[] = [];
  const fields = checkedComponent(input, problems);
  const versionName = checkedVersionName(version.versionName, 'ComponentVersion.VersionName', problems);
  const prices = checkedPrices(FIRST_VERSION_PRICES, version.currencies ?? [], problems);
  throwIfAny(problems);
  await assertPackageGroupExists(ctx, input.packageGroupId, 'packageGroupID');
  await assertCurrenciesEnabled(ctx, FIRST_VERSION_PRICES, prices);
  const code = fields.component_code!;
  await assertCodeFree(ctx, code);

  const now = ctx.clock.now().toISOString();
  let componentId: number;
  try {
    componentId = await ctx.db.transaction().execute(async (trx) => {
      const id = await repo.insertComponent(trx, {
        ...(fields as Required<ComponentChanges>),
        account_id: ctx.account.id,
        last_version_no: 1,
        created_at: now,
      });
      const versionId = await repo.insertVersion(trx, {
        account_id: ctx.account.id,
        component_id: id,
        version_no: 1,
        version_name: versionName,
        is_default: true,
        // Our choice: the blueprint version is active unless the request says otherwise.
        is_active: version.isActive ?? true,
        created_at: now,
      });
      await repo.insertVersionCurrencies(trx, ctx.account.id, versionId, prices);
      return id;
    });
  } catch (error) {
    throw codeConflict(error, code);
  }
  return getComponent(ctx, componentId);
}

/**
 * Spec, Components PUT: replaces the component's own fields (its versions are edited on their own paths).
 * ComponentCode may change, staying unique; left out, it stays.
 */
export async function editComponent(
  ctx: ServiceContext,
  componentId: number,
  input: ComponentInput,
): Promise<void> {
  const problems: FieldProblem[] = [];
  const changes = checkedComponent(input, problems);
  throwIfAny(problems);
  await findComponentOrThrow(ctx, componentId);
  await assertPackageGroupExists(ctx, input.packageGroupId, 'packageGroupID');
  if (changes.component_code !== undefined) await assertCodeFree(ctx, changes.component_code, componentId);
  // NOTE: once subscriptions exist (issue 4), changing Type or Scheme of a component in use changes what its
  // subscribers are charged; that will be refused (409) there, as public notes say prices change by versions.
  try {
    if (!(await repo.updateComponent(ctx.db, ctx.account.id, componentId, changes))) {
      throw new NotFoundError('Component', componentId);
    }
  } catch (error) {
    throw codeConflict(error, changes.component_code);
  }
}

/**
 * Deletes the component with its versions and prices. A component that subscriptions carry (ended ones included:
 * their usage refers to it) is a 409 `component_in_use`; take it off them first (components/modify).
 */
export async function deleteComponent(ctx: ServiceContext, componentId: number): Promise<void> {
  await ctx.db.transaction().execute(async (trx) => {
    if (!(await repo.lockComponent(trx, ctx.account.id, componentId))) {
      throw new NotFoundError('Component', componentId);
    }
    const subscriptions = await countSubscriptionsWithComponent(inTransaction(ctx, trx), { componentId });
    if (subscriptions > 0) {
      throw new ConflictError(
        'component_in_use',
        `Component ${componentId} is on ${subscriptions} subscription(s); make it inactive instead`,
      );
    }
    await repo.deleteComponent(trx, ctx.account.id, componentId);
  });
}

export async function listComponentVersions(
  ctx: ServiceContext,
  componentId: number,
  page: Page,
): Promise<ComponentVersion[]> {
  await findComponentOrThrow(ctx, componentId);
  const rows = await repo.listVersionsPage(ctx.db, ctx.account.id, componentId, page);
  return nestVersions(ctx.db, ctx.account.id, rows, { versionIds: rows.map((row) => row.id) });
}

export async function getComponentVersion(
  ctx: ServiceContext,
  componentId: number,
  versionNo: number,
): Promise<ComponentVersion> {
  await findComponentOrThrow(ctx, componentId);
  const row = await repo.findVersion(ctx.db, ctx.account.id, componentId, versionNo);
  if (!row) throw new NotFoundError('Component version', versionNo);
  return (await nestVersions(ctx.db, ctx.account.id, [row], { versionIds: [row.id] }))[0]!;
}

function defaultMustBeActive(versionNo: number | undefined): ConflictError {
  return new ConflictError(
    'default_version_inactive',
    `the default version${versionNo === undefined ? '' : ` (${versionNo})`} must be active while the ` +
      'component has other versions',
  );
}

/** Runs `change` on the component's versions with the component locked, so the version rules hold. */
async function changeVersions<T>(
  ctx: ServiceContext,
  componentId: number,
  change: (trx: Db, versions: ComponentVersionRow[]) => Promise<T>,
): Promise<T> {
  return ctx.db.transaction().execute(async (trx) => {
    if (!(await repo.lockComponent(trx, ctx.account.id, componentId))) {
      throw new NotFoundError('Component', componentId);
    }
    return change(trx, await repo.listVersions(trx, ctx.account.id, [componentId]));
  });
}

/**
 * Spec, Component versions POST: the next VersionNo (never reused). Version rules: a component has exactly one
 * default version; isDefault true moves the default here; while a component has more than one version its
 * default is active.
 */
export async function createComponentVersion(
  ctx: ServiceContext,
  componentId: number,
  input: VersionInput & { isActive: boolean; isDefault: boolean },
): Promise<ComponentVersion> {
  const problems: FieldProblem[] = [];
  const versionName = checkedVersionName(input.versionName, 'VersionName', problems);
  const prices = checkedPrices(VERSION_PRICES, input.currencies ?? [], problems);
  throwIfAny(problems);
  await findComponentOrThrow(ctx, componentId);
  await assertCurrenciesEnabled(ctx, VERSION_PRICES, prices);

  const versionNo = await changeVersions(ctx, componentId, async (trx, versions) => {
    const current = versions.find((v) => v.is_default);
    const isDefault = input.isDefault || current === undefined;
    if (isDefault && !input.isActive && versions.length > 0) throw defaultMustBeActive(undefined);
    if (!isDefault && current && !current.is_active) throw defaultMustBeActive(current.version_no);
    const no = await repo.takeNextVersionNo(trx, ctx.account.id, componentId);
    const versionId = await repo.insertVersion(trx, {
      account_id: ctx.account.id,
      component_id: componentId,
      version_no: no,
      version_name: versionName,
      is_default: false,
      is_active: input.isActive,
      created_at: ctx.clock.now().toISOString(),
    });
    if (isDefault) await repo.setDefaultVersion(trx, ctx.account.id, componentId, versionId);
    await repo.insertVersionCurrencies(trx, ctx.account.id, versionId, prices);
    return no;
  });
  return getComponentVersion(ctx, componentId, versionNo);
}

/**
 * Spec, Component versions PUT: name and isActive as sent; isDefault left out keeps the version's role; prices,
 * when sent, replace the version's (new identifiers), and left out stay.
 */
export async function editComponentVersion(
  ctx: ServiceContext,
  componentId: number,
  versionNo: number,
  input: VersionInput & { isActive: boolean },
): Promise<void> {
  const problems: FieldProblem[] = [];
  const versionName = checkedVersionName(input.versionName, 'VersionName', problems);
  const prices =
    input.currencies === undefined ? undefined : checkedPrices(VERSION_PRICES, input.currencies, problems);
  throwIfAny(problems);
  await findComponentOrThrow(ctx, componentId);
  if (prices) await assertCurrenciesEnabled(ctx, VERSION_PRICES, prices);

  await changeVersions(ctx, componentId, async (trx, versions) => {
    const target = versions.find((v) => v.version_no === versionNo);
    if (!target) throw new NotFoundError('Component version', versionNo);
    const wasDefault = Boolean(target.is_default);
    const isDefault = input.isDefault ?? wasDefault;
    if (wasDefault && !isDefault) {
      throw new ConflictError(
        'default_version_required',
        `version ${versionNo} is the default; a component always has one, so make another version the ` +
          'default (isDefault true on it) instead',
      );
    }
    if (isDefault && !input.isActive && versions.length > 1) throw defaultMustBeActive(versionNo);
    await repo.updateVersion(trx, ctx.account.id, target.id, {
      version_name: versionName,
      is_active: input.isActive,
    });
    if (isDefault && !wasDefault) await repo.setDefaultVersion(trx, ctx.account.id, componentId, target.id);
    if (prices) await repo.replaceVersionCurrencies(trx, ctx.account.id, target.id, prices);
  });
}

/**
 * Spec, Limits: the last version of a component cannot be deleted. Nor can the default while others exist:
 * move the default first. Nor a version that subscriptions carry (409 `component_version_in_use`).
 */
export async function deleteComponentVersion(
  ctx: ServiceContext,
  componentId: number,
  versionNo: number,
): Promise<void> {
  await changeVersions(ctx, componentId, async (trx, versions) => {
    const target = versions.find((v) => v.version_no === versionNo);
    if (!target) throw new NotFoundError('Component version', versionNo);
    if (versions.length === 1) {
      throw new ConflictError(
        'last_component_version',
        `version ${versionNo} is the component's last version and cannot be deleted (delete the component instead)`,
      );
    }
    if (target.is_default) {
      throw new ConflictError(
        'default_version_required',
        `version ${versionNo} is the default; make another version the default before deleting it`,
      );
    }
    const subscriptions = await countSubscriptionsWithComponent(inTransaction(ctx, trx), {
      componentVersionId: target.id,
    });
    if (subscriptions > 0) {
      throw new ConflictError(
        'component_version_in_use',
        `version ${versionNo} is on ${subscriptions} subscription(s)`,
      );
    }
    await repo.deleteVersion(trx, ctx.account.id, target.id);
  });
}

/** How usage of one component version is priced, for billing: its names, scheme and brackets per currency. */
export interface UsagePricing {
  componentId: number;
  componentVersionId: number;
  versionNo: number;
  name: string;
  unitName: string;
  scheme: Scheme;
  bracketsByCurrency: Map<string, Bracket[]>;
}

/** The pricing of the given component versions of the account (unknown ids are left out), in three statements. */
export async function usagePricing(
  ctx: ServiceContext,
  versionIds: number[],
): Promise<Map<number, UsagePricing>> {
  const unique = [...new Set(versionIds)];
  if (unique.length === 0) return new Map();
  const versions = await repo.listVersionsWithComponents(ctx.db, ctx.account.id, unique);
  const nested = await nestVersions(
    ctx.db,
    ctx.account.id,
    versions.map((v) => ({ id: v.id }) as ComponentVersionRow),
    { versionIds: unique },
  );
  const currenciesByVersion = new Map(nested.map((v) => [v.row.id, v.currencies]));
  return new Map(
    versions.map((v) => [
      v.id,
      {
        componentId: v.component_id,
        componentVersionId: v.id,
        versionNo: v.version_no,
        name: v.name,
        unitName: v.unit_name,
        scheme: v.scheme as Scheme,
        bracketsByCurrency: new Map(
          (currenciesByVersion.get(v.id) ?? []).map((c) => [
            c.row.currency_code,
            c.brackets.map((b) => ({ qtyFrom: b.qty_from, qtyTill: b.qty_till, price: b.price })),
          ]),
        ),
      },
    ]),
  );
}
