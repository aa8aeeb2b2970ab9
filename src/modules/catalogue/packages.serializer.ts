import type { Static } from '@sinclair/typebox';
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

export function toVersionDto(version: PackageVersion): Static<typeof VersionOut> {
  return {
    packageVersionID: version.id,
    packageID: version.packageId,
    VersionNo: version.versionNo,
    VersionName: version.versionName,
    isDefault: version.isDefault,
    isActive: version.isActive,
    SubscriptionCount: version.subscriptionCount,
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

export function toPackageDto(pkg: Package): Static<typeof PackageOut> {
  return {
    packageID: pkg.id,
    packageGroupID: pkg.packageGroupId,
    packageCode: pkg.packageCode,
    Name: pkg.name,
    Descrip: pkg.descrip,
    isActive: pkg.isActive,
    PackageVersions: pkg.versions.map(toVersionDto),
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
