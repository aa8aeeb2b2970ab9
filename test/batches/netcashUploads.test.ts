import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import PostalMime from 'postal-mime';
import { afterAll, describe, expect, it } from 'vitest';
import { addBusinessDays, earliestActionDate, lastSubmitDate } from '../../src/core/bankingDays.ts';
import { addGateway } from '../../src/modules/gateways/index.ts';
import { ok } from '../helpers/billing.ts';
import { runCli } from '../helpers/cli.ts';
import { accountContext } from '../helpers/context.ts';
import { eventually } from '../helpers/service.ts';
import type { TestAccount } from '../helpers/service.ts';
import { useTestService } from '../helpers/testService.ts';
import { NetcashNifAccount } from '../providers/netcash/nifUploadLayouts.ts';
import { NiwsStandIn } from '../providers/netcash/niwsStandIn.ts';
import {
  bankCustomer,
  batchOf,
  debtorLines,
  invoiceOf,
  openBatch,
  paymentOf,
  uploadReturns,
} from './bankFileFixtures.ts';
import type { GatewayRef } from './bankFileFixtures.ts';
import { advanceTo, businessDay, debitAccount, debitInvoice, plusDays } from './fixtures.ts';
import type { DebitSetup } from './fixtures.ts';

// Batches that reach Netcash by themselves (docs/gateways/netcash.md, "Uploading through NIWS_NIF"): a netcash
// gateway uploads each built batch's file through Netcash's web service, reads its load report, and fetches
// Netcash's statement each business day; a file Netcash refuses sends its batch back to open with Netcash's reasons;
// without the web service the staff are told each business day that a file waits. Netcash is the NIWS stand-in with
// the upload layouts (test/providers/netcash/nifUploadLayouts.ts), reached over the service's provider fetch.

const SERVICE_KEY = '3f2b8c1e-7d4a-4e5b-9c6d-0a1b2c3d4e5f';
const ACCOUNT_SERVICE_KEY = '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d';
const STAFF = 'finance@northwind.example';
/** The account Netcash refuses at load, and the one returned unpaid 02 (not provided for). */
const REFUSED_ACCOUNT = '4071234561';
const REFUSAL = 'Invalid bank account: failed the check digit';
const UNPAID_ACCOUNT = '1234567890';

const netcash = new NetcashNifAccount({
  serviceKey: SERVICE_KEY,
  accountServiceKey: ACCOUNT_SERVICE_KEY,
  refusedAccounts: new Map([[REFUSED_ACCOUNT, REFUSAL]]),
  unpaidAccounts: new Map([[UNPAID_ACCOUNT, '02']]),
  reportNotReadyFirst: true,
});
const standIn = new NiwsStandIn(netcash.layouts());

const t = useTestService({ providerFetch: standIn.fetch, smtp: true });
const { smtp } = t;
afterAll(async () => {
  expect(standIn.problems).toEqual([]);
  expect(netcash.problems).toEqual([]);
});

const saAccount = (holder: string, accountType: string, accountNumber: string, branchCode: string) => ({
  Method: 'debit_order',
  AccountType: accountType,
  AccountHolder: holder,
  Bank: 'Standard Bank',
  AccountNumber: accountNumber,
  BranchCode: branchCode,
});

/** A ZAR test account whose staff are e-mailed, with a netcash gateway of these settings. */
async function netcashAccount(
  settings: Record<string, unknown>,
  accountSettings: Record<string, unknown> = {},
): Promise<{ setup: DebitSetup; gateway: GatewayRef }> {
  const setup = await debitAccount(t, 'ZAR');
  await ok(setup.account, 'PUT', '/v1/account', { StaffEmail: STAFF, ...accountSettings });
  const added = await addGateway(await accountContext(t, setup.account.accountId), {
    type: 'netcash',
    friendlyName: 'Netcash',
    settings,
  });
  const listed = (await ok(setup.account, 'GET', '/v1/gateways')) as any[];
  const gatewayToken = listed.find((g) => g.gatewayID === added.id).GatewayToken;
  return { setup, gateway: { gatewayId: added.id, gatewayToken } };
}

