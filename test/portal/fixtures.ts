import { beforeAll, expect } from 'vitest';
import { createCustomer, movableClock, ok } from '../helpers/billing.ts';
import type { TestAccount } from '../helpers/service.ts';
import { useTestService } from '../helpers/testService.ts';
import type { FileService, SmtpReceiver } from '../helpers/testService.ts';

// "Now" for every portal test file until it moves the clock: 15 Mar 2026, 10:00 UTC.
export const START = '2026-03-15T10:00:00.000Z';
export const clock = movableClock(START);
/**
 * The service's wall clock: real time, moved forward by `advance`. Portal security times (sessions, pauses, reset
 * tokens, sign-in links) run on it (docs/architecture.md, "Two clocks"), so the tests that wait them out move it.
 */
export const wallClock = {
  offsetMs: 0,
  now: () => new Date(Date.now() + wallClock.offsetMs),
  advance(ms: number) {
    wallClock.offsetMs += ms;
  },
};

/** The file's service, SMTP receiver and a second account (live bindings, set in beforeAll). */
export let t: FileService;
export let other: TestAccount;
export let smtp: SmtpReceiver;

let slugs = 0;

/** The file's service with a portal; `env` adds to the service's settings. */
export function usePortalService(env: Record<string, string> = {}): void {
  beforeAll(() => {
    clock.set(START);
    wallClock.offsetMs = 0;
  });
  t = useTestService({
    clock,
    wallClock,
    env,
    smtp: true,
    secondAccount: true,
    seed: (started) => ok(started, 'PUT', '/v1/account', { PortalSlug: `acme-${process.pid}-${++slugs}` }),
  });
  ({ smtp, other } = t);
}

/** The account's portal path, /portal/{slug}/. */
export async function portalPath(as: TestAccount = t): Promise<string> {
  const account = await ok(as, 'GET', '/v1/account');
  return new URL(account.PortalURL).pathname;
}

let people = 0;

/** A customer with a contact whose Username and Password are known. */
export async function customerWithLogin(
  as: TestAccount = t,
  options: { password?: string; name?: string } = {},
): Promise<{ customerId: number; contactId: number; username: string; password: string }> {
  const n = ++people;
  const customerId = await createCustomer(as, {
    Name: options.name ?? `Ada ${n}`,
    Email: `ada${n}@example.com`,
  });
  const username = `ada${n}-${process.pid}`;
  const password = options.password ?? 'secret123';
  const contact = await ok(as, 'POST', '/v1/customercontacts', {
    customerID: customerId,
    Name: 'Ada',
    LastName: `Lovelace ${n}`,
    Email: `ada${n}.contact@example.com`,
    Username: username,
    Password: password,
  });
  return { customerId, contactId: contact.customerContactID, username, password };
}

/** A browser-like client of the portal: keeps cookies, sends Sec-Fetch-Site and Origin as Chromium would. */
export class PortalClient {
  cookies = new Map<string, string>();
  constructor(
    readonly base: string,
    readonly origin: string,
  ) {}

  private cookieHeader(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }

  private keep(response: Response): void {
    for (const line of response.headers.getSetCookie()) {
      const [pair = ''] = line.split(';');
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq);
      const value = pair.slice(eq + 1);
      if (value === '' || /expires=Thu, 01 Jan 1970/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  async get(path: string, headers: Record<string, string> = {}) {
    const response = await fetch(this.origin + path, {
      headers: { cookie: this.cookieHeader(), 'sec-fetch-site': 'none', ...headers },
      redirect: 'manual',
    });
    this.keep(response);
    return { status: response.status, headers: response.headers, text: await response.text() };
  }

  async post(path: string, fields: Record<string, string>, headers: Record<string, string> = {}) {
    const response = await fetch(this.origin + path, {
      method: 'POST',
      headers: {
        cookie: this.cookieHeader(),
        'content-type': 'application/x-www-form-urlencoded',
        'sec-fetch-site': 'same-origin',
        origin: this.origin,
        ...headers,
      },
      body: new URLSearchParams(fields).toString(),
      redirect: 'manual',
    });
    this.keep(response);
    return { status: response.status, headers: response.headers, text: await response.text() };
  }

  /** The CSRF token of the form on the page at `path`. */
  async csrfOf(path: string): Promise<string> {
    const page = await this.get(path);
    const match = /name="csrf" value="([^"]+)"/.exec(page.text);
    expect(match, page.text).not.toBeNull();
    return match![1]!;
  }

  async signIn(username: string, password: string) {
    const csrf = await this.csrfOf(`${this.base}login`);
    return this.post(`${this.base}login`, { csrf, username, password });
  }
}

export async function signedIn(login: { username: string; password: string }): Promise<PortalClient> {
  const client = new PortalClient(await portalPath(), t.url);
  const res = await client.signIn(login.username, login.password);
  expect(res.status, res.text).toBe(303);
  return client;
}

/** A form of a page: its hidden fields, as a browser would send them. */
export function hiddenFieldsOf(html: string, action: string): Record<string, string> {
  const form = new RegExp(`<form method="post" action="${action}"[^>]*>([\\s\\S]*?)</form>`).exec(html);
  expect(form, html).not.toBeNull();
  const fields: Record<string, string> = {};
  for (const input of form![1]!.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) {
    fields[input[1]!] = input[2]!;
  }
  return fields;
}

/** The pay form of an invoice's page. */
export async function invoicePayForm(client: PortalClient, invoiceId: number) {
  const page = await client.get(`${client.base}invoices/${invoiceId}`);
  expect(page.status).toBe(200);
  return hiddenFieldsOf(page.text, `${client.base}invoices/${invoiceId}/pay`);
}

/** scrypt's N of the contact's stored password hash, as the service stored it. */
export async function storedHashCost(contactId: number): Promise<string> {
  const { password_hash } = await t.service.storage.db
    .selectFrom('customer_contacts')
    .select('password_hash')
    .where('id', '=', contactId)
    .executeTakeFirstOrThrow();
  return password_hash!.split('$')[1]!;
}

/** The customer's payments, as the API lists them. */
export const paymentsOf = (customerId: number) =>
  ok(t, 'GET', `/v1/customers/${customerId}/payments`) as Promise<any[]>;
