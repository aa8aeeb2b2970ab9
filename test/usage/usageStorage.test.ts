import { describe, expect, it } from 'vitest';
import { usageStorageTable } from '../../src/cli/usageCommands.ts';
import { EVENT_ROW_BYTES, usageStorageReport } from '../../src/modules/usage/index.ts';
import { createCustomer } from '../helpers/billing.ts';
import { runCli } from '../helpers/cli.ts';
import type { TestAccount } from '../helpers/service.ts';
import { useTestService } from '../helpers/testService.ts';
import { defineMetric } from './usage.fixtures.ts';

// What each account stores of usage events, and its cap (docs/usage.md, "Limits"): the totals the insert keeps,
// the 409 past the cap, and `billing usage storage`. Each test has accounts of its own.

/** Small enough for a test to reach: fifteen of these tests' events. */
const CAP = 2000;

const t = useTestService({ env: { USAGE_STORAGE_BYTES_PER_ACCOUNT: String(CAP) } });

interface Sender {
  account: TestAccount;
  customerId: number;
}

async function sender(name: string): Promise<Sender> {
  const account = await t.newAccount(name);
  await defineMetric(t.service.storage.db, account.accountId, 'api_calls', 'count');
  return { account, customerId: await createCustomer(account) };
}

const properties = { region: 'eu', city: 'Zürich' };
const event = (s: Sender, transactionId: string) => ({
  transaction_id: transactionId,
  customerID: s.customerId,
  code: 'api_calls',
  properties,
});

/** An event's stored size as docs/usage.md, "Limits" gives it: ü is two bytes of UTF-8. */
const sizeOf = (transactionId: string) =>
  Buffer.byteLength(JSON.stringify(properties)) + Buffer.byteLength(transactionId) + EVENT_ROW_BYTES;

async function storedOf(accountId: number) {
  const [row] = await usageStorageReport(t.service.storage.db, CAP, accountId);
  return { events: row!.events, bytes: row!.bytes };
}

async function sendBatch(s: Sender, transactionIds: string[]) {
  return s.account.request('POST', '/v1/usage-events/batch', {
    body: { events: transactionIds.map((id) => event(s, id)) },
  });
}