/** The staff's e-mails whose subject has `words`, subject and text, once `count` of them have arrived. */
async function staffMails(words: string, count: number): Promise<string[]> {
  const found = await eventually(async () => {
    const mails = await Promise.all(
      smtp.messages.filter((m) => m.to.includes(STAFF)).map((m) => PostalMime.parse(m.raw)),
    );
    const about = mails.filter((mail) => (mail.subject ?? '').includes(words));
    return about.length >= count ? about : undefined;
  });
  expect(found).toHaveLength(count);
  return found.map((mail) => `${mail.subject}\n${(mail.text ?? '').replace(/[ \t]+/g, ' ')}`);
}

/** The batch of the gateway the run made (the account's only one). */
async function batchOfGateway(account: TestAccount, gatewayToken: string) {
  const batches = (await ok(account, 'GET', '/v1/batches')) as any[];
  const [batch] = batches.filter((b) => b.GatewayToken === gatewayToken);
  return batchOf(account, batch.BatchToken);
}

describe('a netcash gateway that uploads through the web service', () => {
  it('uploads an automatic batch, reads its load report and settles its lines from the statement, no one acting but the authoriser', async () => {
    const { setup, gateway } = await netcashAccount(
      { serviceKey: SERVICE_KEY, accountServiceKey: ACCOUNT_SERVICE_KEY },
      { AutoSubmitBatches: true },
    );
    const { account } = setup;
    const paidCustomer = await bankCustomer(
      setup,
      'ZAR',
      saAccount('Thandi Nkosi', 'Current', '62001234567', '250655'),
      gateway,
    );
    const unpaidCustomer = await bankCustomer(
      setup,
      'ZAR',
      saAccount('Pieter van Wyk', 'Savings', UNPAID_ACCOUNT, '051001'),
      gateway,
    );
    const paidInvoice = await debitInvoice(setup, paidCustomer, {
      dueIn: 10,
      amount: 349.5,
      gatewayId: gateway.gatewayId,
    });
    const unpaidInvoice = await debitInvoice(setup, unpaidCustomer, {
      dueIn: 10,
      amount: 120,
      gatewayId: gateway.gatewayId,
    });
    const actionDate = businessDay(plusDays(setup.today, 10));
    const lastSafe = lastSubmitDate('debit_order', actionDate);

    // The last safe day: bundled, submitted (AutoSubmitBatches), built and uploaded by the run; Netcash's load
    // report is not ready on the first ask, so no try is counted yet.
    await advanceTo(account, lastSafe);
    const uploaded = await batchOfGateway(account, gateway.gatewayToken);
    expect(uploaded).toMatchObject({ State: 'submitted', BuildError: null });
    expect(uploaded.ActionDate.slice(0, 10)).toBe(actionDate);
    const file = netcash.files.at(-1)!;
    expect(file.actionDate).toBe(actionDate);
    const lineRefs = file.lines.map((line) => line.fields['301']).sort();
    expect(lineRefs).toEqual(uploaded.Payments.map((p: any) => String(p.paymentID)).sort());
    expect(file.reportsAsked).toBe(1);
    expect((await invoiceOf(account, paidInvoice)).NumTries).toBe(0);

    // The next day's run reads the load report: loaded. The tries count, and the staff are told the one thing
    // left to do, with the batch's name at Netcash and its dates.
    await advanceTo(account, plusDays(lastSafe, 1));
    expect((await invoiceOf(account, paidInvoice)).NumTries).toBe(1);
    const [authorise] = await staffMails(`Authorise batch ${file.batchName}`, 1);
    expect(authorise).toContain(
      `Authorise batch ${file.batchName} in Netcash by ${lastSafe}: debit orders for ${actionDate}`,
    );
    expect(authorise).toContain(
      `(our batch ${uploaded.BatchToken}): 2 debit order(s) for ZAR 469.50, to be collected on ${actionDate}`,
    );
    expect(authorise).toContain(`authorise it by ${lastSafe}`);
    expect(authorise).toContain('do not upload it again');

    // The action date: at Netcash, so processing. The next business day's statement settles both lines at once
    // (349.50 + 120.00 collected), before the return window would.
    await advanceTo(account, actionDate);
    expect((await batchOf(account, uploaded.BatchToken)).State).toBe('processing');
    await advanceTo(account, addBusinessDays(actionDate, 1, 'debit_order'));
    expect((await invoiceOf(account, paidInvoice)).Status).toBe('Paid');
    const paidLine = uploaded.Payments.find((p: any) => p.Amount === 349.5).paymentID;
    const unpaidLine = uploaded.Payments.find((p: any) => p.Amount === 120).paymentID;
    expect((await paymentOf(account, paidLine)).Status).toBe('Allocated');
    expect((await paymentOf(account, unpaidLine)).Status).toBe('Allocated');

    // Two business days on, Netcash's statement has the unpaid (02, not provided for): the line fails, its invoice
    // owes R120 again.
    const returnedOn = addBusinessDays(actionDate, 2, 'debit_order');
    await advanceTo(account, addBusinessDays(actionDate, 3, 'debit_order'));
    expect(await paymentOf(account, unpaidLine)).toMatchObject({
      Status: 'Failed',
      FailureReason: 'insufficient_funds',
    });
    expect((await invoiceOf(account, unpaidInvoice)).Balance).toBe(120);
    expect((await invoiceOf(account, paidInvoice)).Status).toBe('Paid');

    // Each day's statement was asked for once; the same statements applied again change nothing.
    const days = netcash.statementDaysAsked();
    expect(days[0]).toBe(actionDate);
    expect(new Set(days).size).toBe(days.length);
    expect(days).toContain(returnedOn);
    for (const day of [actionDate, returnedOn]) {
      const again = await uploadReturns(account, uploaded.BatchToken, netcash.statementOf(day));
      expect(again.body).toMatchObject({ Returned: 0, Settled: 0 });
    }
    expect(
      standIn.callsOf('BatchFileUpload').filter((c) => c.values.File!.includes(file.batchName)),
    ).toHaveLength(1);

    // The account numbers reach no record of ours: the file went to Netcash, its copy is sealed.
    const calls = await t.service.storage.db
      .selectFrom('gateway_calls')
      .select(['request', 'result'])
      .execute();
    expect(JSON.stringify(calls)).not.toContain('62001234567');
    expect(JSON.stringify(calls)).not.toContain(UNPAID_ACCOUNT);
  });

  it('sends a batch Netcash refuses back to open with its reasons per line, and tells the staff', async () => {
    const { setup, gateway } = await netcashAccount({
      serviceKey: SERVICE_KEY,
      accountServiceKey: ACCOUNT_SERVICE_KEY,
    });
    const { account } = setup;
    const token = await openBatch(setup, gateway.gatewayToken, 'ZAR');
    const [good, refused] = await debtorLines(setup, gateway.gatewayId, token, 'ZAR', [
      { details: saAccount('Ayanda Zulu', 'Current', '62005550001', '250655'), amount: 200 },
      { details: saAccount('Sipho Dlamini', 'Current', REFUSED_ACCOUNT, '632005'), amount: 80 },
    ]);
    // Submitted, built and uploaded by the day's run, whose ask for the load report is too early; the next day's
    // run reads it.
    await ok(account, 'PUT', '/v1/batches/submit', {
      BatchToken: token,
      ActionDate: earliestActionDate('debit_order', setup.today),
    });
    await advanceTo(account, setup.today);
    expect((await batchOf(account, token)).State).toBe('submitted');
    await advanceTo(account, plusDays(setup.today, 1));

    const refusedBatch = await batchOf(account, token);
    expect(refusedBatch.State).toBe('open');
    expect(refusedBatch.BuildError).toBe(
      `the gateway refused the file: Netcash did not load the file (UNSUCCESSFUL); payment ${refused!.paymentId}: ${REFUSAL}`,
    );
    // Nothing Netcash refused is handed out, and no try was counted.
    expect((await account.request('GET', `/v1/batches/${token}/file`)).status).toBe(409);
    expect((await invoiceOf(account, good!.invoiceId)).NumTries).toBe(0);
    const [mail] = await staffMails(`Netcash refused batch ${token}`, 1);
    expect(mail).toContain(
      'The batch is open again and nothing will be collected until it is submitted again',
    );
    expect(mail).toContain(
      `Payment ${refused!.paymentId}, customer ${refused!.customer.customerId}, ZAR 80.00: ${REFUSAL}`,
    );

    // Submitted again under a key Netcash no longer knows (100): refused at the upload, told again.
    netcash.knobs.authenticationFails = true;
    try {
      const day = plusDays(setup.today, 1);
      await ok(account, 'PUT', '/v1/batches/submit', {
        BatchToken: token,
        ActionDate: earliestActionDate('debit_order', day),
      });
      await advanceTo(account, plusDays(day, 1));
    } finally {
      netcash.knobs.authenticationFails = false;
    }
    expect(await batchOf(account, token)).toMatchObject({
      State: 'open',
      BuildError:
        'the gateway refused the file: Netcash refused the upload: 100 (authentication failed: check the gateway’s service key)',
    });
    await staffMails(`Netcash refused batch ${token}`, 2);
  });
});

