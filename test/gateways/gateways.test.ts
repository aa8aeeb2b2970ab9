import { beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.ts';
import { ConflictError, NotFoundError, ValidationError } from '../../src/errors.ts';
import { createAccount } from '../../src/modules/auth/index.ts';
import {
  addGateway,
  assertGatewayUsable,
  findPrimaryGateway,
  gatewayAccepts,
  getGateway,
  setGatewayEnabled,
  setPrimaryGateway,
} from '../../src/modules/gateways/index.ts';
import { accountContext } from '../helpers/context.ts';
import { STAGING } from '../helpers/service.ts';
import type { TestAccount } from '../helpers/service.ts';
import { useTestService } from '../helpers/testService.ts';
import { modulePorts } from '../../src/modulePorts.ts';

const t = useTestService({ secondAccount: true });
const { other } = t;

/** Spec (public-service notes, Gateways): these fields, exactly. */
const SPEC_FIELDS = [
  'gatewayID',
  'GatewayToken',
  'GatewayName',
  'FriendlyName',
  'GatewayType',
  'isActive',
  'isTestMode',
  'isAcceptCC',
  'isAcceptBankDD',
  'isEnabled',
  'isPrimary',
  'isManualRecon',
];
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

async function gatewaysOf(as: TestAccount, query = '') {
  const res = await as.request('GET', `/v1/gateways${query}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as Array<Record<string, any>>;
}

/** The ids and primary flags of an account's gateways, read from the table itself. */
async function primaryFlags(accountId: number) {
  const rows = await t.service.storage.db
    .selectFrom('gateways')
    .select(['id', 'is_primary'])
    .where('account_id', '=', accountId)
    .orderBy('id')
    .execute();
  return rows.filter((row) => Boolean(row.is_primary)).map((row) => row.id);
}

describe('the built-in test gateway', () => {
  it('every new account has one: primary, enabled, active, in test mode, accepting cards and bank debits', async () => {
    const [gateway, ...rest] = await gatewaysOf(t);
    expect(rest).toEqual([]);
    expect(Object.keys(gateway!).sort()).toEqual([...SPEC_FIELDS].sort());
    expect(gateway).toMatchObject({
      GatewayName: 'TestGateway',
      FriendlyName: 'Test gateway',
      GatewayType: 'test',
      isActive: true,
      isTestMode: true,
      isAcceptCC: true,
      isAcceptBankDD: true,
      isEnabled: true,
      isPrimary: true,
      isManualRecon: false,
    });
    expect(gateway!.GatewayToken).toMatch(UUID);

    const [theirs] = await gatewaysOf(other);
    expect(theirs!.gatewayID).not.toBe(gateway!.gatewayID);
    expect(theirs!.GatewayToken).not.toBe(gateway!.GatewayToken);
  });

  it('is made with the account, at its creation time', async () => {
    const created = await createAccount(
      t.service.storage.db,
      { ports: modulePorts(), clock: clockAt(), wallClock: systemClock },
      { name: 'Fresh' },
    );
    const rows = await t.service.storage.db
      .selectFrom('gateways')
      .select(['gateway_type', 'created_at'])
      .where('account_id', '=', created.account.id)
      .execute();
    expect(rows).toEqual([{ gateway_type: 'test', created_at: '2030-01-02T03:04:05.000Z' }]);
  });
});

function clockAt(at = '2030-01-02T03:04:05.000Z') {
  return { now: () => new Date(at) };
}

describe('GET /v1/gateways', () => {
  let paged: TestAccount;
  let ids: number[];
  beforeAll(async () => {
    paged = await t.newAccount('Paged');
    const ctx = await accountContext(t, paged.accountId);
    await addGateway(ctx, { type: 'manual', friendlyName: 'Cash desk' });
    await addGateway(ctx, { type: 'test', friendlyName: 'Second simulator' }, STAGING);
    ids = (await gatewaysOf(paged)).map((g) => g.gatewayID);
  });

  it('lists the gateways in creation order, the test gateway first', async () => {
    const all = await gatewaysOf(paged);
    expect(all.map((g) => g.FriendlyName)).toEqual(['Test gateway', 'Cash desk', 'Second simulator']);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(all[1]).toMatchObject({
      GatewayName: 'ManualGateway',
      GatewayType: 'manual',
      isActive: true,
      isTestMode: false,
      isAcceptCC: false,
      isAcceptBankDD: false,
      isEnabled: true,
      isPrimary: false,
      isManualRecon: true,
    });
    for (const gateway of all) expect(Object.keys(gateway).sort()).toEqual([...SPEC_FIELDS].sort());
  });

  it('pages with page and page_size', async () => {
    expect((await gatewaysOf(paged, '?page_size=2')).map((g) => g.gatewayID)).toEqual(ids.slice(0, 2));
    expect((await gatewaysOf(paged, '?page=2&page_size=2')).map((g) => g.gatewayID)).toEqual(ids.slice(2));
    expect(await gatewaysOf(paged, '?page=3&page_size=2')).toEqual([]);
  });

  it.each([
    ['?page_size=0', 'page_size'],
    ['?page_size=201', 'page_size'],
    ['?page=0', 'page'],
    ['?page=x', 'page'],
  ])('answers 422 naming the parameter for %s', async (query, field) => {
    const res = await paged.request('GET', `/v1/gateways${query}`);
    expect(res.status).toBe(422);
    expect(res.headers.get('content-type')).toContain('application/problem+json');
    expect(res.body.fields.map((f: { field: string }) => f.field)).toEqual([field]);
  });

  it("lists only the account's own gateways", async () => {
    const mine = new Set((await gatewaysOf(t)).map((g) => g.gatewayID));
    for (const id of ids) expect(mine.has(id)).toBe(false);
  });

  it('answers 401 without credentials', async () => {
    expect((await t.request('GET', '/v1/gateways', { auth: false })).status).toBe(401);
  });
});

describe('GET /v1/gateways/{gatewayID}', () => {
  it('returns the gateway as listed', async () => {
    const [listed] = await gatewaysOf(t);
    const res = await t.request('GET', `/v1/gateways/${listed!.gatewayID}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual(listed);
  });

  it("answers 404 for another account's gateway, as for one that does not exist", async () => {
    const [theirs] = await gatewaysOf(other);
    for (const id of [theirs!.gatewayID, 987654]) {
      const res = await t.request('GET', `/v1/gateways/${id}`);
      expect(res.status).toBe(404);
      expect(res.headers.get('content-type')).toContain('application/problem+json');
      expect(res.body).toMatchObject({ code: 'gateway_not_found', detail: `Gateway ${id} was not found` });
    }
  });

  it.each(['abc', '0', '1.5'])('answers 422 naming gatewayID for the id %s', async (id) => {
    const res = await t.request('GET', `/v1/gateways/${id}`);
    expect(res.status).toBe(422);
    expect(res.body.fields.map((f: { field: string }) => f.field)).toEqual(['gatewayID']);
  });
});

