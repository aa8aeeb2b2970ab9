import type { Static } from '@sinclair/typebox';
import { minorToDecimalText } from '../../core/money.ts';
import type { UsageAlertBody, UsageAlertOut } from './usageAlerts.schemas.ts';
import type { UsageAlertInput, UsageAlertView } from './usageAlert.service.ts';
import type { Measure } from './usageAlert.ts';

export function usageAlertInputFromWire(body: UsageAlertBody): UsageAlertInput {
  return {
    name: body.Name,
    kind: body.Kind,
    metricCode: body.MetricCode ?? null,
    group: body.UsageGroup ?? null,
    threshold: body.Threshold,
  };
}

/** A quantity as it is; an amount in major units with the currency's decimals ("50.00"). */
function measureText(measure: Measure, currencyCode: string): string {
  return measure.kind === 'quantity'
    ? measure.quantity
    : minorToDecimalText(measure.amountMinor, currencyCode);
}

export function toUsageAlertDto(view: UsageAlertView): Static<typeof UsageAlertOut> {
  const firing = view.lastFiring;
  return {
    usageAlertID: view.id,
    subscriptionID: view.subscriptionId,
    customerID: view.customerId,
    Name: view.name,
    Kind: view.threshold.kind,
    MetricCode: view.metricCode,
    UsageGroup: view.group,
    Threshold: measureText(view.threshold, view.currencyCode),
    CurrencyCode: view.currencyCode,
    PeriodStart: view.period?.start ?? null,
    PeriodEnd: view.period?.end ?? null,
    FiredThisPeriod: view.firedThisPeriod,
    LastFiring: firing && {
      PeriodStart: firing.periodStart,
      PeriodEnd: firing.periodEnd,
      Threshold: measureText(firing.threshold, view.currencyCode),
      Value: measureText(firing.value, view.currencyCode),
      FiredAt: firing.firedAt,
    },
    CreatedAt: view.createdAt,
    UpdatedAt: view.updatedAt,
  };
}