describe('a netcash gateway whose files go by hand', () => {
  it('tells the staff each business day that a file waits, in commands they type, until it is downloaded or too late', async () => {
    const { setup, gateway } = await netcashAccount({
      serviceKey: SERVICE_KEY,
      uploadThroughWebService: false,
    });
    const { account } = setup;
    const actionDate = addBusinessDays(setup.today, 5, 'debit_order');
    const lastSafe = lastSubmitDate('debit_order', actionDate);
    const tokens: string[] = [];
    for (const [holder, number] of [
      ['Lerato Mokoena', '62007770001'],
      ['Johan Botha', '62007770002'],
    ] as const) {
      const token = await openBatch(setup, gateway.gatewayToken, 'ZAR');
      await debtorLines(setup, gateway.gatewayId, token, 'ZAR', [
        { details: saAccount(holder, 'Current', number, '250655'), amount: 150 },
      ]);
      await ok(account, 'PUT', '/v1/batches/submit', { BatchToken: token, ActionDate: actionDate });
      tokens.push(token);
    }
    const [downloaded, forgotten] = tokens as [string, string];

    // Built by the day's run, and told at once: by when, and the command that downloads the file.
    await advanceTo(account, setup.today);
    const [first] = await staffMails(`Send batch ${downloaded} to Netcash by ${lastSafe}`, 1);
    const command = `billing batch file --account ${account.accountId} --batch ${downloaded}`;
    expect(first).toContain(
      `Batch ${downloaded} holds 1 debit order(s) for ZAR 150.00, to be collected on ${actionDate}`,
    );
    expect(first).toContain(command);
    expect(first).toContain('sign in to Netcash, open Debit orders and upload');
    await staffMails(`Send batch ${forgotten} to Netcash by ${lastSafe}`, 1);

    // The command as the e-mail gives it writes the file (to a place of the test's choosing): the file has left.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'netcash-file-'));
    try {
      const out = path.join(dir, 'batch.txt');
      const run = await runCli([...command.split(' ').slice(1), '--out', out], t.env);
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      expect(fs.readFileSync(out, 'utf8')).toMatch(/^H\t3f2b8c1e-7d4a-4e5b-9c6d-0a1b2c3d4e5f\t1\tTwoDay\t/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }

    // Each business day to the last safe day the forgotten one is told again (the last time saying today), the
    // downloaded one never; the next business day, once more, that the cut-off was missed.
    for (
      let day = addBusinessDays(setup.today, 1, 'debit_order');
      day <= lastSafe;
      day = addBusinessDays(day, 1, 'debit_order')
    ) {
      await advanceTo(account, day);
    }
    await advanceTo(account, addBusinessDays(lastSafe, 1, 'debit_order'));
    const waiting = await staffMails(`Send batch ${forgotten} to Netcash`, 4);
    expect(waiting.at(-1)).toContain(
      `Send batch ${forgotten} to Netcash today: debit orders for ${actionDate}`,
    );
    const [missed] = await staffMails(`Batch ${forgotten} missed Netcash's cut-off`, 1);
    const cancel = `billing batch cancel --account ${account.accountId} --batch ${forgotten}`;
    expect(missed).toContain(cancel);

    // The cancel as the e-mail gives it: the batch is cancelled, its invoice owes again; no more e-mails.
    const cancelled = await runCli(cancel.split(' ').slice(1), t.env);
    expect(cancelled.code, cancelled.stderr).toBe(0);
    expect((await batchOf(account, forgotten)).State).toBe('cancelled');
    await advanceTo(account, actionDate);
    const queued = await t.service.storage.db
      .selectFrom('mail_outbox')
      .select('subject')
      .where('account_id', '=', account.accountId)
      .execute();
    const about = (token: string) => queued.filter((mail) => mail.subject.includes(token)).length;
    expect([about(downloaded), about(forgotten)]).toEqual([1, 5]);
  });
});
