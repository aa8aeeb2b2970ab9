import type { UsageEvent, UsageEventOutcome } from './usageEvent.ts';
import type { SentUsageEvent } from './usageEventSending.service.ts';
import type { UsageEventIn, UsageEventOutcomeOut, UsageEventOut } from './usageEvents.schemas.ts';

export function sentUsageEventFromWire(body: UsageEventIn): SentUsageEvent {
  const byId = body.customerID !== undefined;
  const byReference = body.CustomerReference !== undefined;
  return {
    transactionId: body.transaction_id,
    customer:
      byId && byReference
        ? 'ambiguous'
        : byId
          ? { id: body.customerID! }
          : byReference
            ? { reference: body.CustomerReference! }
            : undefined,
    subscriptionId: body.subscriptionID ?? null,
    code: body.code,
    timestamp: body.timestamp,
    properties: body.properties ?? {},
  };
}

export function toUsageEventDto(event: UsageEvent, code: string): UsageEventOut {
  return {
    usageEventID: event.id,
    transaction_id: event.transactionId,
    customerID: event.customerId,
    subscriptionID: event.subscriptionId,
    code,
    timestamp: event.occurredAt,
    properties: event.properties,
    isCounted: event.counted,
    ReceivedAt: event.receivedAt,
  };
}

export function toOutcomeDto(outcome: UsageEventOutcome, transactionId: string): UsageEventOutcomeOut {
  return outcome.status === 'refused'
    ? { Status: 'refused', transaction_id: transactionId, Field: outcome.field, Detail: outcome.detail }
    : { Status: outcome.status, transaction_id: transactionId, usageEventID: outcome.eventId };
}

/** The CSV export's columns, in order (docs/usage.md, "Sending events"). */
export const CSV_HEADER = [
  'usageEventID',
  'transaction_id',
  'customerID',
  'subscriptionID',
  'code',
  'timestamp',
  'isCounted',
  'ReceivedAt',
  'properties',
];

/**
 * One CSV field (RFC 4180): quoted when it holds a comma, quote or line break. A text starting with = + - @ is
 * prefixed with ' so that a spreadsheet does not run it as a formula (OWASP, "CSV injection").
 */
function csvField(value: string): string {
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

export function toCsvLine(fields: readonly string[]): string {
  return `${fields.map(csvField).join(',')}\r\n`;
}

export function toUsageEventCsvLine(event: UsageEvent, code: string): string {
  return toCsvLine([
    String(event.id),
    event.transactionId,
    String(event.customerId),
    event.subscriptionId === null ? '' : String(event.subscriptionId),
    code,
    event.occurredAt,
    String(event.counted),
    event.receivedAt,
    JSON.stringify(event.properties),
  ]);
}
