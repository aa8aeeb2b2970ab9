import type { AuditRecord } from './eventReads.repository.ts';

/** An audit log entry as GET /v1/auditlog shows it. */
export interface AuditEntryDto {
  auditLogEntryID: number;
  Date: string;
  ActorType: 'api_key' | 'cli' | 'widget';
  apiKeyID: number | null;
  ClientAddress: string | null;
  RequestID: string | null;
  Operation: string;
  eventID: string;
  EventType: string;
  ResourceType: string;
  ResourceID: string;
  Before: Record<string, unknown> | null;
  After: Record<string, unknown> | null;
}

export function toAuditEntryDto(entry: AuditRecord): AuditEntryDto {
  return {
    auditLogEntryID: entry.id,
    Date: entry.recordedAt,
    ActorType: entry.actorType,
    apiKeyID: entry.apiKeyId,
    ClientAddress: entry.clientAddress,
    RequestID: entry.requestId,
    Operation: entry.operation,
    eventID: entry.eventId,
    EventType: entry.eventType,
    ResourceType: entry.resourceType,
    ResourceID: entry.resourceId,
    Before: entry.before,
    After: entry.after,
  };
}
