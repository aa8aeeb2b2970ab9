import type { ServiceContext } from '../../context.ts';
import { ValidationError } from '../../errors.ts';
import type { FieldProblem } from '../../errors.ts';
import type { Term } from '../../core/periods.ts';
import { getPackage } from '../catalogue/index.ts';
import { choosePackage } from './subscription.service.ts';

/** A package, version and rate term chosen for a subscription, with the price terms to copy onto it. */
export interface PriceChoice {
  packageId: number;
  packageVersionId: number;
  packageRateTermId: number;
  label: string;
  term: Term;
  chargePrice: string;
  setupFee: string;
  trialFee: string;
  trialPeriod: number;
  trialPeriodType: string;
}

export interface PriceChoiceInput {
  packageId: number;
  packageVersionId?: number | null;
  packageVersionNumber?: number | null;
  packageRateTermId: number;
}

/** The choice checked by the same rules as a new subscription's (an active version, a term in the currency). */
export async function resolvePriceChoice(
  ctx: ServiceContext,
  input: PriceChoiceInput,
  currencyCode: string,
): Promise<PriceChoice> {
  const problems: FieldProblem[] = [];
  const pkg = await getPackage(ctx, input.packageId).catch((error: unknown) => {
    throw error instanceof Error && 'kind' in error && error.kind === 'not_found'
      ? ValidationError.field('packageID', `package ${input.packageId} does not exist`)
      : error;
  });
  const chosen = choosePackage(pkg, { customerId: 0, ...input }, currencyCode, problems);
  if (!chosen || problems.length > 0) throw new ValidationError(problems);
  return {
    packageId: pkg.id,
    packageVersionId: chosen.versionId,
    packageRateTermId: chosen.rateTermId,
    label: chosen.packageName,
    term: chosen.term,
    chargePrice: chosen.chargePrice,
    setupFee: chosen.setupFee,
    trialFee: chosen.trialFee,
    trialPeriod: chosen.trialPeriod,
    trialPeriodType: chosen.trialPeriodType,
  };
}
