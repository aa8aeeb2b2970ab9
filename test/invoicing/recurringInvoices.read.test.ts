import { describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.ts';
import { createAccount } from '../../src/modules/auth/index.ts';
import {
  CHARGES,
  clock,
  create,
  other,
  otherCustomerID,
  read,
  setToday,
  SPEC_FIELDS,
  t,
  useRecurringInvoiceService,
} from './recurringInvoices.fixtures.ts';
import { STAGING } from '../helpers/service.ts';
import { modulePorts } from '../../src/modulePorts.ts';

useRecurringInvoiceService();

describe('GET lists', () => {
  it('lists the account’s and a customer’s recurring invoices in creation order, paged', async () => {
    const fresh = await t.newAccount('Lists');
    const a = (await fresh.request('POST', '/v1/customers', { body: { Name: 'A' } })).body.customerID;
    const b = (await fresh.request('POST', '/v1/customers', { body: { Name: 'B' } })).body.customerID;
    const ids = [];
    for (const c of [a, b, a]) ids.push((await create({ customerID: c }, fresh)).recurInvoiceID);
    const all = await fresh.request('GET', '/v1/recurring-invoices');
    expect(all.status).toBe(200);
    expect(all.body.map((r: any) => r.recurInvoiceID)).toEqual(ids);
    expect(Object.keys(all.body[0]).sort()).toEqual([...SPEC_FIELDS].sort());
    const ofA = await fresh.request('GET', `/v1/customers/${a}/recurring-invoices`);
    expect(ofA.body.map((r: any) => r.recurInvoiceID)).toEqual([ids[0], ids[2]]);
    const page2 = await fresh.request('GET', '/v1/recurring-invoices?page=2&page_size=2');
    expect(page2.body.map((r: any) => r.recurInvoiceID)).toEqual([ids[2]]);
    expect((await fresh.request('GET', '/v1/recurring-invoices?page=3&page_size=2')).body).toEqual([]);
    for (const bad of ['page_size=201', 'page_size=0', 'page=0', 'page=x']) {
      const res = await fresh.request('GET', `/v1/recurring-invoices?${bad}`);
      expect(res.status, bad).toBe(422);
    }
  });

  it('answers 404 for the list of an unknown customer or another account’s', async () => {
    for (const id of [987654, otherCustomerID]) {
      const res = await t.request('GET', `/v1/customers/${id}/recurring-invoices`);
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('customer_not_found');
    }
  });

  it('reads a page in the same number of statements whatever its size', async () => {
    const fresh = await t.newAccount('Statements');
    const c = (await fresh.request('POST', '/v1/customers', { body: { Name: 'A' } })).body.customerID;
    for (let i = 0; i < 12; i++) await create({ customerID: c, Taxes: [{ Name: 'VAT', Perc: 0.15 }] }, fresh);
    const statements = async (path: string) => {
      t.queries.length = 0;
      const res = await fresh.request('GET', path);
      expect(res.status).toBe(200);
      return { count: t.queries.filter((q) => /from "recurring_invoice/.test(q)).length, body: res.body };
    };
    const one = await statements('/v1/recurring-invoices?page_size=1');
    const twelve = await statements('/v1/recurring-invoices?page_size=12');
    expect(twelve.body).toHaveLength(12);
    expect(twelve.body.every((r: any) => r.RecurInvoiceCharges.length === 2 && r.Taxes.length === 1)).toBe(
      true,
    );
    expect(one.count).toBe(3);
    expect(twelve.count).toBe(one.count);
  });
});

describe('comp_Status and isExpired follow the clock', () => {
  it('is Future before StartDate, Active from it, Expired from EndDate, Cancelled when cancelled', async () => {
    const { recurInvoiceID } = await create({ StartDate: '2026-03-20', EndDate: '2026-05-20' });
    const status = async () => {
      const r = await read(recurInvoiceID);
      return [r.comp_Status, r.isExpired];
    };
    expect(await status()).toEqual(['Future', false]);
    setToday('2026-03-20');
    expect(await status()).toEqual(['Active', false]);
    setToday('2026-05-19');
    expect(await status()).toEqual(['Active', false]);
    setToday('2026-05-20');
    expect(await status()).toEqual(['Expired', true]);
    await t.request('PUT', `/v1/recurring-invoices/${recurInvoiceID}/cancel`);
    expect(await status()).toEqual(['Cancelled', true]);
  });

  it('shows the customer’s SuspendedDate while the customer is suspended', async () => {
    const c = (await t.request('POST', '/v1/customers', { body: { Name: 'S' } })).body.customerID;
    const { recurInvoiceID } = await create({ customerID: c });
    await t.request('PUT', `/v1/customers/${c}/suspend`);
    const suspendedDate = (await t.request('GET', `/v1/customers/${c}`)).body.SuspendedDate;
    expect(suspendedDate).toBe('2026-03-10T09:00:00.000Z');
    expect((await read(recurInvoiceID)).SuspendedDate).toBe(suspendedDate);
    await t.request('PUT', `/v1/customers/${c}/unsuspend`);
    expect((await read(recurInvoiceID)).SuspendedDate).toBeNull();
  });
});

describe('time zones', () => {
  it('shows billing dates as the instant the day begins in the account’s zone, and reads them back', async () => {
    const made = await createAccount(
      t.service.storage.db,
      { ports: modulePorts(), clock, wallClock: systemClock },
      {
        name: 'Joburg',
        timeZone: 'Africa/Johannesburg',
      },
      STAGING,
    );
    const headers = { authorization: `Bearer ${made.apiKey}`, 'content-type': 'application/json' };
    const call = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(t.url + path, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : undefined };
    };
    const c = (await call('POST', '/v1/customers', { Name: 'Z' })).body.customerID;
    const created = await call('POST', '/v1/recurring-invoices', {
      customerID: c,
      StartDate: '2026-04-01',
      RecurInvoiceCharges: CHARGES,
    });
    expect(created.status).toBe(201);
    expect(created.body.StartDate).toBe('2026-03-31T22:00:00.000Z');
    const sentBack = await call('PUT', `/v1/recurring-invoices/${created.body.recurInvoiceID}`, created.body);
    expect(sentBack.status).toBe(204);
    expect((await call('GET', `/v1/recurring-invoices/${created.body.recurInvoiceID}`)).body.StartDate).toBe(
      '2026-03-31T22:00:00.000Z',
    );
  });
});

describe('tenant isolation', () => {
  it("answers 404 to every operation on another account's recurring invoice and lists none of them", async () => {
    const theirs = await create({ customerID: otherCustomerID }, other);
    const path = `/v1/recurring-invoices/${theirs.recurInvoiceID}`;
    expect((await t.request('GET', path)).status).toBe(404);
    expect((await t.request('PUT', path, { body: { Term: 3 } })).status).toBe(404);
    expect((await t.request('PUT', `${path}/cancel`)).status).toBe(404);
    expect((await t.request('PUT', `${path}/reactivate`)).status).toBe(404);
    expect((await t.request('DELETE', path)).status).toBe(404);
    const mine = (await t.request('GET', '/v1/recurring-invoices?page_size=200')).body;
    expect(mine.some((r: any) => r.recurInvoiceID === theirs.recurInvoiceID)).toBe(false);
    expect(await read(theirs.recurInvoiceID, other)).toEqual(theirs);
  });
});
