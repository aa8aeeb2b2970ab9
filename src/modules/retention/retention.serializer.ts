import type { Static } from '@sinclair/typebox';
import type { RetentionReport } from './retentionReport.service.ts';
import type { ReasonInput } from './retentionRules.service.ts';
import type {
  RetentionEventOut,
  RetentionReportOut,
  RetentionRulesBody,
  RetentionRulesOut,
} from './retention.schemas.ts';
import type { RetentionOffer, RetentionRecord, RetentionRules } from './retention.ts';

export function reasonsFromWire(body: RetentionRulesBody): ReasonInput[] {
  return body.Reasons.map((reason) => ({
    code: reason.Code,
    label: reason.Label,
    offers: (reason.Offers ?? []).map((offer) => ({
      kind: offer.Kind,
      couponId: offer.couponID,
      packageId: offer.packageID,
      packageRateTermId: offer.packageRateTermID,
    })),
  }));
}

function toOfferDto(offer: RetentionOffer) {
  return {
    Kind: offer.kind,
    couponID: offer.kind === 'coupon' ? offer.couponId : null,
    packageID: offer.kind === 'package' ? offer.packageId : null,
    packageRateTermID: offer.kind === 'package' ? offer.packageRateTermId : null,
  };
}

export function toRetentionRulesDto(rules: RetentionRules): Static<typeof RetentionRulesOut> {
  return {
    Reasons: rules.reasons.map((reason) => ({
      Code: reason.code,
      Label: reason.label,
      Offers: reason.offers.map(toOfferDto),
    })),
    UpdatedAt: rules.updatedAt,
  };
}

export function toRetentionReportDto(report: RetentionReport): Static<typeof RetentionReportOut> {
  return {
    From: report.from,
    To: report.to,
    Months: report.months.map((m) => ({
      Month: m.month,
      Cancels: m.cancels,
      CancelsByReason: m.cancelsByReason.map(({ reason, count }) => ({ Reason: reason, Count: count })),
      OffersShown: m.offersShown,
      OffersTaken: m.offersTaken,
      OffersDeclined: m.offersDeclined,
      Kept: m.kept,
      KeptPending: m.keptPending,
    })),
  };
}

/** A retention event's object (retention.offer_shown, _taken, _declined). */
export function toRetentionEventDto(record: RetentionRecord): Static<typeof RetentionEventOut> {
  return {
    retentionEventID: record.id,
    subscriptionID: record.subscriptionId,
    customerID: record.customerId,
    Reason: record.reason,
    Offer: record.offer && toOfferDto(record.offer),
    Date: record.madeOn,
  };
}
