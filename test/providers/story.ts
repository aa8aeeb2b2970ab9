import { expect } from 'vitest';
import { ok } from '../helpers/billing.ts';
import type { ApiResponse, TestAccount, TestService } from '../helpers/service.ts';
import { useTestService } from '../helpers/testService.ts';
import { accountOnProvider, providerSession } from './providerAccount.ts';

/**
 * A business's collection story through a real provider's driver (test/providers/*Story.test.ts): a service
 * reaching the provider's simulator, a test account whose primary gateway is the provider's, its clock at midnight
 * on the first of next month, and what the stories do through the service's HTTP interface.
 */
export interface Story {
  t: TestService;
  account: TestAccount;
  gatewayId: number;
  gatewayToken: string;
  /** The bill run and collection of the account's clock an hour later (a story's tests share one day). */
  collect(): Promise<void>;
  /** The account's clock moved to `months` after the story's first day, at noon. */
  monthsLater(months: number): Promise<void>;
  /** A capture session on the provider's gateway: VaultOnly, kept at the gateway, unless `body` says otherwise. */
  session(body?: Record<string, unknown>): Promise<any>;
  /** The capture frame's provider step, as the frame's script posts it (no API key). */
  frame(hashToken: string, step: 'start' | 'complete', body?: Record<string, unknown>): Promise<ApiResponse>;
  /** Completes a captured session for the customer, as the merchant's server does. */
  complete(customerId: number, sessionToken: string): Promise<void>;
  payments(customerId: number): Promise<any[]>;
  /** Posts a provider's webhook to the gateway's URL as it was signed: its status and answer. */
  webhook(delivery: {
    headers: Record<string, string>;
    rawBody: Buffer;
  }): Promise<{ status: number; body: any }>;
}

export function useStory(options: {
  providerFetch: () => typeof fetch;
  type: 'stripe' | 'paystack';
  settings: () => Record<string, unknown>;
  currencyCode: string;
  /** Where the service sends e-mail (a receiver of test/helpers/smtp.ts); none unless given. */
  smtpUrl?: () => string;
  /** The service's environment beyond the tests' own (webhooks to a local receiver, the log level). */
  env?: Record<string, string>;
}): Story {
  const story = { hours: 0 } as Story & { hours: number; today: string };
  const advance = (to: string) => ok(story.account, 'POST', '/v1/test-clock/advance', { To: to }, 200);
  // Options read when the file's hooks run: the simulator and the SMTP receiver are started by the file first.
  story.t = useTestService(() => ({
    providerFetch: options.providerFetch(),
    ...(options.smtpUrl ? { smtpUrl: options.smtpUrl() } : {}),
    ...(options.env ? { env: options.env } : {}),
    seed: async (t) => {
      Object.assign(
        story,
        await accountOnProvider(t, options.providerFetch(), {
          name: `A business on ${options.type}`,
          currencyCode: options.currencyCode,
          gateway: { type: options.type, friendlyName: options.type, settings: options.settings() },
        }),
      );
      const clock = ((await ok(story.account, 'GET', '/v1/account')).TestClockDate as string).slice(0, 10);
      const first = new Date(`${clock}T00:00:00.000Z`);
      first.setUTCMonth(first.getUTCMonth() + 1, 1);
      story.today = first.toISOString().slice(0, 10);
      await advance(`${story.today}T00:00:00.000Z`);
    },
  }));

  story.collect = async () => {
    story.hours += 1;
    await advance(
      new Date(Date.parse(`${story.today}T00:00:00.000Z`) + story.hours * 3_600_000).toISOString(),
    );
  };
  story.monthsLater = async (months) => {
    const at = new Date(`${story.today}T12:00:00.000Z`);
    at.setUTCMonth(at.getUTCMonth() + months);
    await advance(at.toISOString());
  };
  story.session = (body = {}) =>
    providerSession(story.account, story.gatewayToken, options.currencyCode, body);
  story.frame = (hashToken, step, body = {}) =>
    story.t.request('POST', `/widget/capture/${hashToken}/provider/${step}`, { auth: false, body });
  story.complete = async (customerId, sessionToken) => {
    const done = await story.account.request('PUT', '/v1/widgets/capturepaymethod/complete', {
      body: { customerID: customerId, SessionToken: sessionToken },
    });
    expect(done.status, done.text).toBeLessThan(300);
  };
  story.payments = (customerId) => ok(story.account, 'GET', `/v1/customers/${customerId}/payments`);
  story.webhook = async ({ headers, rawBody }) => {
    const res = await fetch(`${story.t.url}/gateway-webhooks/${story.gatewayToken}`, {
      method: 'POST',
      headers,
      body: rawBody,
    });
    return { status: res.status, body: await res.json() };
  };
  return story;
}

/** What the service recorded anywhere a secret must never be: gateway calls, log lines, the account's events. */
export async function recordedText(story: Story): Promise<string> {
  const calls = await story.t.service.storage.db.selectFrom('gateway_calls').selectAll().execute();
  return (
    JSON.stringify(calls) +
    story.t.logs.join('') +
    JSON.stringify(await ok(story.account, 'GET', '/v1/events'))
  );
}
