import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { useTestService } from '../helpers/testService.ts';

const t = useTestService();

const CUSTOMER = { Name: 'Ada', LastName: 'Lovelace', Email: 'ada@example.com' };

describe('authentication', () => {
  it('answers 401 with a challenge naming Basic and Bearer when no credentials are sent', async () => {
    const res = await t.request('GET', '/v1/customers', { auth: false });
    expect(res.status).toBe(401);
    expect(res.headers.get('content-type')).toContain('application/problem+json');
    expect(res.headers.get('www-authenticate')).toMatch(/Basic realm=.*Bearer realm=/);
    expect(res.body.code).toBe('credentials_required');
    expect(res.body.Errors[0].Message).toBeTruthy();
  });

  it('accepts HTTP Basic with the account id and key, and Bearer with the key', async () => {
    expect((await t.request('GET', '/v1/customers')).status).toBe(200);
    expect((await t.request('GET', '/v1/customers', { auth: { bearer: t.apiKey } })).status).toBe(200);
  });

  it('refuses an unknown key, a malformed header and a key presented under another account id', async () => {
    const other = await t.newAccount();
    for (const auth of [
      { bearer: 'bk_not-a-key' },
      { accountId: t.accountId, apiKey: 'bk_wrong' },
      { accountId: other.accountId, apiKey: t.apiKey },
    ]) {
      const res = await t.request('GET', '/v1/customers', { auth });
      expect(res.status).toBe(401);
      expect(res.body.code).toBe('invalid_credentials');
    }
    for (const header of [
      'Basic',
      'Basic !!!',
      'Basic ' + Buffer.from('abc:key').toString('base64'),
      'Token x',
    ]) {
      const res = await t.request('GET', '/v1/customers', {
        auth: false,
        headers: { authorization: header },
      });
      expect(res.status).toBe(401);
    }
  });

  it('keeps the health endpoints open', async () => {
    expect((await t.request('GET', '/healthz', { auth: false })).body).toEqual({ status: 'ok' });
    expect((await t.request('GET', '/readyz', { auth: false })).body).toEqual({ status: 'ready' });
  });
});

