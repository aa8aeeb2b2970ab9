import os from 'node:os';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { killAll, killTransient, runCli } from '../helpers/cli.ts';
import type { TestAccount } from '../helpers/service.ts';
import { auditOf, expectEvents, read } from '../helpers/resourceEvents.ts';
import { useTestService } from '../helpers/testService.ts';

// Changes made with the `billing` command (a real child process on the service's database) write their events
// like the API's, audited as the CLI's: the operating-system user at the host, and the command.

const t = useTestService();
afterEach(() => killTransient());
afterAll(async () => {
  await killAll();
});

const OPERATOR = `${os.userInfo().username}@${os.hostname()}`;

async function billing(...args: string[]): Promise<string> {
  const result = await runCli(args, t.env, 60_000);
  expect(result.code, result.stderr).toBe(0);
  return result.stdout;
}

function asAccount(accountId: number, apiKey: string): TestAccount {
  return {
    accountId,
    apiKey,
    request: (method, path, options = {}) =>
      t.request(method, path, { ...options, auth: { accountId, apiKey } }),
  };
}

async function expectCliAudit(account: TestAccount, eventId: string, operation: string) {
  expect(await auditOf(account, eventId)).toMatchObject({
    ActorType: 'cli',
    apiKeyID: null,
    ClientAddress: OPERATOR,
    RequestID: null,
    Operation: operation,
  });
}

describe('billing account and key commands', () => {
  let account: TestAccount;

  it('account create announces the account, its currency, test gateway and key, audited as the CLI', async () => {
    const created = JSON.parse(await billing('account', 'create', '--name', 'Cli events', '--json'));
    account = asAccount(created.accountID, created.apiKey);
    const [event] = await expectEvents(account, 'account', account.accountId, ['account.created']);
    expect(event!.data).toEqual({ object: await read(account, '/v1/account') });
    await expectCliAudit(account, event!.id, 'billing account create');
    const all = (await read(account, '/v1/events')) as any[];
    expect(all.map((e) => e.type).sort()).toEqual(
      ['account.created', 'api_key.created', 'currency.added', 'gateway.created'].sort(),
    );
    const audited = (await read(account, '/v1/auditlog')) as any[];
    expect(audited.map((e) => e.Operation)).toEqual(Array(4).fill('billing account create'));
  });

  it('account set announces account.updated with the old values', async () => {
    await billing(
      'account',
      'set',
      String(account.accountId),
      '--legal-name',
      'Cli Ltd',
      '--invoice-due-days',
      '7',
    );
    const [, updated] = await expectEvents(account, 'account', account.accountId, [
      'account.created',
      'account.updated',
    ]);
    expect(updated!.data).toEqual({
      object: await read(account, '/v1/account'),
      previous: { InvoiceDueDays: 0, LegalName: null },
    });
    await expectCliAudit(account, updated!.id, 'billing account set');
  });

  it('key create and key revoke announce the key without ever showing it; a second revoke writes nothing', async () => {
    const created = JSON.parse(
      await billing('key', 'create', '--account', String(account.accountId), '--json'),
    );
    await billing('key', 'revoke', String(created.keyID));
    const again = await runCli(['key', 'revoke', String(created.keyID)], t.env, 60_000);
    expect(again.code).toBe(1);

    const [made, revoked] = await expectEvents(account, 'api_key', created.keyID, [
      'api_key.created',
      'api_key.revoked',
    ]);
    expect(made!.data.object).toEqual({
      apiKeyID: created.keyID,
      KeyPrefix: created.apiKey.slice(0, 9),
      CreatedDate: made!.data.object.CreatedDate,
      RevokedDate: null,
    });
    expect(revoked!.data.previous).toEqual({ RevokedDate: null });
    expect(revoked!.data.object).toEqual({
      ...made!.data.object,
      RevokedDate: revoked!.data.object.RevokedDate,
    });
    expect(Number.isNaN(Date.parse(revoked!.data.object.RevokedDate))).toBe(false);
    expect(JSON.stringify([made, revoked])).not.toContain(created.apiKey);
    await expectCliAudit(account, made!.id, 'billing key create');
    await expectCliAudit(account, revoked!.id, 'billing key revoke');
  });
});

describe('billing gateway commands', () => {
  it('announce a gateway added, disabled, enabled and made primary, and the primary it replaced', async () => {
    const created = JSON.parse(await billing('account', 'create', '--name', 'Cli gateways', '--json'));
    const account = asAccount(created.accountID, created.apiKey);
    const [testGateway] = await read(account, '/v1/gateways');
    const testId = testGateway.gatewayID as number;

    const added = JSON.parse(
      await billing(
        'gateway',
        'add',
        '--account',
        String(account.accountId),
        '--type',
        'manual',
        '--name',
        'Cash desk',
        '--primary',
        '--json',
      ),
    );
    const id = added.gatewayID as number;
    const afterAdd = await read(account, `/v1/gateways/${id}`);
    const testAfterAdd = await read(account, `/v1/gateways/${testId}`);
    await billing('gateway', 'disable', String(id));
    const disabled = await read(account, `/v1/gateways/${id}`);
    await billing('gateway', 'enable', String(id));
    const enabled = await read(account, `/v1/gateways/${id}`);
    await billing('gateway', 'primary', String(testId));

    const events = await expectEvents(account, 'gateway', id, [
      'gateway.created',
      'gateway.updated',
      'gateway.updated',
      'gateway.updated',
    ]);
    expect(events[0]!.data).toEqual({ object: afterAdd });
    expect(events[1]!.data).toEqual({ object: disabled, previous: { isEnabled: true } });
    expect(events[2]!.data).toEqual({ object: enabled, previous: { isEnabled: false } });
    expect(events[3]!.data).toEqual({
      object: await read(account, `/v1/gateways/${id}`),
      previous: { isPrimary: true },
    });
    const testEvents = await expectEvents(account, 'gateway', testId, [
      'gateway.created',
      'gateway.updated',
      'gateway.updated',
    ]);
    expect(testEvents[1]!.data).toEqual({ object: testAfterAdd, previous: { isPrimary: true } });
    expect(testEvents[2]!.data).toEqual({
      object: await read(account, `/v1/gateways/${testId}`),
      previous: { isPrimary: false },
    });
    await expectCliAudit(account, events[0]!.id, 'billing gateway add');
    await expectCliAudit(account, events[1]!.id, 'billing gateway disable');
    await expectCliAudit(account, events[2]!.id, 'billing gateway enable');
    await expectCliAudit(account, events[3]!.id, 'billing gateway primary');
  });
});
