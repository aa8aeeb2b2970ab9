import Big from 'big.js';
import type { ServiceContext } from '../../context.ts';
import { NotFoundError, ValidationError } from '../../errors.ts';
import type { FieldProblem } from '../../errors.ts';
import { checkedWireDate } from '../../core/calendar.ts';
import type { PlainDate } from '../../core/calendar.ts';
import type { Term } from '../../core/periods.ts';
import { decimalPlaces, readWireDecimal } from '../../core/wireDecimal.ts';
import { getComponent, getPackage, metricUsageConflict } from '../catalogue/index.ts';
import type { Component, ComponentVersion, Package } from '../catalogue/index.ts';
import { packageTermsFields } from './subscriptionTimeline.ts';
import type { PackageTerms } from './subscriptionTimeline.ts';

/**
 * The checks of what requests ask of a subscription: dates, units of usage, the package version and rate term,
 * the components. Problems are collected under the wire names of the fields at fault.
 */

/** A component as a request names it: the version by id or number, else the component's default. */
export interface ComponentChoice {
  componentId: number;
  componentVersionId?: number | null;
  componentVersionNumber?: number | null;
  /** Sets the units of the current usage period when given. */
  numUnits?: number | string;
  memo?: string | null;
}

/** Units of usage: exact decimals of at most 4 decimals, small enough to come back exactly as JSON numbers. */
const UNIT_DECIMALS = 4;
export const MAX_UNITS = new Big('99999999999.9999');

/** The components field of the requests that carry them; problems are named under it. */
export const COMPONENTS_FIELD = 'componentUsage';

export function readDate(
  ctx: ServiceContext,
  text: string,
  field: string,
  problems: FieldProblem[],
): PlainDate | undefined {
  return checkedWireDate(text, ctx.account.timeZone, field, problems);
}

/**
 * Units as an exact decimal string. A JSON number's shortest spelling is the decimal the client wrote (see the
 * component prices); a string is taken as written. `signed` allows a negative number (an amount to subtract).
 */
export function readUnits(
  value: number | string,
  field: string,
  problems: FieldProblem[],
  signed: boolean,
): Big | undefined {
  const read = readWireDecimal(value);
  if ('problem' in read) {
    problems.push({ field, message: 'must be a decimal number' });
    return undefined;
  }
  const units = read.value;
  let problem: string | undefined;
  if (!signed && units.lt(0)) problem = 'must not be negative';
  else if (decimalPlaces(units) > UNIT_DECIMALS) problem = `must have at most ${UNIT_DECIMALS} decimals`;
  else if (units.abs().gt(MAX_UNITS)) problem = `must be at most ${MAX_UNITS.toFixed()}`;
  if (problem === undefined) return units;
  problems.push({ field, message: problem });
  return undefined;
}

/**
 * A version named by id or number (both: they must agree), else `fallback`; undefined after a problem. With it,
 * the field a problem with that version is named under: the one that named it, else `fields.otherwise`.
 */
function pickVersion<V extends { id: number; no: number }>(
  versions: V[],
  byId: number | null | undefined,
  byNo: number | null | undefined,
  fields: { id: string; no: string; otherwise: string },
  owner: string,
  fallback: () => V | undefined,
  problems: FieldProblem[],
): { version: V; field: string } | undefined {
  const withId = byId == null ? undefined : versions.find((v) => v.id === byId);
  const withNo = byNo == null ? undefined : versions.find((v) => v.no === byNo);
  if (byId != null && !withId) {
    problems.push({ field: fields.id, message: `${byId} is not a version of ${owner}` });
    return undefined;
  }
  if (byNo != null && !withNo) {
    problems.push({ field: fields.no, message: `${owner} has no version ${byNo}` });
    return undefined;
  }
  if (withId && withNo && withId !== withNo) {
    problems.push({ field: fields.no, message: `does not match ${fields.id} (version ${withId.no})` });
    return undefined;
  }
  const version = withId ?? withNo ?? fallback();
  const field = byId != null ? fields.id : byNo != null ? fields.no : fields.otherwise;
  return version && { version, field };
}

/** The package, version and rate term a subscription is put on, as a request names them. */
export interface PriceChoiceInput {
  packageId: number;
  packageVersionId?: number | null;
  packageVersionNumber?: number | null;
  packageRateTermId: number;
}

/** A package, version and rate term chosen for a subscription, with the price terms to copy onto it. */
export interface PriceChoice extends PackageTerms {
  trialPeriod: number;
  trialPeriodType: string;
}

/** The subscription columns a price choice is copied into. */
export function priceChoiceFields(choice: PriceChoice) {
  return {
    ...packageTermsFields(choice),
    trialPeriod: choice.trialPeriod,
    trialPeriodType: choice.trialPeriodType,
  };
}

