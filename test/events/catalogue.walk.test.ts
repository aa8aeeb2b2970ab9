import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.ts';
import { createCustomer } from '../helpers/billing.ts';
import { dialect, eventually } from '../helpers/service.ts';
import type { TestAccount } from '../helpers/service.ts';
import { ok, read } from '../helpers/resourceEvents.ts';
import type { WireEvent } from '../helpers/resourceEvents.ts';
import { verifyWebhook } from '../helpers/webhookReceiver.ts';
import {
  CATALOGUE_PATH,
  DECLARED_EVENT_TYPES,
  EVENT_DESCRIPTIONS,
  catalogueHeadings,
  renderEventCatalogue,
} from './eventCatalogue.ts';
import { plusDays, receiver, t, useCatalogueWalk } from './catalogueWalk.fixtures.ts';
import { walkBatches, walkCollections, walkMandates, walkWidgets } from './catalogueWalk.collection.ts';
import { walkActivation, walkResumeExpiry } from './catalogueWalk.activation.ts';
import {
  walkCatalogue,
  walkCustomers,
  walkEntitlements,
  walkEndpoints,
  walkMoney,
  walkRecurringInvoices,
  walkSubscriptions,
  walkUsageAlerts,
  walkCoupons,
  walkCredits,
} from './catalogueWalk.records.ts';
import { walkRetention } from './catalogueWalk.retention.ts';

// One walk through the whole service on a test account: every declared event type triggered through the real API,
// the CLI (a child process) where only the CLI does it, and the test clock for what time does. Then the events the
// account has are exactly the declared types, and every one written while the `*` endpoint existed reached the
// receiver once, signed. With UPDATE_EVENT_CATALOGUE=1 (on SQLite) the walk writes docs/event-catalogue.md from
// the payloads it captured; otherwise it checks the catalogue still has one heading per declared type.
// The walk's steps are in catalogueWalk.records.ts and catalogueWalk.collection.ts.

useCatalogueWalk();

async function billing(...args: string[]): Promise<string> {
  const result = await runCli(args, t.env, 60_000);
  expect(result.code, `billing ${args.join(' ')}: ${result.stderr}`).toBe(0);
  return result.stdout;
}

/** Every event of the account, oldest first, through every page of GET /v1/events. */
async function allEvents(account: TestAccount): Promise<WireEvent[]> {
  const events: WireEvent[] = [];
  for (let page = 1; ; page += 1) {
    const batch = (await read(account, `/v1/events?page=${page}&page_size=200`)) as WireEvent[];
    events.push(...batch);
    if (batch.length < 200) return events.reverse();
  }
}

describe('the event catalogue', () => {
  it('has every declared type triggered by one walk, delivered once and signed, and documented', async () => {
    const undescribed = DECLARED_EVENT_TYPES.filter((type) => !EVENT_DESCRIPTIONS[type]);
    expect(undescribed, 'declared types without a description in eventCatalogue.ts').toEqual([]);
    expect(Object.keys(EVENT_DESCRIPTIONS).sort()).toEqual([...new Set(DECLARED_EVENT_TYPES)].sort());

    const account = await t.newAccount('Catalogue walk', { isTest: true });
    const clock = (await read(account, '/v1/account')).TestClockDate as string;
    const today = clock.slice(0, 10);
    const endpoint = await ok(account, 'POST', '/v1/webhookendpoints', {
      Url: `${receiver.url}/all`,
      EnabledEvents: ['*'],
    });

    await walkEndpoints(account, endpoint.webhookEndpointID);
    await ok(account, 'PUT', '/v1/account', { LegalName: 'Walk Ltd' });
    await walkCustomers(account);
    await walkCatalogue(account);
    const customerID = await createCustomer(account, { Name: 'Ada' });
    await walkMoney(account, customerID, today);
    await walkRecurringInvoices(account, customerID, today);
    await walkSubscriptions(account, customerID, today);
    await walkEntitlements(account);
    const [disputedCustomer, refundedCustomer] = await walkCollections(account, today);
    await walkBatches(account, today);
    await walkWidgets(account, customerID, today);
    await walkMandates(account, today);
    await walkUsageAlerts(account, customerID, clock);
    await walkCoupons(account, customerID);
    await walkCredits(account, today);
    await walkActivation(account);
    await walkResumeExpiry(account, today);
    await walkRetention(account);
    await ok(account, 'POST', '/v1/test-clock/advance', { To: `${plusDays(today, 10)}T09:00:00.000Z` });
    const [collected] = await read(account, `/v1/customers/${disputedCustomer}/payments`);
    await ok(account, 'POST', '/v1/test/simulate', { paymentID: collected.paymentID, scenario: 'dispute' });
    const [refunded] = await read(account, `/v1/customers/${refundedCustomer}/payments`);
    await ok(account, 'PUT', `/v1/payments/${refunded.paymentID}`, { ...refunded, Allocations: [] });
    await ok(account, 'POST', `/v1/payments/${refunded.paymentID}/refund`, { Amount: 5 });

    // Only the CLI revokes keys and changes gateways; it writes to the same database, as another process.
    const key = JSON.parse(await billing('key', 'create', '--account', String(account.accountId), '--json'));
    await billing('key', 'revoke', String(key.keyID));
    const [testGateway] = await read(account, '/v1/gateways');
    await billing('gateway', 'disable', String(testGateway.gatewayID));

    const events = await allEvents(account);
    const emitted = new Set(events.map((event) => event.type));
    const declared = new Set(DECLARED_EVENT_TYPES);
    expect(
      [...declared].filter((type) => !emitted.has(type)),
      'declared types the walk never triggered',
    ).toEqual([]);
    expect(
      [...emitted].filter((type) => !declared.has(type)),
      'emitted types no module declares',
    ).toEqual([]);
    for (const event of events) {
      const object = event.data?.object;
      expect(typeof object === 'object' && object !== null && !Array.isArray(object), event.type).toBe(true);
      expect(Object.keys(object).length, `${event.type} has an empty object`).toBeGreaterThan(0);
    }

    // Every event from the endpoint's own creation on reached it, once, signed with its secret.
    const from = events.findIndex(
      (e) => e.type === 'webhook_endpoint.created' && e.resource.id === endpoint.webhookEndpointID,
    );
    expect(from).toBeGreaterThanOrEqual(0);
    const expected = events.slice(from).map((event) => event.id);
    await eventually(() => {
      const got = new Set(receiver.received.map((request) => request.id));
      return expected.every((id) => got.has(id)) ? true : undefined;
    }, 20_000);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(receiver.received.map((request) => request.id).sort()).toEqual([...expected].sort());
    expect([...receiver.countById().values()].every((count) => count === 1)).toBe(true);
    const byId = new Map(events.map((event) => [event.id, event]));
    for (const request of receiver.received) {
      expect(request.path).toBe('/all');
      expect(verifyWebhook(endpoint.Secret, request)).toEqual(byId.get(request.id));
    }

    const examples = new Map<string, WireEvent>();
    for (const event of events) if (!examples.has(event.type)) examples.set(event.type, event);
    if (process.env.UPDATE_EVENT_CATALOGUE === '1' && dialect === 'sqlite')
      fs.writeFileSync(CATALOGUE_PATH, await renderEventCatalogue(examples));
    const headings = catalogueHeadings(fs.readFileSync(CATALOGUE_PATH, 'utf8'));
    expect(headings.length, 'one ### heading per type').toBe(new Set(headings).size);
    expect([...headings].sort()).toEqual([...declared].sort());
  }, 60_000);
});
