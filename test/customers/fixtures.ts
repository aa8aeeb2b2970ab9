import { expect } from 'vitest';
import type { ApiResponse, TestAccount } from '../helpers/service.ts';
import { useTestService } from '../helpers/testService.ts';
import type { FileService, SmtpReceiver } from '../helpers/testService.ts';

/**
 * The service of one test file of the customers folder. `t` and `smtp` are live bindings: they hold the file's
 * service (and its SMTP receiver, when asked for) from its beforeAll on.
 */
export let t: FileService;
export let smtp: SmtpReceiver;

/** Starts the file's service (after a real SMTP receiver for it, with `smtp`) and closes both after the file. */
export function useCustomersService(options: { smtp?: boolean } = {}): void {
  t = useTestService(options);
  smtp = t.smtp;
}

export async function newCustomer(account: TestAccount = t, name = 'Acme'): Promise<number> {
  const res = await account.request('POST', '/v1/customers', { body: { Name: name } });
  expect(res.status).toBe(201);
  return res.body.customerID;
}

export function fieldsOf(res: ApiResponse): string[] {
  return (res.body.fields ?? []).map((f: { field: string }) => f.field);
}