/** The package version and rate term a subscription is put on, in the customer's currency. */
function choosePackage(
  pkg: Package,
  input: PriceChoiceInput,
  currencyCode: string,
  problems: FieldProblem[],
): PriceChoice | undefined {
  const owner = `package ${pkg.id}`;
  const versions = pkg.versions.map((v) => ({ ...v, no: v.versionNo }));
  const picked = pickVersion(
    versions,
    input.packageVersionId,
    input.packageVersionNumber,
    { id: 'packageVersionID', no: 'packageVersionNumber', otherwise: 'packageID' },
    owner,
    () => versions.find((v) => v.isDefault),
    problems,
  );
  if (!picked) return undefined;
  const { version } = picked;
  if (!pkg.isActive) {
    problems.push({
      field: 'packageID',
      message: `package ${pkg.id} is inactive and takes no new subscriptions`,
    });
  }
  if (!version.isActive) {
    problems.push({
      field: picked.field,
      message: `version ${version.versionNo} of ${owner} is inactive and takes no new subscriptions`,
    });
  }
  const rate = version.rates.find((r) => r.currencyCode === currencyCode);
  const term = rate?.terms.find((t) => t.id === input.packageRateTermId);
  if (!rate || !term) {
    const elsewhere = version.rates.find((r) => r.terms.some((t) => t.id === input.packageRateTermId));
    problems.push({
      field: 'packageRateTermID',
      message: elsewhere
        ? `is a term of the ${elsewhere.currencyCode} rate, but the customer is billed in ${currencyCode}`
        : rate
          ? `is not a term of the ${currencyCode} rate of version ${version.versionNo} of ${owner} ` +
            `(its terms: ${rate.terms.map((t) => t.id).join(', ')})`
          : `version ${version.versionNo} of ${owner} has no rate in ${currencyCode}, the customer's currency`,
    });
    return undefined;
  }
  return {
    packageId: pkg.id,
    packageVersionId: version.id,
    packageRateTermId: term.id,
    label: pkg.name,
    term: { count: term.chargeTerm, unit: term.chargeTermType as Term['unit'] },
    chargePrice: term.chargePrice,
    setupFee: rate.setupFee,
    trialFee: rate.trialFee,
    trialPeriod: rate.trialPeriod,
    trialPeriodType: rate.trialPeriodType,
  };
}

/** Looks the package up and chooses on it; a package the account cannot see is a problem named packageID. */
export async function choosePriceTerms(
  ctx: ServiceContext,
  input: PriceChoiceInput,
  currencyCode: string,
  problems: FieldProblem[],
): Promise<PriceChoice | undefined> {
  let pkg: Package;
  try {
    pkg = await getPackage(ctx, input.packageId);
  } catch (error) {
    if (!(error instanceof NotFoundError)) throw error;
    problems.push({ field: 'packageID', message: `package ${input.packageId} does not exist` });
    return undefined;
  }
  return choosePackage(pkg, input, currencyCode, problems);
}

/** The choice checked by the same rules as a new subscription's (an active version, a term in the currency). */
export async function resolvePriceChoice(
  ctx: ServiceContext,
  input: PriceChoiceInput,
  currencyCode: string,
): Promise<PriceChoice> {
  const problems: FieldProblem[] = [];
  const chosen = await choosePriceTerms(ctx, input, currencyCode, problems);
  if (!chosen || problems.length > 0) throw new ValidationError(problems);
  return chosen;
}

/** A component a request puts on a subscription, with the version that will price it. */
export interface ChosenComponent {
  componentId: number;
  versionId: number;
  units?: Big;
  memo?: string | null;
}

/**
 * The components a request names, each with the version that will price it. A version must be active to be put
 * on a subscription (keeping one that was made inactive since is fine), and priced in the subscription's currency.
 * `current` maps component ids already on the subscription to their versions; they keep theirs unless one is named.
 */
export async function chooseComponents(
  ctx: ServiceContext,
  items: ComponentChoice[],
  currencyCode: string,
  current: Map<number, number>,
  problems: FieldProblem[],
): Promise<ChosenComponent[]> {
  const chosen: ChosenComponent[] = [];
  const seen = new Map<number, number>();
  for (const [i, item] of items.entries()) {
    const at = `${COMPONENTS_FIELD}[${i}]`;
    if (seen.has(item.componentId)) {
      problems.push({
        field: `${at}.componentID`,
        message: `repeats ${COMPONENTS_FIELD}[${seen.get(item.componentId)}]`,
      });
      continue;
    }
    seen.set(item.componentId, i);
    let component: Component;
    try {
      component = await getComponent(ctx, item.componentId);
    } catch (error) {
      if (!(error instanceof NotFoundError)) throw error;
      problems.push({ field: `${at}.componentID`, message: `component ${item.componentId} does not exist` });
      continue;
    }
    const owner = `component ${component.id}`;
    const versions = component.versions.map((v) => ({ ...v, no: v.versionNo }));
    const kept = current.get(component.id);
    const picked = pickVersion(
      versions,
      item.componentVersionId,
      item.componentVersionNumber,
      { id: `${at}.componentVersionID`, no: `${at}.componentVersionNumber`, otherwise: `${at}.componentID` },
      owner,
      () => versions.find((v) => v.id === kept) ?? versions.find((v) => v.isDefault),
      problems,
    );
    if (!picked) continue;
    const { version } = picked;
    if (!version.isActive && version.id !== kept) {
      problems.push({ field: picked.field, message: `version ${version.no} of ${owner} is inactive` });
    }
    if (!hasPrice(version, currencyCode)) {
      problems.push({
        field: picked.field,
        message: `version ${version.no} of ${owner} has no price in ${currencyCode}, the subscription's currency`,
      });
    }
    if (item.numUnits !== undefined && component.metricCode !== null) {
      throw metricUsageConflict(component.id, component.metricCode);
    }
    const units =
      item.numUnits === undefined ? undefined : readUnits(item.numUnits, `${at}.NumUnits`, problems, false);
    chosen.push({ componentId: component.id, versionId: version.id, units, memo: item.memo });
  }
  return chosen;
}

function hasPrice(version: ComponentVersion, currencyCode: string): boolean {
  // A price is brackets under unit, volume and stairstep, or blocks under package.
  return version.currencies.some(
    (c) => c.currencyCode === currencyCode && (c.brackets.length > 0 || c.pack !== null),
  );
}
