import { startOfDate } from '../../core/calendar.ts';
import type { PlainDate } from '../../core/calendar.ts';
import type { CreateSubscriptionInput } from './subscription.service.ts';
import type { UsageRecord } from './subscriptionComponents.service.ts';
import type { ComponentChoice } from './subscriptionInput.ts';
import type { Subscription } from './subscription.ts';
import type {
  CreateSubscriptionBody,
  ModifyComponentsBody,
  RecordUsageBody,
  SubscriptionOut,
} from './subscriptions.schemas.ts';

/** Prices and units are exact decimals of at most 4 decimals; as JSON numbers they read back the same. */
const wireDecimal = (value: string): number => Number(value);

export function toSubscriptionDto(subscription: Subscription, timeZone: string): SubscriptionOut {
  const date = (value: PlainDate | null) => (value === null ? null : startOfDate(value, timeZone));
  return {
    subscriptionID: subscription.id,
    customerID: subscription.customerId,
    packageID: subscription.packageId,
    packageVersionID: subscription.packageVersionId,
    packageVersionNumber: subscription.packageVersionNumber,
    packageRateTermID: subscription.packageRateTermId,
    CustomerName: subscription.customerName,
    PackageName: subscription.packageName,
    Term: subscription.term,
    TermType: subscription.termType,
    StartDate: startOfDate(subscription.startDate, timeZone),
    EndDate: date(subscription.endDate),
    TrialEndDate: date(subscription.trialEndDate),
    firstProrataSyncDate: date(subscription.firstProrataSyncDate),
    isProRata: subscription.isProRata,
    isFutureChange: subscription.isFutureChange,
    isCancelled: subscription.isCancelled,
    isExpired: subscription.isExpired,
    lastInvDate: date(subscription.lastInvoiceDate),
    lastRenewDate: date(subscription.lastRenewDate),
    nextRenewDate: date(subscription.nextRenewDate),
    numDaysBeforeToInv: subscription.numDaysBeforeToInvoice,
    comp_nextInvDate: date(subscription.nextInvoiceDate),
    comp_Status: subscription.status,
    LastModified: subscription.updatedAt,
    componentUsage: subscription.components.map((c) => ({
      componentID: c.componentId,
      componentVersionID: c.componentVersionId,
      componentVersionNumber: c.componentVersionNo,
      Memo: c.memo,
      NumUnits: wireDecimal(c.numUnits),
      isSetUnits: c.isSetUnits,
    })),
    CurrencyCode: subscription.currencyCode,
    ChargePrice: wireDecimal(subscription.chargePrice),
    CancelType: subscription.cancelType,
    CancelDate: date(subscription.cancelDate),
    CancelReason: subscription.cancelReason,
    isParked: subscription.parkedReason !== null,
    ParkedReason: subscription.parkedReason,
    CollectionMethod: subscription.collectionMethod,
    gatewayID: subscription.gatewayId,
    customerPaymentMethodID: subscription.customerPaymentMethodId,
    // Beyond the spec, shown only when set: a subscription without one reads as it always did.
    ...(subscription.billCycleDay === null ? {} : { BillCycleDay: subscription.billCycleDay }),
    // Started when paid: shown only for a subscription created with ActivateOnPayment.
    ...(subscription.incompleteUntil === null
      ? {}
      : {
          IncompleteExpiryDate: date(subscription.incompleteUntil),
          ActivationDate: date(subscription.activatedOn),
        }),
    // Beyond the spec, shown only once paused (docs/subscriptions.md, "Pause and resume").
    ...(subscription.pauseDate === null
      ? {}
      : {
          PauseDate: startOfDate(subscription.pauseDate, timeZone),
          ResumeDate: date(subscription.resumeDate),
          PauseCredit: subscription.pauseCredit,
          ResumeBillingAnchor: subscription.resumeBillingAnchor,
          // Shown only for a resume that waits for its invoice's payment (docs/subscriptions.md).
          ...(subscription.resumePayBy === null
            ? {}
            : {
                ResumeWaitsForPayment: true,
                ResumePayByDate: startOfDate(subscription.resumePayBy, timeZone),
                ResumePaidDate: date(subscription.resumePaidOn),
              }),
        }),
  };
}

type ComponentUsageBody = NonNullable<CreateSubscriptionBody['componentUsage']>[number];

function componentChoiceFromWire(item: ComponentUsageBody): ComponentChoice {
  return {
    componentId: item.componentID,
    componentVersionId: item.componentVersionID,
    componentVersionNumber: item.componentVersionNumber,
    numUnits: item.NumUnits,
    memo: item.Memo,
  };
}

export function createSubscriptionInputFromWire(body: CreateSubscriptionBody): CreateSubscriptionInput {
  return {
    customerId: body.customerID,
    packageId: body.packageID,
    packageVersionId: body.packageVersionID,
    packageVersionNumber: body.packageVersionNumber,
    packageRateTermId: body.packageRateTermID,
    startDate: body.StartDate,
    endDate: body.EndDate,
    numDaysBeforeToInv: body.numDaysBeforeToInv,
    isProRata: body.isProRata,
    firstProrataSyncDate: body.firstProrataSyncDate,
    components: body.componentUsage?.map(componentChoiceFromWire),
    collectionMethod: body.CollectionMethod,
    gatewayId: body.gatewayID,
    customerPaymentMethodId: body.customerPaymentMethodID,
    activateOnPayment: body.ActivateOnPayment,
  };
}

export function componentChoicesFromWire(body: ModifyComponentsBody): ComponentChoice[] {
  return body.componentUsage.map(componentChoiceFromWire);
}

export function usageRecordsFromWire(body: RecordUsageBody): UsageRecord[] {
  return body.componentUsage.map((item) => ({
    componentId: item.componentID,
    numUnits: item.NumUnits,
    // Spec: isSetUnits is listed as Numeric and returned as a Boolean; both are accepted.
    isSetUnits: Boolean(item.isSetUnits),
    memo: item.Memo,
  }));
}