describe('gateway settings', () => {
  const SECRET = 'sk_live_do_not_leak_4242';

  it('are sealed at rest and never returned', async () => {
    const ctx = await accountContext(t, t.accountId);
    const added = await addGateway(
      ctx,
      {
        type: 'test',
        friendlyName: 'Configured',
        settings: { apiSecret: SECRET },
      },
      STAGING,
    );
    const row = await t.service.storage.db
      .selectFrom('gateways')
      .select('settings_sealed')
      .where('id', '=', added.id)
      .executeTakeFirstOrThrow();
    expect(row.settings_sealed).not.toContain(SECRET);
    expect(JSON.parse(t.service.secrets.open(row.settings_sealed!))).toEqual({ apiSecret: SECRET });

    const one = await t.request('GET', `/v1/gateways/${added.id}`);
    const list = await t.request('GET', '/v1/gateways');
    for (const res of [one, list]) {
      expect(res.status).toBe(200);
      expect(res.text).not.toContain(SECRET);
      expect(res.text).not.toContain(row.settings_sealed!);
      expect(res.text.toLowerCase()).not.toContain('settings');
    }
    expect(Object.keys(one.body).sort()).toEqual([...SPEC_FIELDS].sort());
    expect(added).not.toHaveProperty('settings');
  });

  it.each([
    [{ type: 'manual', friendlyName: 'Cash', settings: { a: 1 } }, 'Settings'],
    [{ type: 'test', friendlyName: 'Sim', settings: [1, 2] }, 'Settings'],
    [{ type: 'test', friendlyName: 'Sim', settings: 'secret' }, 'Settings'],
    [{ type: 'test', friendlyName: 'Sim', settings: { big: 'x'.repeat(10_001) } }, 'Settings'],
    [{ type: 'paypal', friendlyName: 'Pay' }, 'GatewayType'],
    [{ type: 'manual', friendlyName: '   ' }, 'FriendlyName'],
    [{ type: 'manual', friendlyName: 'x'.repeat(256) }, 'FriendlyName'],
  ])('adding %j is refused naming %s, and adds nothing', async (input, field) => {
    const ctx = await accountContext(t, t.accountId);
    const before = (await gatewaysOf(t)).length;
    const error = await addGateway(ctx, input).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).fields.map((f) => f.field)).toContain(field);
    expect((await gatewaysOf(t)).length).toBe(before);
  });
});

