import type { Clock } from '../../src/clock.ts';
import { ok } from '../helpers/billing.ts';
import type { ApiResponse, TestAccount } from '../helpers/service.ts';
import { useTestService } from '../helpers/testService.ts';
import type { FileService } from '../helpers/testService.ts';

/**
 * The test file's service and a second account of it. Live bindings: they hold the file's service from its
 * beforeAll on (see useLedgerService).
 */
export let t: FileService;
export let other: TestAccount;

/**
 * Starts the file's service (on `clock`, else the system clock) with `other` beside the test account and
 * `currencies` enabled beside USD, and closes it after the file.
 */
export function useLedgerService(options: { clock?: Clock; currencies?: string[] } = {}): void {
  t = useTestService({
    ...(options.clock ? { clock: options.clock } : {}),
    secondAccount: true,
    seed: async (started) => {
      for (const CurrencyCode of options.currencies ?? [])
        await ok(started, 'POST', '/v1/currencies', { CurrencyCode });
    },
  });
  other = t.other;
}

export const fieldsOf = (res: ApiResponse): string[] =>
  (res.body.fields ?? []).map((f: { field: string }) => f.field);

export const customerBalance = async (customerID: number, as: TestAccount = t) =>
  (await ok(as, 'GET', `/v1/customers/${customerID}`)).Balance as number;
