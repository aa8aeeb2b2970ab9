import { afterAll, beforeAll } from 'vitest';
import type { Clock } from '../../src/clock.ts';
import { ok } from '../helpers/billing.ts';
import { startTestService } from '../helpers/service.ts';
import type { ApiResponse, TestAccount, TestService } from '../helpers/service.ts';

/**
 * The test file's service and a second account of it. Live bindings: they hold the file's service from its
 * beforeAll on (see useLedgerService).
 */
export let t: TestService;
export let other: TestAccount;

/**
 * Starts the file's service (on `clock`, else the system clock) with `other` beside the test account and
 * `currencies` enabled beside USD, and closes it after the file.
 */
export function useLedgerService(options: { clock?: Clock; currencies?: string[] } = {}): void {
  beforeAll(async () => {
    t = await startTestService(options.clock ? { clock: options.clock } : {});
    other = await t.newAccount();
    for (const CurrencyCode of options.currencies ?? [])
      await ok(t, 'POST', '/v1/currencies', { CurrencyCode });
  });
  afterAll(async () => {
    await t?.close();
  });
}

export const fieldsOf = (res: ApiResponse): string[] =>
  (res.body.fields ?? []).map((f: { field: string }) => f.field);

export const customerBalance = async (customerID: number, as: TestAccount = t) =>
  (await ok(as, 'GET', `/v1/customers/${customerID}`)).Balance as number;
