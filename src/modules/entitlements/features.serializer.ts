import type { Static } from '@sinclair/typebox';
import type {
  ConsumptionOut,
  EntitlementCheckOut,
  EntitlementOut,
  FeatureOut,
  FeatureValueOut,
} from './features.schemas.ts';
import type { FeatureBody, FeatureValueBody } from './features.schemas.ts';
import type { FeatureInput, FeatureView } from './feature.service.ts';
import type { FeatureValueView, GrantInput } from './featureValue.service.ts';
import type { Entitlement, EntitlementCheck } from './entitlement.service.ts';
import type { ConsumptionAnswer } from './consumption.service.ts';

export function featureInputFromWire(body: FeatureBody): FeatureInput {
  return {
    code: body.Code,
    name: body.Name,
    descrip: body.Descrip ?? null,
    type: body.Type,
    metricCode: body.MetricCode ?? null,
  };
}

export function toFeatureDto(feature: FeatureView): Static<typeof FeatureOut> {
  return {
    featureID: feature.id,
    Code: feature.code,
    Name: feature.name,
    Descrip: feature.descrip,
    Type: feature.type,
    MetricCode: feature.metricCode,
    CreatedAt: feature.createdAt,
    UpdatedAt: feature.updatedAt,
  };
}

export function grantInputFromWire(body: FeatureValueBody): GrantInput {
  return {
    ...(body.Enabled !== undefined ? { enabled: body.Enabled } : {}),
    ...(body.Limit !== undefined ? { limit: body.Limit } : {}),
    ...(body.Value !== undefined ? { value: body.Value } : {}),
  };
}

export function toFeatureValueDto(v: FeatureValueView): Static<typeof FeatureValueOut> {
  return {
    featureValueID: v.id,
    featureID: v.featureId,
    FeatureCode: v.feature.code,
    Type: v.feature.type,
    packageID: v.owner.type === 'package' ? v.owner.id : null,
    subscriptionID: v.owner.type === 'subscription' ? v.owner.id : null,
    Enabled: v.enabled,
    Limit: v.limit,
    Value: v.value,
    UpdatedAt: v.updatedAt,
  };
}

export function toEntitlementDto(e: Entitlement): Static<typeof EntitlementOut> {
  const governing = e.governing?.grant;
  return {
    featureID: e.feature.id,
    FeatureCode: e.feature.code,
    Name: e.feature.name,
    Type: e.feature.type,
    MetricCode: e.feature.metricCode,
    Allowed: governing !== undefined,
    subscriptionID: e.governing?.subscriptionId ?? null,
    Limit: governing?.limit ?? null,
    Value: governing?.value ?? null,
    Subscriptions: e.grants.map((g) => ({
      subscriptionID: g.subscriptionId,
      Source: g.source,
      Enabled: g.grant.enabled,
      Limit: g.grant.limit,
      Value: g.grant.value,
    })),
  };
}

export function toEntitlementCheckDto(c: EntitlementCheck): Static<typeof EntitlementCheckOut> {
  return {
    ...toEntitlementDto(c),
    Used: c.used,
    Remaining: c.remaining,
    PeriodStart: c.period?.start ?? null,
    PeriodEnd: c.period?.end ?? null,
  };
}

export function toConsumptionDto(c: ConsumptionAnswer): Static<typeof ConsumptionOut> {
  return {
    transaction_id: c.transactionId,
    customerID: c.customerId,
    FeatureCode: c.featureCode,
    subscriptionID: c.subscriptionId,
    Quantity: c.quantity,
    Limit: c.limit,
    Used: c.usedAfter,
    Remaining: c.remaining,
    PeriodStart: c.periodStart,
    PeriodEnd: c.periodEnd,
  };
}
