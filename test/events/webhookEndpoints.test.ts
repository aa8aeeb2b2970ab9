import { describe, expect, it } from 'vitest';
import type { ApiResponse, TestAccount } from '../helpers/service.ts';
import { movableClock } from '../helpers/billing.ts';
import { accountContext } from '../helpers/context.ts';
import { useTestService } from '../helpers/testService.ts';
import { disableEndpoint, knownEventTypes } from '../../src/modules/events/index.ts';
import { modulePorts } from '../../src/modulePorts.ts';
import { DECLARED_EVENT_TYPES } from './eventCatalogue.ts';

// Webhook endpoints through the API (docs/webhooks.md, "Webhook endpoints"), on the service's default URL policy
// (docs/design/webhooks.md, "Endpoint addresses"): https only, no internal addresses. The service clock stands still
// unless a test moves it, so dates are exact. The tests share the main account, which makes more endpoints than the
// default cap allows (the cap: webhookEndpointLimit.test.ts).
const start = new Date();
start.setUTCMilliseconds(0);
const clock = movableClock(start.toISOString());

const t = useTestService({ clock, env: { WEBHOOK_MAX_ENDPOINTS_PER_ACCOUNT: '1000' } });

const URL_A = 'https://hooks.analytical-engines.example/billing';
const URL_B = 'https://hooks.analytical-engines.example/v2/billing';
const ENDPOINT_KEYS = [
  'CreatedDate',
  'Description',
  'DisabledReason',
  'EnabledEvents',
  'Status',
  'UpdatedDate',
  'Url',
  'webhookEndpointID',
];

const fieldsOf = (res: ApiResponse): string[] =>
  (res.body.fields ?? []).map((f: { field: string }) => f.field);

async function createEndpoint(as: TestAccount = t, body: Record<string, unknown> = {}) {
  const res = await as.request('POST', '/v1/webhookendpoints', {
    body: { Url: URL_A, EnabledEvents: ['invoice.*', 'payment.reversed'], ...body },
  });
  expect(res.status, res.text).toBe(201);
  return res.body as Record<string, any> & { webhookEndpointID: number; Secret: string };
}

async function eventsOf(as: TestAccount, id: number): Promise<{ body: any[]; text: string }> {
  const res = await as.request('GET', `/v1/events?resourceType=webhook_endpoint&resourceID=${id}`);
  expect(res.status, res.text).toBe(200);
  return { body: res.body, text: res.text };
}

async function storedRow(id: number) {
  return t.service.storage.db
    .selectFrom('webhook_endpoints')
    .selectAll()
    .where('id', '=', id)
    .executeTakeFirstOrThrow();
}

function expectSecretShape(secret: string): void {
  expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
  expect(Buffer.from(secret.slice('whsec_'.length), 'base64')).toHaveLength(32);
}

