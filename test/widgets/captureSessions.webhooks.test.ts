import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateUpTo } from '../../src/storage/migrate.ts';
import { createCustomer, ok } from '../helpers/billing.ts';
import { databaseMigratedUpTo, insertAccount } from '../helpers/migrations.ts';
import { eventually } from '../helpers/service.ts';
import { startWebhookReceiver, verifyWebhook } from '../helpers/webhookReceiver.ts';
import type { WebhookReceiver } from '../helpers/webhookReceiver.ts';
import { useTestService } from '../helpers/testService.ts';
import { VISA, sessionBody } from './fixtures.ts';

// docs/spec-decisions.md, "Capture widget sessions", Tokens: events and webhooks show a session's SessionToken
// null, as its HashToken, since they are stored and sent on and the SessionToken reads and completes the session.

let receiver: WebhookReceiver;

// The receiver starts before the service and closes after it, as the hooks are registered (vitest runs afterAll
// hooks in reverse).
beforeAll(async () => {
  receiver = await startWebhookReceiver();
});
afterAll(() => receiver?.close());
const t = useTestService({
  env: { WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOWED_PRIVATE_HOSTS: '127.0.0.1', WORKER_INTERVAL_MS: '50' },
});

describe('capture session events', () => {
  it('leave the SessionToken out of every webhook and event, while the API still shows it', async () => {
    const endpoint = await ok(t, 'POST', '/v1/webhookendpoints', {
      Url: `${receiver.url}/hook`,
      EnabledEvents: ['capture_session.*'],
    });
    const session = await ok(t, 'POST', '/v1/widgets/capturepaymethod/create', await sessionBody(t), 200);
    const token = session.SessionToken as string;
    expect(token).toMatch(/^cs_/);
    const submitted = await t.request('POST', `/widget/capture/${session.HashToken}/submit`, {
      auth: false,
      body: { number: VISA, expiry: '12/31', securityCode: '123', name: 'Ada Lovelace' },
    });
    expect(submitted.status, submitted.text).toBe(200);
    const customerID = await createCustomer(t);
    await ok(t, 'PUT', '/v1/widgets/capturepaymethod/complete', { customerID, SessionToken: token }, 204);

    const types = ['capture_session.created', 'capture_session.captured', 'capture_session.completed'];
    const delivered = await eventually(() => (receiver.received.length >= 3 ? receiver.received : undefined));
    const payloads = delivered.map((request) => verifyWebhook(endpoint.Secret, request) as any);
    expect(payloads.map((payload) => payload.type)).toEqual(types);
    for (const [index, request] of delivered.entries()) {
      expect(payloads[index].data.object).toMatchObject({ iframeCapturePayID: session.iframeCapturePayID });
      expect(payloads[index].data.object.SessionToken).toBeNull();
      expect(request.body).not.toContain(token);
    }
    const events = await ok(
      t,
      'GET',
      `/v1/events?resourceType=capture_session&resourceID=${session.iframeCapturePayID}`,
    );
    expect(events).toHaveLength(3);
    expect(JSON.stringify(events)).not.toContain(token);
    // The merchant's server, with its key, still reads it.
    expect((await ok(t, 'GET', `/v1/widgets/capturepaymethod/get/${token}`)).SessionToken).toBe(token);
  });
});

describe('migration 0034', () => {
  const NOW = '2026-11-22T10:00:00.000Z';
  let database: Awaited<ReturnType<typeof databaseMigratedUpTo>>;
  let db: Kysely<any>;
  afterAll(() => database?.close());

  it('takes the SessionToken out of the events and audit entries written before it, and nothing else', async () => {
    database = await databaseMigratedUpTo('0033_capture_sale_up_to_owed');
    db = database.db;
    const accountId = await insertAccount(db, 'Before 0033');
    const object = { iframeCapturePayID: 7, SessionToken: 'cs_before', HashToken: null, ExtRef: 'order-1' };
    const other = { customerID: 3, Name: 'SessionToken is only a word here' };
    for (const [id, resourceType, shown] of [
      ['evt_0001', 'capture_session', object],
      ['evt_0002', 'customer', other],
    ] as const) {
      await db
        .insertInto('events')
        .values({
          id,
          account_id: accountId,
          type: `${resourceType}.created`,
          occurred_at: NOW,
          recorded_at: NOW,
          resource_type: resourceType,
          resource_id: '7',
          resource_version: 1,
          payload: JSON.stringify({ type: `${resourceType}.created`, data: { object: shown } }),
        })
        .execute();
      await db
        .insertInto('audit_log')
        .values({
          account_id: accountId,
          recorded_at: NOW,
          actor_type: 'api_key',
          operation: 'create',
          event_id: id,
          event_type: `${resourceType}.created`,
          resource_type: resourceType,
          resource_id: '7',
          before: null,
          after: JSON.stringify(shown),
        })
        .execute();
    }

    await migrateUpTo(database.storage.db, '0034_capture_session_token_out_of_events');

    const events = await db.selectFrom('events').select(['payload']).orderBy('id').execute();
    expect(events.map((event) => JSON.parse(event.payload).data.object)).toEqual([
      { ...object, SessionToken: null },
      other,
    ]);
    const audit = await db.selectFrom('audit_log').select(['before', 'after']).orderBy('id').execute();
    expect(audit.map((entry) => [entry.before, JSON.parse(entry.after)])).toEqual([
      [null, { ...object, SessionToken: null }],
      [null, other],
    ]);
  });
});
