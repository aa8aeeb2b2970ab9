import { startOfDate } from '../../core/calendar.ts';
import type { PlainDate } from '../../core/calendar.ts';
import type { CreateSubscriptionInput } from './subscription.service.ts';
import type { UsageRecord } from './subscriptionComponents.service.ts';
import type { ComponentChoice } from './subscriptionInput.ts';
import type { Subscription } from './subscriptionReads.service.ts';
import type {
  CreateSubscriptionBody,
  ModifyComponentsBody,
  RecordUsageBody,
  SubscriptionOut,
} from './subscriptions.schemas.ts';

/** Prices and units are exact decimals of at most 4 decimals; as JSON numbers they read back the same. */
const wireDecimal = (value: string): number => Number(value);

export function toSubscriptionDto({ view, ...s }: Subscription, timeZone: string): SubscriptionOut {
  const date = (value: PlainDate | null) => (value === null ? null : startOfDate(value, timeZone));
  return {
    subscriptionID: view.id,
    customerID: view.customer_id,
    packageID: view.package_id,
    packageVersionID: view.package_version_id,
    packageVersionNumber: view.package_version_no,
    packageRateTermID: view.package_rate_term_id,
    CustomerName: [view.customer_name, view.customer_last_name].filter(Boolean).join(' '),
    PackageName: view.package_name,
    Term: view.term,
    TermType: view.term_type,
    StartDate: startOfDate(view.start_date, timeZone),
    EndDate: date(view.end_date),
    TrialEndDate: date(view.trial_end_date),
    firstProrataSyncDate: date(view.first_prorata_sync_date),
    isProRata: Boolean(view.is_pro_rata),
    isFutureChange: s.isFutureChange,
    isCancelled: s.isCancelled,
    isExpired: s.isExpired,
    lastInvDate: date(view.last_inv_date),
    lastRenewDate: date(view.last_renew_date),
    nextRenewDate: date(view.next_renew_date),
    numDaysBeforeToInv: view.num_days_before_to_inv,
    comp_nextInvDate: date(s.nextInvoiceDate),
    comp_Status: s.status,
    LastModified: view.updated_at,
    componentUsage: s.components.map((c) => ({
      componentID: c.componentId,
      componentVersionID: c.componentVersionId,
      componentVersionNumber: c.componentVersionNo,
      Memo: c.memo,
      NumUnits: wireDecimal(c.numUnits),
      isSetUnits: c.isSetUnits,
    })),
    CurrencyCode: view.currency_code,
    ChargePrice: wireDecimal(view.charge_price),
    CancelType: view.cancel_type,
    CancelDate: date(view.cancel_date),
    isParked: view.parked_reason !== null,
    ParkedReason: view.parked_reason,
    CollectionMethod: view.collection_method,
    gatewayID: view.gateway_id,
    customerPaymentMethodID: view.customer_payment_method_id,
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