describe('creating an endpoint', () => {
  it('answers 201 with the endpoint and its secret, which no read shows again', async () => {
    const created = await createEndpoint(t, { Description: '  Bookkeeping sync ' });
    expect(created).toEqual({
      webhookEndpointID: expect.any(Number),
      Url: URL_A,
      Description: 'Bookkeeping sync',
      EnabledEvents: ['invoice.*', 'payment.reversed'],
      Status: 'enabled',
      DisabledReason: null,
      Secret: expect.any(String),
      CreatedDate: start.toISOString(),
      UpdatedDate: start.toISOString(),
    });
    expectSecretShape(created.Secret);

    const { Secret, ...shown } = created;
    const read = await t.request('GET', `/v1/webhookendpoints/${created.webhookEndpointID}`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(shown);
    expect(read.text).not.toContain(Secret);
    const list = await t.request('GET', '/v1/webhookendpoints?page_size=200');
    expect(list.body).toContainEqual(shown);
    expect(list.text).not.toContain(Secret);
    for (const endpoint of list.body) expect(Object.keys(endpoint).sort()).toEqual(ENDPOINT_KEYS);
  });

  it('stores the secret sealed, never in clear', async () => {
    const created = await createEndpoint();
    const row = await storedRow(created.webhookEndpointID);
    expect(row.secret_sealed).not.toContain(created.Secret.slice('whsec_'.length));
    expect(t.service.secrets.open(row.secret_sealed)).toBe(created.Secret);
  });

  it('gives every endpoint its own secret', async () => {
    const secrets = new Set<string>();
    for (let i = 0; i < 5; i++) secrets.add((await createEndpoint()).Secret);
    expect(secrets.size).toBe(5);
  });

  it('creates the endpoint disabled with isActive false, and takes a null Description', async () => {
    const created = await createEndpoint(t, { isActive: false, Description: null });
    expect(created.Status).toBe('disabled');
    expect(created.Description).toBeNull();
    expect(created.DisabledReason).toBeNull();
  });

  it('keeps each pattern once, in the order given, wildcards included', async () => {
    const created = await createEndpoint(t, {
      EnabledEvents: [
        'invoice.*',
        'payment.reversed',
        'invoice.*',
        '*',
        'payment.reversed',
        'customer_note.created',
      ],
    });
    expect(created.EnabledEvents).toEqual(['invoice.*', 'payment.reversed', '*', 'customer_note.created']);
  });

  it.each([
    [{ EnabledEvents: [] }, 'EnabledEvents'],
    [{ EnabledEvents: 'invoice.*' }, 'EnabledEvents'],
    [{ EnabledEvents: ['Invoice.Paid'] }, 'EnabledEvents[0]'],
    [{ EnabledEvents: ['invoice.*', 'invoice*'] }, 'EnabledEvents[1]'],
    [{ EnabledEvents: ['invoice.paid', 'invoice'] }, 'EnabledEvents[1]'],
    [{ EnabledEvents: ['*.paid'] }, 'EnabledEvents[0]'],
    [{ EnabledEvents: [''] }, 'EnabledEvents[0]'],
    [{ EnabledEvents: ['invoice.payed'] }, 'EnabledEvents[0]'],
    [{ EnabledEvents: ['invoice.*', 'nothing.*'] }, 'EnabledEvents[1]'],
    [{ EnabledEvents: undefined }, 'EnabledEvents'],
    [{ Url: undefined }, 'Url'],
    [{ Url: '' }, 'Url'],
    [{ Url: 'hooks.example.com/billing' }, 'Url'],
    [{ Url: 'http://hooks.analytical-engines.example/billing' }, 'Url'],
    [{ Url: 'https://ada:secret@hooks.analytical-engines.example/billing' }, 'Url'],
    [{ Url: 'https://127.0.0.1/hook' }, 'Url'],
    [{ Url: 'https://10.1.2.3/hook' }, 'Url'],
    [{ Url: 'https://169.254.169.254/latest' }, 'Url'],
    [{ Url: 'https://168.63.129.16/machine' }, 'Url'],
    [{ Url: 'https://[64:ff9b:1::808:808]/hook' }, 'Url'],
    [{ Url: 'https://[::1]/hook' }, 'Url'],
    [{ Url: 'https://[::ffff:192.168.0.1]/hook' }, 'Url'],
    [{ Url: 'https://localhost/hook' }, 'Url'],
    [{ Url: `https://hooks.example.com/${'a'.repeat(2030)}` }, 'Url'],
    [{ Description: 'x'.repeat(501) }, 'Description'],
    [{ isActive: 'yes' }, 'isActive'],
  ])('answers 422 naming the field for %j', async (override, field) => {
    const body: Record<string, unknown> = { Url: URL_A, EnabledEvents: ['invoice.*'], ...override };
    for (const key of Object.keys(body)) if (body[key] === undefined) delete body[key];
    const before = (await t.request('GET', '/v1/webhookendpoints?page_size=200')).body.length;
    const res = await t.request('POST', '/v1/webhookendpoints', { body });
    expect(res.status, res.text).toBe(422);
    expect(fieldsOf(res)).toContain(field);
    expect((await t.request('GET', '/v1/webhookendpoints?page_size=200')).body.length).toBe(before);
  });

  it('writes webhook_endpoint.created with the endpoint as a read shows it, and no secret anywhere', async () => {
    const created = await createEndpoint();
    const { Secret, ...shown } = created;
    const events = await eventsOf(t, created.webhookEndpointID);
    expect(events.body).toHaveLength(1);
    expect(events.body[0]).toMatchObject({
      type: 'webhook_endpoint.created',
      resource: { type: 'webhook_endpoint', id: created.webhookEndpointID, version: 1 },
      data: { object: shown },
    });
    const stored = await t.service.storage.db
      .selectFrom('events')
      .select('payload')
      .where('resource_type', '=', 'webhook_endpoint')
      .where('resource_id', '=', String(created.webhookEndpointID))
      .execute();
    const row = await storedRow(created.webhookEndpointID);
    for (const text of [events.text, ...stored.map((s) => s.payload)]) {
      expect(text).not.toContain(Secret);
      expect(text).not.toContain(Secret.slice('whsec_'.length));
      expect(text).not.toContain(row.secret_sealed);
    }
    const audit = await t.request(
      'GET',
      `/v1/auditlog?resourceType=webhook_endpoint&resourceID=${created.webhookEndpointID}`,
    );
    expect(audit.status, audit.text).toBe(200);
    expect(audit.body).toHaveLength(1);
    expect(audit.body[0].Operation).toBe('POST /v1/webhookendpoints');
    expect(audit.text).not.toContain(Secret);
  });
});

describe('the event types an endpoint subscribes to', () => {
  const problemOf = async (method: 'POST' | 'PUT', path: string, EnabledEvents: string[]) => {
    const body = method === 'POST' ? { Url: URL_A, EnabledEvents } : { EnabledEvents };
    const res = await t.request(method, path, { body });
    expect(res.status, res.text).toBe(422);
    expect(res.headers.get('content-type')).toContain('application/problem+json');
    return res.body.fields as { field: string; message: string }[];
  };

  it('are those of the event catalogue, each type and each prefix wildcard of one accepted', async () => {
    expect([...knownEventTypes(modulePorts())].sort()).toEqual([...new Set(DECLARED_EVENT_TYPES)].sort());
    const wildcards = new Set(DECLARED_EVENT_TYPES.map((type) => `${type.split('.')[0]}.*`));
    const patterns = [...new Set(DECLARED_EVENT_TYPES)].concat([...wildcards], ['*']);
    for (let i = 0; i < patterns.length; i += 100) {
      const created = await createEndpoint(t, { EnabledEvents: patterns.slice(i, i + 100) });
      expect(created.EnabledEvents).toEqual(patterns.slice(i, i + 100));
    }
  });

  it('refuses a misspelt type or wildcard on create, naming the nearest known one', async () => {
    const before = (await t.request('GET', '/v1/webhookendpoints?page_size=200')).body.length;
    expect(
      await problemOf('POST', '/v1/webhookendpoints', ['invoice.*', 'invoice.payed', 'subscription.*']),
    ).toEqual([
      {
        field: 'EnabledEvents[1]',
        message: 'invoice.payed is not an event type; did you mean invoice.paid?',
      },
    ]);
    expect(await problemOf('POST', '/v1/webhookendpoints', ['invoce.*', 'customer.cretaed'])).toEqual([
      { field: 'EnabledEvents[0]', message: 'invoce.* matches no event type; did you mean invoice.*?' },
      {
        field: 'EnabledEvents[1]',
        message: 'customer.cretaed is not an event type; did you mean customer.created?',
      },
    ]);
    // Nothing near: the message says only what is wrong.
    expect(await problemOf('POST', '/v1/webhookendpoints', ['shipment.*', 'shipment.sent'])).toEqual([
      { field: 'EnabledEvents[0]', message: 'shipment.* matches no event type' },
      { field: 'EnabledEvents[1]', message: 'shipment.sent is not an event type' },
    ]);
    // A pattern in the wrong case is not a pattern, and the right one is offered.
    const [wrongCase] = await problemOf('POST', '/v1/webhookendpoints', ['Invoice.Paid']);
    expect(wrongCase).toEqual({
      field: 'EnabledEvents[0]',
      message:
        'must be an event type (invoice.paid), a prefix wildcard (invoice.*) or *; did you mean invoice.paid?',
    });
    expect((await t.request('GET', '/v1/webhookendpoints?page_size=200')).body.length).toBe(before);
  });

  it('refuses a misspelt type or wildcard on edit, keeping the subscription', async () => {
    const created = await createEndpoint(t, { EnabledEvents: ['invoice.paid'] });
    const path = `/v1/webhookendpoints/${created.webhookEndpointID}`;
    expect(await problemOf('PUT', path, ['invoice.paid', 'payment.refundd', 'batchs.*'])).toEqual([
      {
        field: 'EnabledEvents[1]',
        message: 'payment.refundd is not an event type; did you mean payment.refunded?',
      },
      { field: 'EnabledEvents[2]', message: 'batchs.* matches no event type; did you mean batch.*?' },
    ]);
    expect((await t.request('GET', path)).body.EnabledEvents).toEqual(['invoice.paid']);
    const events = await eventsOf(t, created.webhookEndpointID);
    expect(events.body.map((e) => e.type)).toEqual(['webhook_endpoint.created']);
  });
});

describe('editing an endpoint', () => {
  it('answers 204 and changes the fields given, leaving the others', async () => {
    const created = await createEndpoint(t, { Description: 'First' });
    const id = created.webhookEndpointID;
    clock.set(new Date(start.getTime() + 60_000).toISOString());
    try {
      const res = await t.request('PUT', `/v1/webhookendpoints/${id}`, {
        body: { Url: URL_B, EnabledEvents: ['customer.*', 'customer.*'] },
      });
      expect(res.status, res.text).toBe(204);
      expect(res.text).toBe('');
    } finally {
      clock.set(start.toISOString());
    }
    const read = await t.request('GET', `/v1/webhookendpoints/${id}`);
    expect(read.body).toEqual({
      ...created,
      Secret: undefined,
      Url: URL_B,
      EnabledEvents: ['customer.*'],
      Description: 'First',
      UpdatedDate: new Date(start.getTime() + 60_000).toISOString(),
    });

    expect(
      (await t.request('PUT', `/v1/webhookendpoints/${id}`, { body: { Description: null } })).status,
    ).toBe(204);
    expect((await t.request('GET', `/v1/webhookendpoints/${id}`)).body.Description).toBeNull();
  });

  it('writes webhook_endpoint.updated with the changed fields before, and nothing for an edit that changes nothing', async () => {
    const created = await createEndpoint();
    const id = created.webhookEndpointID;
    await t.request('PUT', `/v1/webhookendpoints/${id}`, { body: { EnabledEvents: ['*'] } });
    await t.request('PUT', `/v1/webhookendpoints/${id}`, { body: { EnabledEvents: ['*'], Url: URL_A } });
    await t.request('PUT', `/v1/webhookendpoints/${id}`, {});
    const events = await eventsOf(t, id);
    expect(events.body.map((e) => e.type)).toEqual(['webhook_endpoint.updated', 'webhook_endpoint.created']);
    expect(events.body[0].data.previous).toEqual({ EnabledEvents: ['invoice.*', 'payment.reversed'] });
    expect(events.body[0].data.object.EnabledEvents).toEqual(['*']);
    expect(events.body[0].resource.version).toBe(2);
    expect(events.text).not.toContain(created.Secret);
  });

  it.each([
    [{ Url: 'http://hooks.analytical-engines.example/' }, 'Url'],
    [{ Url: 'https://192.168.10.10/' }, 'Url'],
    [{ Url: 'https://u:p@hooks.analytical-engines.example/' }, 'Url'],
    [{ EnabledEvents: [] }, 'EnabledEvents'],
    [{ EnabledEvents: ['invoice.*', 'INVOICE.paid'] }, 'EnabledEvents[1]'],
    [{ EnabledEvents: ['invoice.*', 'invoice.payed'] }, 'EnabledEvents[1]'],
    [{ EnabledEvents: ['invoce.*'] }, 'EnabledEvents[0]'],
    [{ Status: 'paused' }, 'Status'],
    [{ Description: 'x'.repeat(501) }, 'Description'],
  ])('answers 422 naming the field for %j, changing nothing', async (body, field) => {
    const created = await createEndpoint();
    const res = await t.request('PUT', `/v1/webhookendpoints/${created.webhookEndpointID}`, { body });
    expect(res.status, res.text).toBe(422);
    expect(fieldsOf(res)).toContain(field);
    const { Secret: _secret, ...shown } = created;
    expect((await t.request('GET', `/v1/webhookendpoints/${created.webhookEndpointID}`)).body).toEqual(shown);
  });

  it('disables by hand (webhook_endpoint.disabled, no reason) and enables again', async () => {
    const { webhookEndpointID: id } = await createEndpoint();
    expect(
      (await t.request('PUT', `/v1/webhookendpoints/${id}`, { body: { Status: 'disabled' } })).status,
    ).toBe(204);
    const disabled = await t.request('GET', `/v1/webhookendpoints/${id}`);
    expect(disabled.body).toMatchObject({ Status: 'disabled', DisabledReason: null });
    const types = (await eventsOf(t, id)).body.map((e) => e.type);
    expect(types.slice(0, 2).sort()).toEqual(['webhook_endpoint.disabled', 'webhook_endpoint.updated']);

    expect(
      (await t.request('PUT', `/v1/webhookendpoints/${id}`, { body: { Status: 'enabled' } })).status,
    ).toBe(204);
    expect((await t.request('GET', `/v1/webhookendpoints/${id}`)).body.Status).toBe('enabled');
  });

  it('clears the reason and the failure clock when an endpoint the service disabled is enabled again', async () => {
    const { webhookEndpointID: id, Secret } = await createEndpoint();
    const failingSince = new Date(start.getTime() - 5 * 86_400_000).toISOString();
    await t.service.storage.db
      .updateTable('webhook_endpoints')
      .set({ failing_since: failingSince })
      .where('id', '=', id)
      .execute();
    const ctx = await accountContext(t, t.accountId, clock);
    expect(await disableEndpoint(ctx, id, `failing since ${failingSince}`)).toBe(true);
    expect(await disableEndpoint(ctx, id, 'again')).toBe(false);

    const disabled = await t.request('GET', `/v1/webhookendpoints/${id}`);
    expect(disabled.body).toMatchObject({
      Status: 'disabled',
      DisabledReason: `failing since ${failingSince}`,
    });
    const events = await eventsOf(t, id);
    const lifecycle = events.body.find((e) => e.type === 'webhook_endpoint.disabled');
    expect(lifecycle.data.object).toEqual(disabled.body);
    expect(lifecycle.data.previous).toEqual({ Status: 'enabled', DisabledReason: null });
    expect(events.body.filter((e) => e.type === 'webhook_endpoint.disabled')).toHaveLength(1);
    expect(events.text).not.toContain(Secret);

    expect(
      (await t.request('PUT', `/v1/webhookendpoints/${id}`, { body: { Status: 'enabled' } })).status,
    ).toBe(204);
    expect((await t.request('GET', `/v1/webhookendpoints/${id}`)).body).toMatchObject({
      Status: 'enabled',
      DisabledReason: null,
    });
    expect((await storedRow(id)).failing_since).toBeNull();
  });
});

describe('deleting an endpoint', () => {
  it('answers 204, deletes its deliveries with it and writes webhook_endpoint.deleted with the last object', async () => {
    const created = await createEndpoint(t, { isActive: false });
    const id = created.webhookEndpointID;
    expect((await t.request('POST', `/v1/webhookendpoints/${id}/test`)).status).toBe(202);
    const deliveries = () =>
      t.service.storage.db
        .selectFrom('webhook_deliveries')
        .select('id')
        .where('endpoint_id', '=', id)
        .execute();
    expect(await deliveries()).toHaveLength(1);
    const shown = (await t.request('GET', `/v1/webhookendpoints/${id}`)).body;

    const res = await t.request('DELETE', `/v1/webhookendpoints/${id}`);
    expect(res.status).toBe(204);
    expect((await t.request('GET', `/v1/webhookendpoints/${id}`)).status).toBe(404);
    expect(await deliveries()).toHaveLength(0);
    expect((await t.request('DELETE', `/v1/webhookendpoints/${id}`)).status).toBe(404);

    const events = await eventsOf(t, id);
    expect(events.body[0]).toMatchObject({ type: 'webhook_endpoint.deleted', data: { object: shown } });
    expect(events.text).not.toContain(created.Secret);
  });
});

describe('rotating the secret', () => {
  const db = () => t.service.storage.db;
  const signing = async (id: number, at: number) => {
    const { endpointSigningSecrets } = await import('../../src/modules/events/index.ts');
    const row = await storedRow(id);
    const endpoint = {
      secretSealed: row.secret_sealed,
      previousSecretSealed: row.previous_secret_sealed,
      previousSecretExpiresAt: row.previous_secret_expires_at,
    };
    return endpointSigningSecrets(t.service, endpoint, new Date(at));
  };

  it('returns a new secret once, keeps the old one signing for a day by default, then drops it', async () => {
    const created = await createEndpoint();
    const id = created.webhookEndpointID;
    const res = await t.request('POST', `/v1/webhookendpoints/${id}/rotatesecret`);
    expect(res.status, res.text).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['PreviousSecretExpiresAt', 'Secret']);
    expectSecretShape(res.body.Secret);
    expect(res.body.Secret).not.toBe(created.Secret);
    // 86 400 s after the service clock's now.
    const expiresAt = start.getTime() + 86_400_000;
    expect(res.body.PreviousSecretExpiresAt).toBe(new Date(expiresAt).toISOString());

    expect(await signing(id, start.getTime())).toEqual([res.body.Secret, created.Secret]);
    expect(await signing(id, expiresAt - 1)).toEqual([res.body.Secret, created.Secret]);
    expect(await signing(id, expiresAt)).toEqual([res.body.Secret]);

    const read = await t.request('GET', `/v1/webhookendpoints/${id}`);
    expect(read.text).not.toContain(res.body.Secret);
    expect(read.text).not.toContain(created.Secret);
  });

  it('takes PreviousSecretExpiresIn in seconds, 0 ending the old secret at once', async () => {
    const { webhookEndpointID: id } = await createEndpoint();
    const week = await t.request('POST', `/v1/webhookendpoints/${id}/rotatesecret`, {
      body: { PreviousSecretExpiresIn: 604_800 },
    });
    expect(week.body.PreviousSecretExpiresAt).toBe(new Date(start.getTime() + 604_800_000).toISOString());
    const now = await t.request('POST', `/v1/webhookendpoints/${id}/rotatesecret`, {
      body: { PreviousSecretExpiresIn: 0 },
    });
    expect(now.status).toBe(200);
    expect(now.body.PreviousSecretExpiresAt).toBe(start.toISOString());
    expect(await signing(id, start.getTime())).toEqual([now.body.Secret]);
    const row = await storedRow(id);
    expect(row.previous_secret_sealed).toBeNull();
  });

  it('drops the older secret when a second rotation comes inside the window', async () => {
    const created = await createEndpoint();
    const id = created.webhookEndpointID;
    const first = await t.request('POST', `/v1/webhookendpoints/${id}/rotatesecret`, {
      body: { PreviousSecretExpiresIn: 3600 },
    });
    clock.set(new Date(start.getTime() + 600_000).toISOString());
    try {
      const second = await t.request('POST', `/v1/webhookendpoints/${id}/rotatesecret`, {
        body: { PreviousSecretExpiresIn: 120 },
      });
      // The window restarts from the second rotation: 10 min + 120 s.
      expect(second.body.PreviousSecretExpiresAt).toBe(new Date(start.getTime() + 720_000).toISOString());
      expect(await signing(id, start.getTime() + 600_000)).toEqual([second.body.Secret, first.body.Secret]);
      expect(await signing(id, start.getTime() + 720_000)).toEqual([second.body.Secret]);
      expect(await signing(id, start.getTime() + 600_000)).not.toContain(created.Secret);
    } finally {
      clock.set(start.toISOString());
    }
    const stored = await db()
      .selectFrom('webhook_endpoints')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    expect(t.service.secrets.open(stored.previous_secret_sealed!)).toBe(first.body.Secret);
  });

  it("times the window on the service's clock, not a test account's test clock", async () => {
    const account = await t.newAccount('Webhooks test clock', { isTest: true });
    const tenDaysOn = new Date(start.getTime() + 10 * 86_400_000).toISOString();
    const advanced = await account.request('POST', '/v1/test-clock/advance', { body: { To: tenDaysOn } });
    expect(advanced.status, advanced.text).toBe(200);
    const created = await createEndpoint(account);
    // Business times (CreatedDate) follow the test clock; deliveries and their signing keys run on real time.
    expect(created.CreatedDate).toBe(tenDaysOn);
    const before = Date.now();
    const res = await account.request(
      'POST',
      `/v1/webhookendpoints/${created.webhookEndpointID}/rotatesecret`,
      {
        body: { PreviousSecretExpiresIn: 60 },
      },
    );
    const expiresAt = Date.parse(res.body.PreviousSecretExpiresAt);
    expect(expiresAt).toBeGreaterThanOrEqual(before + 60_000);
    expect(expiresAt).toBeLessThanOrEqual(Date.now() + 60_000);
  });

  it.each([-1, 604_801, 1.5, 'a day'])('answers 422 for PreviousSecretExpiresIn %j', async (value) => {
    const { webhookEndpointID: id } = await createEndpoint();
    const before = await storedRow(id);
    const res = await t.request('POST', `/v1/webhookendpoints/${id}/rotatesecret`, {
      body: { PreviousSecretExpiresIn: value },
    });
    expect(res.status, res.text).toBe(422);
    expect(fieldsOf(res)).toEqual(['PreviousSecretExpiresIn']);
    expect((await storedRow(id)).secret_sealed).toBe(before.secret_sealed);
  });

  it('writes webhook_endpoint.secret_rotated, audited, with neither secret in it', async () => {
    const created = await createEndpoint();
    const id = created.webhookEndpointID;
    clock.set(new Date(start.getTime() + 1000).toISOString());
    let rotated: ApiResponse;
    try {
      rotated = await t.request('POST', `/v1/webhookendpoints/${id}/rotatesecret`);
    } finally {
      clock.set(start.toISOString());
    }
    const events = await eventsOf(t, id);
    expect(events.body[0]).toMatchObject({
      type: 'webhook_endpoint.secret_rotated',
      data: { previous: { UpdatedDate: start.toISOString() } },
    });
    const audit = await t.request('GET', `/v1/auditlog?resourceType=webhook_endpoint&resourceID=${id}`);
    expect(audit.body.map((e: any) => e.EventType)).toEqual([
      'webhook_endpoint.secret_rotated',
      'webhook_endpoint.created',
    ]);
    for (const text of [events.text, audit.text]) {
      expect(text).not.toContain(created.Secret);
      expect(text).not.toContain(rotated.body.Secret);
    }
  });
});

