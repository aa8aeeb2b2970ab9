import { afterAll, beforeAll, expect } from 'vitest';
import { startTestService } from '../helpers/service.ts';
import type { ApiResponse, TestAccount, TestService } from '../helpers/service.ts';
import { startSmtpReceiver } from '../helpers/smtp.ts';

/**
 * The service of one test file of the customers folder. `t` and `smtp` are live bindings: they hold the file's
 * service (and its SMTP receiver, when asked for) from its beforeAll on.
 */
export let t: TestService;
export let smtp: Awaited<ReturnType<typeof startSmtpReceiver>>;

/** Starts the file's service (after a real SMTP receiver for it, with `smtp`) and closes both after the file. */
export function useCustomersService(options: { smtp?: boolean } = {}): void {
  beforeAll(async () => {
    if (options.smtp) {
      smtp = await startSmtpReceiver();
      t = await startTestService({ smtpUrl: smtp.url });
    } else {
      t = await startTestService();
    }
  });
  afterAll(async () => {
    await t?.close();
    await smtp?.close();
  });
}

export async function newCustomer(account: TestAccount = t, name = 'Acme'): Promise<number> {
  const res = await account.request('POST', '/v1/customers', { body: { Name: name } });
  expect(res.status).toBe(201);
  return res.body.customerID;
}

export function fieldsOf(res: ApiResponse): string[] {
  return (res.body.fields ?? []).map((f: { field: string }) => f.field);
}