describe('errors', () => {
  it('answers 400 problem+json for malformed JSON', async () => {
    const res = await t.request('POST', '/v1/customers', { rawBody: '{"Name": ' });
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toContain('application/problem+json');
    expect(res.body).toMatchObject({ status: 400, code: 'malformed_json', title: 'Bad Request' });
    expect(res.body.Errors).toEqual([{ Message: res.body.detail }]);
  });

  it('answers 415 for a body that is not JSON', async () => {
    const res = await t.request('POST', '/v1/customers', {
      rawBody: 'Name=Ada',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(res.status).toBe(415);
    expect(res.body.code).toBe('unsupported_media_type');
  });

  it('answers 415 for a text/plain body, even one that looks like JSON', async () => {
    const res = await t.request('POST', '/v1/customers', {
      rawBody: '{"Name":"Ada"}',
      headers: { 'content-type': 'text/plain' },
    });
    expect(res.status).toBe(415);
  });

  it('refuses a body nested deeper than 64 levels with 422, however deep', async () => {
    for (const depth of [65, 100_000]) {
      const res = await t.request('POST', '/v1/customers', {
        rawBody: `{"Name":"x","deep":${'['.repeat(depth)}"\\u0000"${']'.repeat(depth)}}`,
      });
      expect(res.status, String(depth)).toBe(422);
      expect(res.body.fields[0].field).toBe('body');
    }
    // Under Balance: a field the customer is returned with, which a request may send back and is ignored.
    const fine = await t.request('POST', '/v1/customers', {
      rawBody: `{"Name":"x","Balance":${'['.repeat(60)}1${']'.repeat(60)}}`,
    });
    expect(fine.status).toBe(201);
  });

  it('answers 413 for a body over the limit', async () => {
    const res = await t.request('POST', '/v1/customers', { body: { Name: 'x'.repeat(2_000_000) } });
    expect(res.status).toBe(413);
    expect(res.body.code).toBe('body_too_large');
  });

  it('answers 404 problem+json for an unknown route', async () => {
    const res = await t.request('GET', '/v1/no-such-thing');
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('route_not_found');
  });

  it('answers 422 with every invalid field named', async () => {
    const res = await t.request('POST', '/v1/customers', {
      body: { Name: 5, isCompany: 'yes', countryID: -1, StatementDate: '31/12/2026' },
    });
    expect(res.status).toBe(422);
    expect(res.body.code).toBe('invalid_fields');
    const fields = res.body.fields.map((f: { field: string }) => f.field).sort();
    expect(fields).toEqual(['Name', 'StatementDate', 'countryID', 'isCompany']);
    expect(res.body.Errors).toHaveLength(4);
  });

  it('refuses text holding NUL with 422 naming where it is, on every dialect', async () => {
    const res = await t.request('POST', '/v1/customers', {
      rawBody: '{"Name":"Ada","CustomFields":[{"Key":"k","Value":"a\\u0000b"}]}',
    });
    expect(res.status).toBe(422);
    expect(res.body.fields).toEqual([
      { field: 'CustomFields[0].Value', message: expect.stringContaining('NUL') },
    ]);
    const top = await t.request('POST', '/v1/customernotes', { rawBody: '"\\u0000"' });
    expect(top.status).toBe(422);
    expect(top.body.fields[0].field).toBe('body');
  });

  it('never answers 500 to hostile input', async () => {
    const bodies: unknown[] = [
      null,
      [],
      'text',
      42,
      { Name: null },
      { Name: 'x', countryID: 1e30 },
      { Name: 'x', countryID: 1.5 },
      { Name: 'x', countryStateID: '99999999999999999999' },
      { Name: 'x'.repeat(300) },
      { Name: 'x', CustomFields: [{ Key: 'nope', Value: 'v' }] },
      { Name: 'x', CustomFields: 'not a list' },
      { Name: 'x', StatementDate: '2026-02-30' },
      { Name: 'x', unknownField: { deep: [1, 2, 3] } },
      { Name: 'x', __proto__: { isAdmin: true } },
      { Name: 'x', VatNo: 1e21 },
    ];
    for (const body of bodies) {
      const res = await t.request('POST', '/v1/customers', { rawBody: JSON.stringify(body) });
      expect(res.status, JSON.stringify(body)).toBeLessThan(500);
    }
    for (const path of [
      '/v1/customers/abc',
      '/v1/customers/0',
      '/v1/customers/99999999999999999999',
      '/v1/customers/1.5',
      '/v1/customers?page=abc',
      '/v1/customers?page=-1',
      '/v1/customers?page_size=1e400',
    ]) {
      const res = await t.request('GET', path);
      expect(res.status, path).toBeLessThan(500);
      expect(res.status, path).not.toBe(200);
    }
  });
});

describe('random bodies', () => {
  const FIELDS = [
    'Name',
    'Reference',
    'Email',
    'isCompany',
    'countryID',
    'countryStateID',
    'VatNo',
    'StatementDate',
    'isSuspended',
    'CurrencyCode',
    'PaymentMethod',
    'CustomFields',
    'customerID',
    'NoteType',
    'Note',
    'Password',
  ];
  const value = fc.oneof(
    fc.string(),
    fc.string({ unit: 'binary', maxLength: 20 }),
    fc.integer(),
    fc.double(),
    fc.boolean(),
    fc.constant(null),
    fc.array(fc.anything(), { maxLength: 3 }),
    fc.dictionary(fc.string(), fc.anything(), { maxKeys: 3 }),
  );
  const body = fc.dictionary(fc.constantFrom(...FIELDS), value, { maxKeys: 8 });

  it.each(['/v1/customers', '/v1/customercontacts', '/v1/customernotes', '/v1/by_customer_ids'])(
    'POST %s never answers 500',
    async (path) => {
      await fc.assert(
        fc.asyncProperty(body, async (sent) => {
          const res = await t.request('POST', path, { body: sent });
          return res.status < 500;
        }),
        { numRuns: 60 },
      );
    },
  );
});

describe('paging', () => {
  it('pages in creation order with a default of 100 and a maximum of 200', async () => {
    const fresh = await t.newAccount('Paging');
    for (let i = 0; i < 5; i++) {
      expect((await fresh.request('POST', '/v1/customers', { body: { Name: `C${i}` } })).status).toBe(201);
    }
    const all = await fresh.request('GET', '/v1/customers');
    expect(all.body.map((c: { Name: string }) => c.Name)).toEqual(['C0', 'C1', 'C2', 'C3', 'C4']);
    const second = await fresh.request('GET', '/v1/customers?page=2&page_size=2');
    expect(second.body.map((c: { Name: string }) => c.Name)).toEqual(['C2', 'C3']);
    expect((await fresh.request('GET', '/v1/customers?page=4&page_size=2')).body).toEqual([]);
    expect((await fresh.request('GET', '/v1/customers?page_size=200')).status).toBe(200);
  });

  it.each(['page_size=201', 'page_size=0', 'page=0', 'page=x', 'page_size=2.5'])(
    'refuses %s with 422',
    async (query) => {
      const res = await t.request('GET', `/v1/customers?${query}`);
      expect(res.status).toBe(422);
      expect(res.body.fields[0].field).toBe(query.split('=')[0]);
    },
  );
});

describe('idempotency', () => {
  it('replays the first response for the same key and body', async () => {
    const headers = { 'idempotency-key': 'create-ada-1' };
    const first = await t.request('POST', '/v1/customers', { body: CUSTOMER, headers });
    const again = await t.request('POST', '/v1/customers', { body: CUSTOMER, headers });
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    const list = await t.request('GET', '/v1/customers?page_size=200');
    expect(
      list.body.filter((c: { customerID: number }) => c.customerID === first.body.customerID),
    ).toHaveLength(1);
  });

  it('answers 409 when the key comes back with a different body', async () => {
    const headers = { 'idempotency-key': 'create-ada-2' };
    expect((await t.request('POST', '/v1/customers', { body: CUSTOMER, headers })).status).toBe(201);
    const res = await t.request('POST', '/v1/customers', { body: { ...CUSTOMER, Name: 'Grace' }, headers });
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('idempotency_key_reused');
  });

  it('keeps keys apart per account', async () => {
    const other = await t.newAccount();
    const headers = { 'idempotency-key': 'shared-key' };
    const mine = await t.request('POST', '/v1/customers', { body: CUSTOMER, headers });
    const theirs = await other.request('POST', '/v1/customers', { body: CUSTOMER, headers });
    expect(theirs.status).toBe(201);
    expect(theirs.headers.get('idempotent-replayed')).toBeNull();
    expect(theirs.body.customerID).not.toBe(mine.body.customerID);
  });

  it('replays a refusal too, and does not keep a request that failed validation', async () => {
    const headers = { 'idempotency-key': 'dup-ref' };
    await t.request('POST', '/v1/customers', { body: { ...CUSTOMER, Reference: 'IDEM-REF' } });
    const refused = await t.request('POST', '/v1/customers', {
      body: { ...CUSTOMER, Reference: 'IDEM-REF' },
      headers,
    });
    expect(refused.status).toBe(409);
    const replayed = await t.request('POST', '/v1/customers', {
      body: { ...CUSTOMER, Reference: 'IDEM-REF' },
      headers,
    });
    expect(replayed.status).toBe(409);
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');

    const invalidKey = { 'idempotency-key': 'invalid-first' };
    expect(
      (await t.request('POST', '/v1/customers', { body: { Name: 5 }, headers: invalidKey })).status,
    ).toBe(422);
    expect((await t.request('POST', '/v1/customers', { body: CUSTOMER, headers: invalidKey })).status).toBe(
      201,
    );
  });

  it('treats the same body with its keys in another order as the same request', async () => {
    const headers = { 'idempotency-key': 'key-order' };
    const first = await t.request('POST', '/v1/customers', {
      rawBody: '{"Name":"K","City":"Paarl"}',
      headers,
    });
    const again = await t.request('POST', '/v1/customers', {
      rawBody: '{"City":"Paarl","Name":"K"}',
      headers,
    });
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.customerID).toBe(first.body.customerID);
  });

  it('refuses an over-long key with 422 naming the header', async () => {
    const res = await t.request('POST', '/v1/customers', {
      body: CUSTOMER,
      headers: { 'idempotency-key': 'k'.repeat(256) },
    });
    expect(res.status).toBe(422);
    expect(res.body.fields[0].field).toBe('Idempotency-Key');
  });

  it('runs one of two concurrent requests with the same key and refuses or replays the other', async () => {
    const headers = { 'idempotency-key': 'race-1' };
    const results = await Promise.all([
      t.request('POST', '/v1/customers', { body: CUSTOMER, headers }),
      t.request('POST', '/v1/customers', { body: CUSTOMER, headers }),
    ]);
    const statuses = results.map((r) => r.status).sort();
    expect(statuses[0]).toBe(201);
    expect([201, 409]).toContain(statuses[1]);
    const ids = new Set(results.filter((r) => r.status === 201).map((r) => r.body.customerID));
    expect(ids.size).toBe(1);
  });
});

describe('operations', () => {
  it('serves an OpenAPI 3.1 document generated from the route schemas, and a docs page', async () => {
    const res = await t.request('GET', '/openapi.json', { auth: false });
    expect(res.status).toBe(200);
    expect(res.body.openapi).toBe('3.1.0');
    expect(Object.keys(res.body.paths)).toEqual(
      expect.arrayContaining([
        '/v1/customers',
        '/v1/customers/{customerID}',
        '/v1/by_customer_ids',
        '/v1/customers/with_customfields',
        '/v1/customercontacts',
        '/v1/customernotes/{customerNoteID}',
      ]),
    );
    expect(res.body.components.securitySchemes).toHaveProperty('basic');
    expect(res.body.components.schemas.Problem.required).toEqual(
      expect.arrayContaining(['type', 'title', 'status', 'detail', 'Errors']),
    );
    expect(res.body.paths['/v1/customers/{customerID}'].get.responses['4XX'].content).toHaveProperty(
      'application/problem+json',
    );
    const docs = await fetch(`${t.url}/docs/`);
    expect(docs.status).toBe(200);
    expect(await docs.text()).toContain('swagger');
  });

  it('returns a request id, keeping a caller-supplied one', async () => {
    const res = await t.request('GET', '/v1/customers', { headers: { 'x-request-id': 'trace-123' } });
    expect(res.headers.get('x-request-id')).toBe('trace-123');
    expect((await t.request('GET', '/v1/customers')).headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('logs requests with their ids and never the credentials', async () => {
    await t.request('GET', '/v1/customers', { headers: { 'x-request-id': 'log-check' } });
    const lines = t.logs.join('');
    expect(lines).toContain('log-check');
    expect(lines).not.toContain(t.apiKey);
  });
});