describe("another account's endpoints", () => {
  it('are 404 on every route and absent from the list', async () => {
    const other = await t.newAccount('Webhooks other');
    const theirs = await createEndpoint(other);
    const id = theirs.webhookEndpointID;
    const calls: [string, string, unknown?][] = [
      ['GET', `/v1/webhookendpoints/${id}`],
      ['PUT', `/v1/webhookendpoints/${id}`, { Description: 'mine now' }],
      ['DELETE', `/v1/webhookendpoints/${id}`],
      ['POST', `/v1/webhookendpoints/${id}/rotatesecret`, {}],
      ['POST', `/v1/webhookendpoints/${id}/test`],
      ['GET', `/v1/webhookendpoints/${id}/deliveries`],
      ['POST', `/v1/webhookendpoints/${id}/recover`, { Since: '2020-01-01' }],
    ];
    for (const [method, path, body] of calls) {
      const res = await t.request(method, path, body === undefined ? {} : { body });
      expect(res.status, `${method} ${path}: ${res.text}`).toBe(404);
      expect(res.body.code).toBe('webhook_endpoint_not_found');
    }
    const list = await t.request('GET', '/v1/webhookendpoints?page_size=200');
    expect(list.body.map((e: any) => e.webhookEndpointID)).not.toContain(id);
    const { Secret: _secret, ...shown } = theirs;
    expect((await other.request('GET', `/v1/webhookendpoints/${id}`)).body).toEqual(shown);
  });

  it('lists only the own endpoints, in creation order, paged', async () => {
    const account = await t.newAccount('Webhooks paging');
    const ids = [];
    for (let i = 0; i < 3; i++) ids.push((await createEndpoint(account)).webhookEndpointID);
    const all = await account.request('GET', '/v1/webhookendpoints');
    expect(all.body.map((e: any) => e.webhookEndpointID)).toEqual(ids);
    const page2 = await account.request('GET', '/v1/webhookendpoints?page=2&page_size=2');
    expect(page2.body.map((e: any) => e.webhookEndpointID)).toEqual([ids[2]]);
  });
});

describe('Idempotency-Key on secrets', () => {
  it('keeps the response of a create sealed at rest, and replays the same secret', async () => {
    const key = 'endpoint-create-1';
    const body = { Url: URL_A, EnabledEvents: ['*'] };
    const first = await t.request('POST', '/v1/webhookendpoints', {
      body,
      headers: { 'idempotency-key': key },
    });
    expect(first.status).toBe(201);
    const stored = await t.service.storage.db
      .selectFrom('idempotency_keys')
      .select('response_body')
      .where('idempotency_key', '=', key)
      .executeTakeFirstOrThrow();
    expect(stored.response_body).not.toContain('whsec_');
    expect(stored.response_body).not.toContain(first.body.Secret.slice(6));
    const replay = await t.request('POST', '/v1/webhookendpoints', {
      body,
      headers: { 'idempotency-key': key },
    });
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body).toEqual(first.body);
  });
});