describe('gateway functions other modules call', () => {
  it('assertGatewayUsable returns an enabled gateway of the account and refuses others naming the field', async () => {
    const ctx = await accountContext(t, t.accountId);
    const [mine] = await gatewaysOf(t);
    const [theirs] = await gatewaysOf(other);
    expect((await assertGatewayUsable(ctx, mine!.gatewayID, 'gatewayID')).id).toBe(mine!.gatewayID);

    for (const id of [theirs!.gatewayID, 987654]) {
      const error = await assertGatewayUsable(ctx, id, 'gatewayID').catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ValidationError);
      expect(error).toMatchObject({
        code: 'gateway_not_found',
        fields: [{ field: 'gatewayID', message: `gateway ${id} does not exist` }],
      });
    }

    const spare = await addGateway(ctx, { type: 'manual', friendlyName: 'Spare' });
    await setGatewayEnabled(ctx, spare.id, false);
    const error = await assertGatewayUsable(ctx, spare.id, 'PrimaryGatewayID').catch((e: unknown) => e);
    expect(error).toMatchObject({
      code: 'gateway_not_usable',
      fields: [{ field: 'PrimaryGatewayID', message: `gateway ${spare.id} is disabled` }],
    });
    await setGatewayEnabled(ctx, spare.id, true, STAGING);
    expect((await assertGatewayUsable(ctx, spare.id, 'PrimaryGatewayID')).isEnabled).toBe(true);
  });

  it('gatewayAccepts follows the type: the test gateway takes cards and bank debits, a manual one neither', async () => {
    const ctx = await accountContext(t, t.accountId);
    const [testGateway] = await gatewaysOf(t);
    const simulator = await getGateway(ctx, testGateway!.gatewayID);
    const manual = await addGateway(ctx, { type: 'manual', friendlyName: 'EFT' });
    expect(gatewayAccepts(simulator, 'credit_card')).toBe(true);
    expect(gatewayAccepts(simulator, 'bank_account')).toBe(true);
    expect(gatewayAccepts(manual, 'credit_card')).toBe(false);
    expect(gatewayAccepts(manual, 'bank_account')).toBe(false);
  });

  it("getGateway answers not-found for another account's gateway", async () => {
    const ctx = await accountContext(t, t.accountId);
    const [theirs] = await gatewaysOf(other);
    await expect(getGateway(ctx, theirs!.gatewayID)).rejects.toBeInstanceOf(NotFoundError);
  });

  it('findPrimaryGateway: none while the primary is disabled, the same one once enabled again', async () => {
    const account = await t.newAccount('Primary');
    const ctx = await accountContext(t, account.accountId);
    const [testGateway] = await gatewaysOf(account);
    expect((await findPrimaryGateway(ctx))?.id).toBe(testGateway!.gatewayID);

    const disabled = await setGatewayEnabled(ctx, testGateway!.gatewayID, false);
    expect(disabled).toMatchObject({ isEnabled: false, isPrimary: true });
    expect(await findPrimaryGateway(ctx)).toBeUndefined();

    await setGatewayEnabled(ctx, testGateway!.gatewayID, true, STAGING);
    expect((await findPrimaryGateway(ctx))?.id).toBe(testGateway!.gatewayID);
  });

  it('setPrimaryGateway leaves exactly one primary, also when many run at once', async () => {
    const account = await t.newAccount('Switching');
    const ctx = await accountContext(t, account.accountId);
    const [testGateway] = await gatewaysOf(account);
    const a = await addGateway(ctx, { type: 'manual', friendlyName: 'A' });
    const b = await addGateway(ctx, { type: 'test', friendlyName: 'B', isPrimary: true }, STAGING);
    expect(await primaryFlags(account.accountId)).toEqual([b.id]);

    await setPrimaryGateway(ctx, a.id, STAGING);
    expect(await primaryFlags(account.accountId)).toEqual([a.id]);
    expect((await findPrimaryGateway(ctx))?.id).toBe(a.id);
    expect((await gatewaysOf(account)).filter((g) => g.isPrimary).map((g) => g.gatewayID)).toEqual([a.id]);

    const choices = [testGateway!.gatewayID, a.id, b.id];
    await Promise.all(Array.from({ length: 12 }, (_, i) => setPrimaryGateway(ctx, choices[i % 3]!, STAGING)));
    expect(await primaryFlags(account.accountId)).toHaveLength(1);

    // Gateways added as primary meanwhile, which a switch already running would not see.
    await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        i % 2
          ? setPrimaryGateway(ctx, choices[i % 3]!, STAGING)
          : addGateway(ctx, { type: 'manual', friendlyName: `New ${i}`, isPrimary: true }),
      ),
    );
    expect(await primaryFlags(account.accountId)).toHaveLength(1);
  });

  it('setPrimaryGateway refuses a disabled gateway (409) and leaves the primary as it was', async () => {
    const account = await t.newAccount('Refusing');
    const ctx = await accountContext(t, account.accountId);
    const [testGateway] = await gatewaysOf(account);
    const spare = await addGateway(ctx, { type: 'manual', friendlyName: 'Spare' });
    await setGatewayEnabled(ctx, spare.id, false);
    const error = await setPrimaryGateway(ctx, spare.id, STAGING).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConflictError);
    expect(error).toMatchObject({ code: 'gateway_not_usable' });
    expect(await primaryFlags(account.accountId)).toEqual([testGateway!.gatewayID]);

    const [theirs] = await gatewaysOf(other);
    await expect(setPrimaryGateway(ctx, theirs!.gatewayID, STAGING)).rejects.toBeInstanceOf(NotFoundError);
    await expect(setGatewayEnabled(ctx, theirs!.gatewayID, false)).rejects.toBeInstanceOf(NotFoundError);
    expect((await gatewaysOf(other))[0]).toMatchObject({ isEnabled: true, isPrimary: true });
  });

  it('a test account never has a gateway out of test mode; a live one has what was asked', async () => {
    const live = await accountContext(t, t.accountId);
    expect((await addGateway(live, { type: 'manual', friendlyName: 'Live' })).isTestMode).toBe(false);
    expect(
      (await addGateway(live, { type: 'manual', friendlyName: 'Trial', isTestMode: true })).isTestMode,
    ).toBe(true);
    // The simulator is in test mode whatever is asked.
    expect(
      (await addGateway(live, { type: 'test', friendlyName: 'Sim', isTestMode: false }, STAGING)).isTestMode,
    ).toBe(true);

    const created = await createAccount(
      t.service.storage.db,
      { ports: modulePorts(), clock: clockAt(), wallClock: systemClock },
      { name: 'Sandbox', isTest: true },
    );
    const sandbox = await accountContext(t, created.account.id);
    expect((await addGateway(sandbox, { type: 'manual', friendlyName: 'Cash' })).isTestMode).toBe(true);
  });
});
