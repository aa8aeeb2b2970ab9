import type { Static } from '@sinclair/typebox';
import type { RenderedPage } from './cataloguePages.ts';
import type { Package, PackageInput, PackageVersion } from './package.service.ts';
import type { VersionInput } from './packageInput.ts';
import type {
  CreatePackageBody,
  EditPackageBody,
  PackageOut,
  VersionBody,
  VersionOut,
} from './packages.schemas.ts';

/** Amounts are kept as exact decimal strings of at most 4 decimals; as JSON numbers they read back the same. */
const wireAmount = (value: string): number => Number(value);

/**
 * A version as the API shows it. Its SubscriptionCount is a figure of subscriptions, which sit above the catalogue:
 * computed by the read model (src/readModels/packages.view.ts), by version id; a version it leaves out has none.
 */
export function toVersionDto(
  version: PackageVersion,
  subscriptionCounts: ReadonlyMap<number, number>,
): Static<typeof VersionOut> {
  return {
    packageVersionID: version.id,
    packageID: version.packageId,
    VersionNo: version.versionNo,
    VersionName: version.versionName,
    isDefault: version.isDefault,
    isActive: version.isActive,
    SubscriptionCount: subscriptionCounts.get(version.id) ?? 0,
    packageVersionRates: version.rates.map((rate) => ({
      packageRateID: rate.id,
      packageID: rate.packageId,
      CurrencyCode: rate.currencyCode,
      SetupFee: wireAmount(rate.setupFee),
      TrialFee: wireAmount(rate.trialFee),
      TrialPeriod: rate.trialPeriod,
      TrialPeriodType: rate.trialPeriodType,
      // Shown only when the rate sets it, so that a rate following the account reads as before.
      ...(rate.isTaxInclusive === null ? {} : { isTaxInclusive: rate.isTaxInclusive }),
      PackageRateTerms: rate.terms.map((term) => ({
        packageRateTermID: term.id,
        packageRateID: term.rateId,
        ChargePrice: wireAmount(term.chargePrice),
        ChargeTerm: term.chargeTerm,
        ChargeTermType: term.chargeTermType,
      })),
    })),
  };
}

/** A package as the API shows it, its versions' SubscriptionCount from `subscriptionCounts` (see toVersionDto). */
export function toPackageDto(
  pkg: Package,
  subscriptionCounts: ReadonlyMap<number, number>,
): Static<typeof PackageOut> {
  return {
    packageID: pkg.id,
    packageGroupID: pkg.packageGroupId,
    packageCode: pkg.packageCode,
    Name: pkg.name,
    Descrip: pkg.descrip,
    isActive: pkg.isActive,
    PackageVersions: pkg.versions.map((version) => toVersionDto(version, subscriptionCounts)),
  };
}

const COUNT_KEY = '"SubscriptionCount":';

/**
 * A packages page as the route's own serializer writes it, cut where each version's SubscriptionCount goes, so that
 * the text can be kept while the counts, which move with subscriptions and the date, are read per request. The text
 * is written with every count at 0 and cut at each `"SubscriptionCount":0`: inside a JSON string every quote is
 * escaped, so that sequence is only ever the key itself, and there is one per version, in the text's order.
 */
export function packagesPageWithHoles(
  packages: Static<typeof PackageOut>[],
  serialize: (packages: Static<typeof PackageOut>[]) => string,
): RenderedPage {
  const versionIds: number[] = [];
  const uncounted = packages.map((pkg) => ({
    ...pkg,
    PackageVersions: pkg.PackageVersions.map((version) => {
      versionIds.push(version.packageVersionID);
      return { ...version, SubscriptionCount: 0 };
    }),
  }));
  const cut = serialize(uncounted).split(`${COUNT_KEY}0`);
  if (cut.length !== versionIds.length + 1) {
    throw new Error(`a packages page of ${versionIds.length} versions has ${cut.length - 1} counts`);
  }
  return {
    pieces: cut.map((piece, i) => (i < versionIds.length ? piece + COUNT_KEY : piece)),
    versionIds,
  };
}

export function packageInputFromWire(body: CreatePackageBody | EditPackageBody): PackageInput {
  return {
    packageGroupId: body.packageGroupID,
    packageCode: body.packageCode,
    name: body.Name,
    descrip: body.Descrip,
    isActive: body.isActive,
  };
}

export function versionInputFromWire(body: VersionBody): VersionInput {
  return {
    versionName: body.VersionName,
    isActive: body.isActive,
    isDefault: body.isDefault,
    rates: (body.packageVersionRates ?? []).map((rate) => ({
      currencyCode: rate.CurrencyCode,
      setupFee: rate.SetupFee,
      trialFee: rate.TrialFee,
      trialPeriod: rate.TrialPeriod,
      trialPeriodType: rate.TrialPeriodType,
      isTaxInclusive: rate.isTaxInclusive,
      terms: rate.PackageRateTerms.map((term) => ({
        chargePrice: term.ChargePrice,
        chargeTerm: term.ChargeTerm,
        chargeTermType: term.ChargeTermType,
      })),
    })),
  };
}
