import { expect } from 'vitest';
import type { TestAccount } from './service.ts';

/** An event as GET /v1/events returns it. */
export interface WireEvent {
  id: string;
  type: string;
  timestamp: string;
  accountID: number;
  resource: { type: string; id: number | string; version: number };
  data: { object: Record<string, any>; previous?: Record<string, any> };
}

/** The events of one resource, oldest first (the API lists newest first). */
export async function eventsOf(
  account: TestAccount,
  type: string,
  id: number | string,
): Promise<WireEvent[]> {
  const res = await account.request(
    'GET',
    `/v1/events?resourceType=${type}&resourceID=${encodeURIComponent(String(id))}&page_size=100`,
  );
  expect(res.status, res.text).toBe(200);
  return (res.body as WireEvent[]).reverse();
}

/**
 * Checks that the resource has exactly these events, oldest first, with versions counting up from 1 by one per
 * event, in the account; returns them.
 */
export async function expectEvents(
  account: TestAccount,
  type: string,
  id: number | string,
  types: string[],
): Promise<WireEvent[]> {
  const events = await eventsOf(account, type, id);
  expect(events.map((e) => e.type)).toEqual(types);
  events.forEach((event, i) => {
    expect(event.resource).toEqual({ type, id, version: i + 1 });
    expect(event.accountID).toBe(account.accountId);
  });
  return events;
}

/** The body of a GET that must succeed. */
/** Calls the API and expects a success (2xx); returns the body. */
export async function ok(
  account: TestAccount,
  method: string,
  path: string,
  body?: unknown,
  requestId?: string,
): Promise<any> {
  const res = await account.request(method, path, {
    ...(body === undefined ? {} : { body }),
    ...(requestId ? { headers: { 'x-request-id': requestId } } : {}),
  });
  expect(res.status, `${method} ${path}: ${res.text}`).toBeLessThan(300);
  return res.body;
}

export async function read(account: TestAccount, path: string): Promise<any> {
  const res = await account.request('GET', path);
  expect(res.status, res.text).toBe(200);
  return res.body;
}

/** The audit entry of an event. */
export async function auditOf(account: TestAccount, eventId: string): Promise<Record<string, any>> {
  const res = await account.request('GET', `/v1/auditlog?page_size=100`);
  expect(res.status, res.text).toBe(200);
  const entry = (res.body as Record<string, any>[]).find((e) => e.eventID === eventId);
  expect(entry, `no audit entry for ${eventId}`).toBeDefined();
  return entry!;
}

/** The id of the account's first API key (the one its test requests are made with), from its creation's event. */
export async function firstKeyId(account: TestAccount): Promise<number> {
  const res = await account.request('GET', '/v1/events?type=api_key.created&page_size=100');
  expect(res.status, res.text).toBe(200);
  const oldest = (res.body as WireEvent[]).at(-1);
  expect(oldest, 'no api_key.created event').toBeDefined();
  return Number(oldest!.resource.id);
}
