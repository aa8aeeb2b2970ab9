import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { checkRequest, checkResponse, loadProviderApi, parseFormBody } from './openApi.ts';
import type { ProviderApi } from './openApi.ts';

// The harness every provider's simulator checks its requests with (test/providers/openApi.ts); here against
// Paystack's published document, whose schemas let unknown fields through until the harness closes them.
const PAYSTACK = path.resolve(import.meta.dirname, '../fixtures/providers/paystack');
const json = { 'content-type': 'application/json', authorization: 'Bearer sk_test_harness' };
const sample = (path: string) =>
  JSON.parse(fs.readFileSync(`${PAYSTACK}/responses/${path}/response.json`, 'utf8')) as Record<
    string,
    { data: unknown }
  >;

let api: ProviderApi;
beforeAll(async () => {
  api = await loadProviderApi(`${PAYSTACK}/openapi.yaml`);
});

describe('checkRequest against a published OpenAPI document', () => {
  it('passes a request the document describes', () => {
    const body = {
      email: 'a@example.com',
      amount: 500,
      currency: 'ZAR',
      channels: ['card'],
      metadata: { x: 1 },
    };
    const request = {
      method: 'POST',
      url: '/transaction/initialize',
      headers: json,
      body: JSON.stringify(body),
    };
    expect(checkRequest(api, request)).toEqual([]);
  });

  it('refuses a misspelled field, a missing required field and a wrong type', () => {
    const body = JSON.stringify({ emial: 'a@example.com', amount: '500' });
    const problems = checkRequest(api, {
      method: 'POST',
      url: '/transaction/initialize',
      headers: json,
      body,
    });
    expect(problems).toEqual(
      expect.arrayContaining([
        "body must have required property 'email'",
        'body must NOT have additional properties (emial)',
        'body/amount must be integer',
      ]),
    );
  });

  it('refuses a misspelled field nested in an object schema', () => {
    const body = JSON.stringify({
      email: 'a@example.com',
      amount: 500,
      split: { type: 'flat', bearer_type: 'account', subaccounts: [], shares: 1 },
    });
    const problems = checkRequest(api, {
      method: 'POST',
      url: '/transaction/initialize',
      headers: json,
      body,
    });
    expect(problems.some((p) => p.startsWith('body/split must NOT have additional properties'))).toBe(true);
  });
});

describe('checkRequest: operations, parameters, credentials and form bodies', () => {
  it('refuses an unknown operation, an unknown query parameter and a missing credential', () => {
    expect(checkRequest(api, { method: 'GET', url: '/transactions/verify/x', headers: json })).toEqual([
      'no operation GET /transactions/verify/x',
    ]);
    expect(checkRequest(api, { method: 'GET', url: '/balance?perPage=1', headers: json })).toEqual([
      'request/query must NOT have additional properties (perPage)',
    ]);
    expect(checkRequest(api, { method: 'GET', url: 'https://api.paystack.co/balance', headers: {} })).toEqual(
      ['no Authorization header'],
    );
  });

  it('takes a query parameter documented elsewhere only when the caller names it', async () => {
    const request = { method: 'GET', url: '/refund?transaction=4099260516', headers: json };
    expect(checkRequest(api, request)).toEqual([
      'request/query must NOT have additional properties (transaction)',
    ]);
    const widened = await loadProviderApi(`${PAYSTACK}/openapi.yaml`, {
      refund_list: { transaction: { type: 'string' } },
    });
    expect(checkRequest(widened, request)).toEqual([]);
  });

  it('parses form-encoded bodies with bracket notation before validating them', () => {
    expect(parseFormBody('amount=100&metadata[ref]=c1&expand[]=a&expand[]=b&items[0][price]=p')).toEqual({
      amount: '100',
      metadata: { ref: 'c1' },
      expand: ['a', 'b'],
      items: [{ price: 'p' }],
    });
    const form = { 'content-type': 'application/x-www-form-urlencoded', authorization: 'Bearer sk_test_x' };
    const ok = 'email=a%40example.com&amount=500&authorization_code=AUTH_x';
    const request = { method: 'POST', url: '/transaction/charge_authorization', headers: form };
    expect(checkRequest(api, { ...request, body: ok })).toEqual([]);
    expect(checkRequest(api, { ...request, body: `${ok}&amont=5` })).toEqual([
      'body must NOT have additional properties (amont)',
    ]);
  });
});

describe('checkResponse', () => {
  it("passes the provider's published samples and refuses a wrong shape", () => {
    expect(checkResponse(api, 'transaction_verify', 200, sample('transactions/verify')['200']!.data)).toEqual(
      [],
    );
    expect(checkResponse(api, 'POST /refund', 200, sample('refunds/create')['200']!.data)).toEqual([]);
    const wrong = { ...sample('transactions/verify')['200']!.data!, data: { id: 'x' } };
    expect(checkResponse(api, 'GET /transaction/verify/{reference}', 200, wrong)).toContain(
      'answer 200/data/id must be integer',
    );
  });
});