describe("an account's stored usage events", () => {
  it('are counted as sent, single and in batches, a duplicate transaction_id once', async () => {
    const s = await sender('Counted');
    expect(await storedOf(s.account.accountId)).toEqual({ events: 0, bytes: 0 });
    const single = await s.account.request('POST', '/v1/usage-events', { body: event(s, 'one') });
    expect(single.status, single.text).toBe(201);
    expect(await storedOf(s.account.accountId)).toEqual({ events: 1, bytes: sizeOf('one') });

    // 'one' was sent before and 'two' twice in the batch: each counted once, with 'three'.
    const batch = await sendBatch(s, ['one', 'two', 'two', 'three']);
    expect(batch.status, batch.text).toBe(200);
    expect(batch.body.events.map((o: { Status: string }) => o.Status)).toEqual([
      'duplicate',
      'accepted',
      'duplicate',
      'accepted',
    ]);
    const again = await s.account.request('POST', '/v1/usage-events', { body: event(s, 'two') });
    expect(again.status, again.text).toBe(200);
    expect(await storedOf(s.account.accountId)).toEqual({
      events: 3,
      bytes: sizeOf('one') + sizeOf('two') + sizeOf('three'),
    });
  });

  it('past the cap refuse the next batch with 409 usage_storage_full, storing none of it; others still send', async () => {
    const full = await sender('Full');
    const other = await sender('Other');
    // An event is 32 + 3 + 100 = 135 bytes; 9 × 135 = 1,215, under the cap of 2,000: the next batch is taken whole
    // although it crosses the cap (1,215 + 1,215 = 2,430).
    const ids = (prefix: string) => Array.from({ length: 9 }, (_, i) => `${prefix}-${i}`);
    expect(sizeOf('a-0')).toBe(135);
    expect((await sendBatch(full, ids('a'))).status).toBe(200);
    const crossing = await sendBatch(full, ids('b'));
    expect(crossing.status, crossing.text).toBe(200);
    expect(await storedOf(full.account.accountId)).toEqual({ events: 18, bytes: 2430 });

    const refused = await sendBatch(full, ids('c'));
    expect(refused.status, refused.text).toBe(409);
    expect(refused.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(refused.body).toMatchObject({ status: 409, code: 'usage_storage_full' });
    expect(refused.body.detail).toMatch(/USAGE_STORAGE_BYTES_PER_ACCOUNT/);
    const single = await full.account.request('POST', '/v1/usage-events', { body: event(full, 'c-single') });
    expect(single.status, single.text).toBe(409);
    expect(single.body.code).toBe('usage_storage_full');

    // Nothing of the refused batch or event was kept: not listed, not counted.
    expect(await storedOf(full.account.accountId)).toEqual({ events: 18, bytes: 2430 });
    const listed = await full.account.request(
      'GET',
      `/v1/customers/${full.customerId}/usage-events?page_size=100`,
    );
    const sent = listed.body.map((e: { transaction_id: string }) => e.transaction_id);
    expect(sent).toHaveLength(18);
    expect(sent.filter((id: string) => id.startsWith('c-'))).toEqual([]);
    // Found full, the account is refused before anything is read: a duplicate too.
    const duplicate = await full.account.request('POST', '/v1/usage-events', { body: event(full, 'a-0') });
    expect(duplicate.status, duplicate.text).toBe(409);

    const theirs = await sendBatch(other, ids('c'));
    expect(theirs.status, theirs.text).toBe(200);
    expect(await storedOf(other.account.accountId)).toEqual({ events: 9, bytes: 1215 });
  });

  it('are printed by `billing usage storage` beside the cap, as a table and as JSON', async () => {
    const s = await sender('Printed');
    expect((await sendBatch(s, ['p-1', 'p-2'])).status).toBe(200);
    const bytes = sizeOf('p-1') + sizeOf('p-2');

    const json = await runCli(['usage', 'storage', '--json'], t.env, 120_000);
    expect(json.code, json.stderr).toBe(0);
    const all = JSON.parse(json.stdout) as { accountId: number; bytes: number }[];
    expect(all).toContainEqual({
      accountId: s.account.accountId,
      events: 2,
      bytes,
      capBytes: CAP,
      used: bytes / CAP,
    });
    // The largest first.
    expect(all.map((r) => r.bytes)).toEqual([...all.map((r) => r.bytes)].sort((a, b) => b - a));

    const table = await runCli(['usage', 'storage', '--account', String(s.account.accountId)], t.env, 60_000);
    expect(table.code, table.stderr).toBe(0);
    // 2 × 135 = 270 bytes of 2,000: 13.5 %.
    expect(table.stdout.split('\n').slice(0, 2)).toEqual([
      'Account  Events  Bytes   Cap    Used',
      `${String(s.account.accountId).padStart(7)}       2    270  2000  13.5 %`,
    ]);

    const unknown = await runCli(['usage', 'storage', '--account', '999999'], t.env, 60_000);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/999999/);
  });

  it('of an account that sent none are zeros for that account', async () => {
    const quiet = await t.newAccount('Quiet');
    const one = await runCli(
      ['usage', 'storage', '--account', String(quiet.accountId), '--json'],
      t.env,
      60_000,
    );
    expect(JSON.parse(one.stdout)).toEqual([
      { accountId: quiet.accountId, events: 0, bytes: 0, capBytes: CAP, used: 0 },
    ]);
  });

  it('are shown without a cap or share when USAGE_STORAGE_BYTES_PER_ACCOUNT is 0', async () => {
    const s = await sender('Uncapped');
    expect((await sendBatch(s, ['u-1'])).status).toBe(200);
    const report = await usageStorageReport(t.service.storage.db, 0, s.account.accountId);
    expect(report).toEqual([
      { accountId: s.account.accountId, events: 1, bytes: sizeOf('u-1'), capBytes: null, used: null },
    ]);
    expect(usageStorageTable(report).split('\n')[1]).toMatch(/^ +\d+ +1 +135 +none +-$/);
  });
});
