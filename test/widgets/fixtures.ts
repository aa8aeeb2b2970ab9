import crypto from 'node:crypto';
import { beforeAll, expect } from 'vitest';
import { movableClock, ok } from '../helpers/billing.ts';
import type { Clock } from '../../src/clock.ts';
import type { ApiResponse, TestAccount } from '../helpers/service.ts';
import { useTestService } from '../helpers/testService.ts';
import type { FileService } from '../helpers/testService.ts';

// "Now" for every test file until it moves the clock: 15 Mar 2026, 10:00 UTC.
export const START = '2026-03-15T10:00:00.000Z';
export const clock = movableClock(START);

/** The file's service and a second account of it (live bindings, set in beforeAll). */
export let t: FileService;
export let other: TestAccount;

/**
 * Starts the file's service; `wallClock` replaces the system's wall clock (ServiceContext.wallClock), and
 * `providerFetch` is the HTTP client it reaches payment providers with (a provider's simulator, test/providers/).
 */
export function useWidgetService(options: { wallClock?: Clock; providerFetch?: typeof fetch } = {}): void {
  beforeAll(() => clock.set(START));
  t = useTestService({ clock, ...options, secondAccount: true });
  other = t.other;
}

export const db = () => t.service.storage.db;

export const VISA = '4242424242424242';
/** docs/gateways.md, "The test gateway's cards": refused by the vault. */
export const DECLINED_AT_VAULT = '4000000000000002';
/** docs/gateways.md: kept by the vault, declined on each charge. */
export const DECLINED_ON_CHARGE = '4000000000009995';

export const MERCHANT = 'https://shop.example.com';

/** The account's test gateway token. */
export async function testGatewayToken(as: TestAccount): Promise<string> {
  const gateways = await ok(as, 'GET', '/v1/gateways');
  return gateways.find((g: { GatewayType: string }) => g.GatewayType === 'test').GatewayToken;
}

/** A create body with the required fields, overridden by `body`. */
export async function sessionBody(as: TestAccount, body: Record<string, unknown> = {}) {
  return {
    VaultingType: 'VaultGateway',
    SaleType: 'VaultOnly',
    ExpiresIn: '00:30:00',
    isVaultOnlyOnSuccess: false,
    CurrencyCode: 'USD',
    GatewayToken: await testGatewayToken(as),
    AuthDomain: MERCHANT,
    ...body,
  };
}

export async function createSession(as: TestAccount, body: Record<string, unknown> = {}) {
  return ok(as, 'POST', '/v1/widgets/capturepaymethod/create', await sessionBody(as, body), 200);
}

/** What the frame posts (a card with a good expiry unless told otherwise). */
export function submit(
  hashToken: string,
  card: Partial<{ number: string; expiry: string; securityCode: string; name: string }> = {},
): Promise<ApiResponse> {
  return t.request('POST', `/widget/capture/${hashToken}/submit`, {
    auth: false,
    body: { number: VISA, expiry: '12/29', securityCode: '123', name: 'Ada Lovelace', ...card },
  });
}

export function complete(as: TestAccount, customerID: number, SessionToken: string): Promise<ApiResponse> {
  return as.request('PUT', '/v1/widgets/capturepaymethod/complete', { body: { customerID, SessionToken } });
}

export const sha256 = (text: string) => crypto.createHash('sha256').update(text).digest('hex');

export function expectProblem(res: ApiResponse, status: number, field?: string): void {
  expect(res.status, res.text).toBe(status);
  expect(res.headers.get('content-type')).toContain('application/problem+json');
  if (field !== undefined) expect(res.body.fields.map((f: { field: string }) => f.field)).toContain(field);
}
