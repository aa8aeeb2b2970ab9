import { describe, expect, it } from 'vitest';
import type { TestAccount } from '../helpers/service.ts';
import { startFresh, useTestService } from '../helpers/testService.ts';
import { EVENT_RETENTION_DAYS, purgeExpiredEvents } from '../../src/modules/events/index.ts';

const t = useTestService();

async function newCustomer(account: TestAccount, name: string, requestId?: string): Promise<number> {
  const res = await account.request('POST', '/v1/customers', {
    body: { Name: name },
    ...(requestId ? { headers: { 'x-request-id': requestId } } : {}),
  });
  expect(res.status, res.text).toBe(201);
  return res.body.customerID;
}

describe('GET /v1/events', () => {
  it('returns the event a change wrote, with the object exactly as the API shows it', async () => {
    const account = await t.newAccount('Events A');
    const id = await newCustomer(account, 'Ada');
    const events = await account.request('GET', `/v1/events?resourceType=customer&resourceID=${id}`);
    expect(events.status).toBe(200);
    expect(events.body).toHaveLength(1);
    const [event] = events.body;
    expect(event.type).toBe('customer.created');
    expect(event.id).toMatch(/^evt_[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(event.accountID).toBe(account.accountId);
    expect(event.resource).toEqual({ type: 'customer', id, version: 1 });
    expect(event.data.previous).toBeUndefined();
    // The customer as GET /v1/customers/{id} shows it, with its custom field values (docs/spec-decisions.md).
    const customer = await account.request('GET', `/v1/customers/${id}`);
    expect(event.data.object).toEqual({ ...customer.body, CustomFields: [] });

    const one = await account.request('GET', `/v1/events/${event.id}`);
    expect(one.status).toBe(200);
    expect(one.body).toEqual(event);
    expect(one.headers.get('content-type')).toMatch(/^application\/json/);
  });

  it('lists newest first, pages, and filters by type patterns and by dates', async () => {
    const account = await t.newAccount('Events B');
    for (const name of ['One', 'Two', 'Three']) await newCustomer(account, name);
    // Creating the account wrote events of its own (account, API key, currency): customers' are read here.
    const all = await account.request('GET', '/v1/events?resourceType=customer');
    expect(all.body.map((e: any) => e.data.object.Name)).toEqual(['Three', 'Two', 'One']);
    const page2 = await account.request('GET', '/v1/events?resourceType=customer&page=2&page_size=2');
    expect(page2.body.map((e: any) => e.data.object.Name)).toEqual(['One']);

    for (const type of ['customer.*', '*', 'customer.created', 'invoice.paid,customer.created']) {
      const res = await account.request(
        'GET',
        `/v1/events?resourceType=customer&type=${encodeURIComponent(type)}`,
      );
      expect(res.body, type).toHaveLength(3);
    }
    expect((await account.request('GET', '/v1/events?type=customer.*')).body).toHaveLength(3);
    for (const type of ['invoice.*', 'customer.deleted', 'customer_note.*']) {
      const res = await account.request('GET', `/v1/events?type=${encodeURIComponent(type)}`);
      expect(res.body, type).toHaveLength(0);
    }

    const stamp = all.body[0].timestamp as string;
    const day = stamp.slice(0, 10);
    const customers = '/v1/events?resourceType=customer';
    expect((await account.request('GET', `${customers}&startDate=${day}&endDate=${day}`)).body).toHaveLength(
      3,
    );
    const next = new Date(Date.parse(stamp) + 86_400_000).toISOString().slice(0, 10);
    expect((await account.request('GET', `${customers}&startDate=${next}`)).body).toHaveLength(0);
    const previousDay = new Date(Date.parse(stamp) - 86_400_000).toISOString().slice(0, 10);
    expect((await account.request('GET', `${customers}&endDate=${previousDay}`)).body).toHaveLength(0);
  });

  it('refuses bad filters with a problem naming the field', async () => {
    for (const [query, field] of [
      ['type=Invoice.Paid', 'type'],
      ['type=invoice.', 'type'],
      ['type=inv*', 'type'],
      ['startDate=yesterday', 'startDate'],
      ['endDate=2026-02-30', 'endDate'],
      ['startDate=2026-03-02&endDate=2026-03-01', 'startDate'],
      ['resourceID=12', 'resourceType'],
      ['deliverySuccess=maybe', 'deliverySuccess'],
    ]) {
      const res = await t.request('GET', `/v1/events?${query}`);
      expect(res.status, query).toBeGreaterThanOrEqual(400);
      expect(res.status, query).toBeLessThan(500);
      expect(res.headers.get('content-type'), query).toMatch(/problem\+json/);
      expect(JSON.stringify(res.body), query).toContain(field);
    }
  });

  it('takes the widest dates as no bound', async () => {
    for (const query of [
      'endDate=9999-12-31T23:59:59.999Z',
      'endDate=9999-12-31',
      'startDate=0001-01-01&endDate=9999-12-31',
    ]) {
      const events = await t.request('GET', `/v1/events?${query}`);
      expect(events.status, query).toBe(200);
      const audit = await t.request('GET', `/v1/auditlog?${query}`);
      expect(audit.status, query).toBe(200);
    }
  });

  it("never shows another account's events", async () => {
    const a = await t.newAccount('Events C');
    const b = await t.newAccount('Events D');
    const id = await newCustomer(a, 'Private');
    const [event] = (await a.request('GET', '/v1/events')).body;
    expect((await b.request('GET', `/v1/events/${event.id}`)).status).toBe(404);
    expect((await b.request('GET', `/v1/events?resourceType=customer&resourceID=${id}`)).body).toEqual([]);
    expect((await b.request('GET', '/v1/events/evt_unknown')).status).toBe(404);
  });

  it('writes no event for a change that is refused', async () => {
    const account = await t.newAccount('Events E');
    const events = (await account.request('GET', '/v1/events')).body;
    const audit = (await account.request('GET', '/v1/auditlog')).body;
    const res = await account.request('POST', '/v1/customers', { body: { Name: '' } });
    expect(res.status).toBe(422);
    expect((await account.request('GET', '/v1/events')).body).toEqual(events);
    expect((await account.request('GET', '/v1/auditlog')).body).toEqual(audit);
  });
});

describe('GET /v1/auditlog', () => {
  it('names the API key, the client address, the request id and the operation of each change', async () => {
    const account = await t.newAccount('Audit A');
    const id = await newCustomer(account, 'Audited', 'req-audit-1');
    const res = await account.request('GET', '/v1/auditlog?actorType=api_key');
    expect(res.status).toBe(200);
    expect(res.body).toHaveLength(1);
    const [entry] = res.body;
    const [event] = (await account.request('GET', '/v1/events?resourceType=customer')).body;
    const keyId = Number(
      (
        await t.service.storage.db
          .selectFrom('api_keys')
          .select('id')
          .where('account_id', '=', account.accountId)
          .executeTakeFirstOrThrow()
      ).id,
    );
    expect(entry).toMatchObject({
      ActorType: 'api_key',
      apiKeyID: keyId,
      ClientAddress: '127.0.0.1',
      RequestID: 'req-audit-1',
      Operation: 'POST /v1/customers',
      eventID: event.id,
      EventType: 'customer.created',
      ResourceType: 'customer',
      ResourceID: String(id),
      Before: null,
      After: event.data.object,
    });
    expect(Number.isNaN(Date.parse(entry.Date))).toBe(false);

    const filtered = await account.request('GET', `/v1/auditlog?requestID=req-audit-1&apiKeyID=${keyId}`);
    expect(filtered.body).toHaveLength(1);
    expect((await account.request('GET', '/v1/auditlog?requestID=other')).body).toHaveLength(0);
    expect((await account.request('GET', '/v1/auditlog?eventType=customer.*')).body).toHaveLength(1);
  });

  it('cannot be changed through the API', async () => {
    for (const method of ['POST', 'PUT', 'DELETE', 'PATCH']) {
      const res = await t.request(method, '/v1/auditlog', { body: {} });
      expect([404, 405], method).toContain(res.status);
    }
    const entries = (await t.request('GET', '/v1/auditlog')).body;
    for (const entry of entries.slice(0, 1)) {
      const res = await t.request('DELETE', `/v1/auditlog/${entry.auditLogEntryID}`);
      expect([404, 405]).toContain(res.status);
    }
  });
});

describe('retention', () => {
  it(`purges events ${EVENT_RETENTION_DAYS} days after they were written, and keeps the audit log`, async () => {
    const account = await t.newAccount('Retention');
    await newCustomer(account, 'Old news');
    const count = async () => (await account.request('GET', '/v1/events?resourceType=customer')).body.length;
    const audit = (await account.request('GET', '/v1/auditlog')).body.length;
    const day = 86_400_000;
    await purgeExpiredEvents(t.service.storage.db, new Date(Date.now() + (EVENT_RETENTION_DAYS - 1) * day));
    expect(await count()).toBe(1);
    await purgeExpiredEvents(t.service.storage.db, new Date(Date.now() + (EVENT_RETENTION_DAYS + 1) * day));
    expect(await count()).toBe(0);
    expect((await account.request('GET', '/v1/auditlog')).body).toHaveLength(audit);
  });
});

describe('event ids', () => {
  it("carry the real time of a service on the system's clock, whatever another service's clock ran ahead to", async () => {
    // A service on a wall clock of its own, a day ahead, in the same process (as test files share one).
    const dayMs = 86_400_000;
    const ahead = await startFresh({ wallClock: { now: () => new Date(Date.now() + dayMs) } });
    await newCustomer(ahead, 'Ahead');
    const before = Date.now();
    const id = await newCustomer(t, 'Now');
    const [event] = (await t.request('GET', `/v1/events?resourceType=customer&resourceID=${id}`)).body;
    // The first 10 characters of a ULID are its time in milliseconds, in Crockford's base 32.
    const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
    const ms = [...event.id.slice(4, 14)].reduce(
      (sum: number, c: string) => sum * 32 + ALPHABET.indexOf(c),
      0,
    );
    expect(ms).toBeGreaterThanOrEqual(before);
    expect(ms).toBeLessThan(before + dayMs / 2);
  });
});
