import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { auditOf, eventsOf, expectEvents, firstKeyId, read } from '../helpers/resourceEvents.ts';
import { useTestService } from '../helpers/testService.ts';

// The account's own events: its creation (with its currency, test gateway and first key), settings changes
// through PUT /v1/account, and moves of a test account's clock.

const t = useTestService();

const LOGO = fs.readFileSync(path.join(import.meta.dirname, '../auth/fixtures/logo.jpg')).toString('base64');

describe('account creation', () => {
  it('announces the account, its currency, its test gateway and its first key, never the key itself', async () => {
    const account = await t.newAccount('Fresh events');
    const all = ((await read(account, '/v1/events')) as any[]).reverse();
    expect(all.map((e) => e.type)).toEqual([
      'account.created',
      'currency.added',
      'gateway.created',
      'api_key.created',
    ]);
    const [created, currency, gateway, key] = all;
    expect(created.resource).toEqual({ type: 'account', id: account.accountId, version: 1 });
    expect(created.data).toEqual({ object: await read(account, '/v1/account') });
    expect(currency.resource).toEqual({ type: 'currency', id: 'USD', version: 1 });
    expect(currency.data).toEqual({ object: (await read(account, '/v1/currencies'))[0] });
    const [testGateway] = await read(account, '/v1/gateways');
    expect(gateway.resource).toEqual({ type: 'gateway', id: testGateway.gatewayID, version: 1 });
    expect(gateway.data).toEqual({ object: testGateway });
    expect(key.resource.type).toBe('api_key');
    expect(Object.keys(key.data.object).sort()).toEqual([
      'CreatedDate',
      'KeyPrefix',
      'RevokedDate',
      'apiKeyID',
    ]);
    expect(key.data.object).toMatchObject({ apiKeyID: key.resource.id, RevokedDate: null });
    expect(account.apiKey.startsWith(key.data.object.KeyPrefix)).toBe(true);
    expect(JSON.stringify(all)).not.toContain(account.apiKey);
    // Made by the service's own code here (not through the API or the CLI): nobody to audit.
    expect(await read(account, '/v1/auditlog')).toEqual([]);
  });
});

describe('account.updated', () => {
  it('shows the changed settings with their old values, audited with key, request and operation', async () => {
    const account = await t.newAccount('Settings events');
    const original = await read(account, '/v1/account');
    const put = await account.request('PUT', '/v1/account', {
      body: { InvoiceDueDays: 14, LegalName: 'Settings Ltd', Logo: LOGO },
      headers: { 'x-request-id': 'req-account-1' },
    });
    expect(put.status, put.text).toBe(204);
    const edited = await read(account, '/v1/account');
    const same = await account.request('PUT', '/v1/account', { body: { InvoiceDueDays: 14 } });
    expect(same.status).toBe(204);
    const bad = await account.request('PUT', '/v1/account', { body: { TimeZone: 'Mars/Base' } });
    expect(bad.status).toBe(422);
    expect((await account.request('PUT', '/v1/account', { body: { Logo: null } })).status).toBe(204);
    const withoutLogo = await read(account, '/v1/account');

    const events = await expectEvents(account, 'account', account.accountId, [
      'account.created',
      'account.updated',
      'account.updated',
    ]);
    expect(events[1]!.data).toEqual({
      object: edited,
      previous: { InvoiceDueDays: original.InvoiceDueDays, LegalName: null, LogoURL: null },
    });
    expect(events[2]!.data).toEqual({ object: withoutLogo, previous: { LogoURL: '/v1/account/logo' } });
    expect(await auditOf(account, events[1]!.id)).toMatchObject({
      ActorType: 'api_key',
      apiKeyID: await firstKeyId(account),
      ClientAddress: '127.0.0.1',
      RequestID: 'req-account-1',
      Operation: 'PUT /v1/account',
      ResourceType: 'account',
      ResourceID: String(account.accountId),
      Before: { InvoiceDueDays: original.InvoiceDueDays, LegalName: null, LogoURL: null },
      After: { InvoiceDueDays: 14, LegalName: 'Settings Ltd', LogoURL: '/v1/account/logo' },
    });
  });
});

describe('test_clock.advanced', () => {
  it("is an event of the account, at the clock's new time, with the old clock as previous", async () => {
    const account = await t.newAccount('Clock events', { isTest: true });
    const before = await read(account, '/v1/account');
    const to = new Date(Date.parse(before.TestClockDate) + 86_400_000 + 60_000).toISOString();
    const moved = await account.request('POST', '/v1/test-clock/advance', {
      body: { To: to },
      headers: { 'x-request-id': 'req-clock-1' },
    });
    expect(moved.status, moved.text).toBe(200);
    const after = await read(account, '/v1/account');
    expect(after.TestClockDate).toBe(to);
    const tooEarly = await account.request('POST', '/v1/test-clock/advance', {
      body: { To: before.TestClockDate },
    });
    expect(tooEarly.status).toBe(422);
    // Moving the clock to where it is moves nothing.
    expect((await account.request('POST', '/v1/test-clock/advance', { body: { To: to } })).status).toBe(200);

    const events = await expectEvents(account, 'account', account.accountId, [
      'account.created',
      'test_clock.advanced',
    ]);
    expect(events[0]!.timestamp).toBe(new Date(before.TestClockDate).toISOString());
    expect(events[1]!.timestamp).toBe(to);
    expect(events[1]!.data).toEqual({ object: after, previous: { TestClockDate: before.TestClockDate } });
    expect(await auditOf(account, events[1]!.id)).toMatchObject({
      RequestID: 'req-clock-1',
      Operation: 'POST /v1/test-clock/advance',
    });

    const live = await t.newAccount('Live clock');
    const refused = await live.request('POST', '/v1/test-clock/advance', { body: { To: to } });
    expect(refused.status).toBe(403);
    expect((await eventsOf(live, 'account', live.accountId)).map((e) => e.type)).toEqual(['account.created']);
  });
});
