import { readFileSync } from 'node:fs';
import { beforeEach, describe, expect, it } from 'vitest';
import { earliestActionDate } from '../../src/core/bankingDays.ts';
import { passesLuhn } from '../../src/core/identityNumbers.ts';
import { addGateway } from '../../src/modules/gateways/index.ts';
import { ok } from '../helpers/billing.ts';
import { issuedInvoice } from '../helpers/invoices.ts';
import { accountContext } from '../helpers/context.ts';
import { eventsOf } from '../helpers/resourceEvents.ts';
import type { TestAccount } from '../helpers/service.ts';
import { advanceTo } from '../batches/fixtures.ts';
import type { DebitSetup } from '../batches/fixtures.ts';
import { DebiCheckBank } from '../providers/netcash/debiCheckLayouts.ts';
import { NiwsStandIn } from '../providers/netcash/niwsStandIn.ts';
import {
  addMandatedLine,
  debitOrderAccount,
  fieldsOf,
  getPage,
  mandateBody,
  bankAccountBody,
  mandateRow,
  newCustomer,
  openDebitBatch,
  plusDays,
  readMandate,
  signedMandate,
  t,
  useMandatesService,
} from './fixtures.ts';
import type { MandatedCustomer } from './fixtures.ts';

// DebiCheck mandates through Netcash (docs/design/mandates.md, "DebiCheck"; docs/gateways/netcash.md, "DebiCheck"):
// a signed DebiCheck mandate registered with the debtor's bank through a netcash gateway (Netcash's stand-in checks
// every call against the published layout), pending until the debtor approves it, collected in Netcash's DebiCheck
// file under its contract reference, amended and cancelled through Netcash; a collection it does not allow is held.

const bank = new DebiCheckBank();
const netcash = new NiwsStandIn(bank.layouts());
/** Each SOAP request's body, by method, as it left the service. */
const envelopes = new Map<string, string>();
useMandatesService({
  providerFetch: (input, init) => {
    const action = new Headers(init?.headers).get('soapaction') ?? '';
    envelopes.set(action.replace(/^"http:\/\/tempuri\.org\/INIWS_NIF\/|"$/g, ''), String(init?.body));
    return netcash.fetch(input, init);
  },
});

const SERVICE_KEY = '3f2b8c1e-7d4a-4e5b-9c6d-0a1b2c3d4e5f';
const TEMPLATE_ID = 'NCDCT000000001';
const GOLDEN = new URL('../providers/netcash/golden/', import.meta.url);

/** A South-African ID number of 1 January 1980 whose check digit passes. */
const ID_NUMBER = (() => {
  const base = '800101500908';
  const digit = [...'0123456789'].find((d) => passesLuhn(base + d))!;
  return base + digit;
})();

/** The same number with a check digit that fails. */
const WRONG_DIGIT = ID_NUMBER.slice(0, 12) + String((Number(ID_NUMBER[12]) + 1) % 10);

let setup: DebitSetup;
let account: TestAccount;
/** The netcash gateway's setup: its batches collect DebiCheck mandates. */
let viaNetcash: DebitSetup;
/** The action date of a batch submitted tomorrow, and the day of the month the mandates collect on. */
let actionDate: string;

beforeEach(async () => {
  setup = await debitOrderAccount('DebiCheck');
  account = setup.account;
  const ctx = await accountContext(t, account.accountId);
  const added = await addGateway(ctx, {
    type: 'netcash',
    friendlyName: 'Netcash',
    settings: {
      serviceKey: SERVICE_KEY,
      debiCheckMandateTemplateId: TEMPLATE_ID,
      uploadThroughWebService: false,
    },
  });
  const gateway = ((await ok(account, 'GET', '/v1/gateways')) as any[]).find((g) => g.gatewayID === added.id);
  viaNetcash = { ...setup, gatewayId: added.id, gatewayToken: gateway.GatewayToken };
  actionDate = earliestActionDate('debit_order', plusDays(setup.today, 1));
  bank.knob = 'approve';
});

/** SA account numbers as Netcash takes them (at most 11 digits). */
const ACCOUNT = '62001234567';
const OTHER_ACCOUNT = '62007654321';

/** A customer whose bank account is linked to a signed DebiCheck mandate collecting on the action date's day. */
async function debiCheckCustomer(fields: Record<string, unknown> = {}): Promise<MandatedCustomer> {
  const token = await signedMandate(
    account,
    mandateBody(setup.today, {
      bank_AccNumber: ACCOUNT,
      debit_ActionDay: Number(actionDate.slice(8, 10)),
      debit_Escalation: null,
      DebiCheckContractType: 'variable',
      debit_VariableAmts: true,
      DebiCheckIdType: 'sa_id',
      DebiCheckIdNumber: ID_NUMBER,
      DebiCheckTrackingDays: 3,
      ...fields,
    }),
  );
  const customerId = await newCustomer(account, { CurrencyCode: 'ZAR' });
  const body = bankAccountBody(customerId, token, { AccountNumber: ACCOUNT });
  const method = await ok(account, 'POST', '/v1/paymentmethods/bankaccount', body, 200);
  return { token, customerId, paymentMethodId: method.paymentMethodID };
}

const register = (token: string) =>
  account.request('POST', '/v1/emandate/debicheck', {
    body: { Token: token, GatewayToken: viaNetcash.gatewayToken },
  });

/** Golden file `name` with its {{placeholders}} filled. */
const golden = (name: string, values: Record<string, string>) =>
  readFileSync(new URL(name, GOLDEN), 'utf8').replace(/\{\{(\w+)\}\}/g, (_, key: string) => values[key]!);

/** A SOAP request's method parameters, in order. */
const parametersOf = (xml: string) =>
  [...xml.matchAll(/<(\w+)>([^<]*)<\/\1>/g)].map(([, name, value]) => [name, value]);

/** The request as sent matches its golden envelope field by field, then whole. */
function expectEnvelope(method: string, values: Record<string, string>): void {
  const expected = golden(`${method}.xml`, values).trim();
  const sent = envelopes.get(method)!;
  expect(parametersOf(sent)).toEqual(parametersOf(expected));
  expect(sent).toBe(expected);
}

describe('a DebiCheck mandate', () => {
  it('is registered, pending, approved, collected under its contract reference, amended and cancelled', async () => {
    const who = await debiCheckCustomer();
    const fresh = await readMandate(account, who.token);
    expect(fresh).toMatchObject({
      DebiCheckContractType: 'variable',
      DebiCheckIdType: 'sa_id',
      DebiCheckIdNumber: `••••${ID_NUMBER.slice(-3)}`,
      DebiCheckStatus: null,
      debit_VariableAmts: true,
    });

    // The bank does not answer within the call: pending, for a day, seen by the staff and on the mandate's page.
    bank.knob = 'later';
    const pending = await register(who.token);
    expect(pending.status, pending.text).toBe(200);
    expect(pending.body).toMatchObject({
      DebiCheckStatus: 'pending',
      DebiCheckContractReference: 'NC000000000001',
    });
    expect(Date.parse(pending.body.DebiCheckExpires) - Date.parse(pending.body.DebiCheckRequested)).toBe(
      86_400_000,
    );
    const page = await getPage(`/widget/emandate/${who.token}`);
    expect(page.html).toContain('has asked you to approve this debit order');
    const mandateId = (await mandateRow(who.token)).id;
    const accountReference = `DC${String(mandateId).padStart(6, '0')}`;
    expectEnvelope('DebiCheckAuthenticate', {
      serviceKey: SERVICE_KEY,
      accountReference,
      idNumber: ID_NUMBER,
      firstCollectionDate: fresh.DebiCheckFirstCollectionDate.slice(0, 10).replaceAll('-', ''),
      dayCode: `MNTH_${actionDate.slice(8, 10)}`,
    });
    expect((await register(who.token)).body.code).toBe('debicheck_registered');

    // Tomorrow's run asks Netcash: the debtor approved it.
    const tomorrow = plusDays(setup.today, 1);
    await advanceTo(account, tomorrow);
    expect((await readMandate(account, who.token)).DebiCheckStatus).toBe('authenticated');
    expectEnvelope('DebiCheckAuthenticationCurrentStatus', { serviceKey: SERVICE_KEY });
    expect((await getPage(`/widget/emandate/${who.token}`)).html).toContain('you approved this debit order');

    // Collected in Netcash's DebiCheck file, under the authentication's masterfile key and contract reference.
    const batch = await openDebitBatch({ ...viaNetcash, today: tomorrow });
    const line = await addMandatedLine(viaNetcash, batch, who, 420.5);
    await ok(account, 'PUT', '/v1/batches/submit', { BatchToken: batch, ActionDate: actionDate });
    await advanceTo(account, plusDays(tomorrow, 1));
    const built = await ok(account, 'GET', `/v1/batches/${batch}`);
    expect(built).toMatchObject({ State: 'submitted', BuildError: null });
    const file = await account.request('GET', `/v1/batches/${batch}/file`);
    const records = file.text
      .split('\r\n')
      .filter(Boolean)
      .map((record) => record.split('\t'));
    const expected = golden('debicheck-batch.nif', {
      serviceKey: SERVICE_KEY,
      batchName: records[0]![4]!,
      actionDate: actionDate.replaceAll('-', ''),
      accountReference,
      paymentId: String(line.paymentId),
    });
    const goldenRecords = expected
      .split('\r\n')
      .filter(Boolean)
      .map((record) => record.split('\t'));
    records.forEach((record, index) => expect(record).toEqual(goldenRecords[index]));
    expect(file.text).toBe(expected);

    // Amended: Netcash takes the new amounts in cents; pending until the bank confirms them, by the next run.
    const amended = await account.request('PUT', '/v1/emandate/debicheck/amend', {
      body: { Token: who.token, debit_Amt: 350, debit_MaxAmt: 500 },
    });
    expect(amended.status, amended.text).toBe(200);
    expect(amended.body).toMatchObject({ DebiCheckStatus: 'pending', debit_Amt: 350, debit_MaxAmt: 500 });
    expectEnvelope('DebiCheckAmendAuthentication', { serviceKey: SERVICE_KEY });
    await advanceTo(account, plusDays(tomorrow, 2));
    expect((await readMandate(account, who.token)).DebiCheckStatus).toBe('authenticated');

    // Cancelled at Netcash first (requested by the customer), then here.
    const cancelled = await ok(account, 'PUT', '/v1/emandate/cancel', { Token: who.token }, 200);
    expect(cancelled).toMatchObject({ Status: 'cancelled', DebiCheckStatus: 'cancelled' });
    expectEnvelope('DebiCheckCancelAuthentication', { serviceKey: SERVICE_KEY });

    expect(netcash.problems).toEqual([]);
    expect(bank.problems).toEqual([]);
    const types = (await eventsOf(account, 'emandate', mandateId)).map((event) => event.type);
    expect(types.filter((type) => type === 'emandate.updated').length).toBeGreaterThanOrEqual(4);
    // The identity number never reaches the logs, the events, the gateway calls or the database in the clear.
    const events = await t.service.storage.db.selectFrom('events').select('payload').execute();
    const calls = await t.service.storage.db.selectFrom('gateway_calls').selectAll().execute();
    const rows = await t.service.storage.db.selectFrom('emandates').selectAll().execute();
    for (const where of [
      t.logs.join('\n'),
      JSON.stringify(events),
      JSON.stringify(calls),
      JSON.stringify(rows),
    ]) {
      expect(where).not.toContain(ID_NUMBER);
    }
  });

  it('holds a collection over its maximum, or before its bank approved it, with a CollectionProblem', async () => {
    const approved = await debiCheckCustomer({ debit_Amt: 300, debit_MaxAmt: 450 });
    const registered = await register(approved.token);
    expect(registered.body.DebiCheckStatus, registered.text).toBe('authenticated');
    bank.knob = 'expire';
    const waiting = await debiCheckCustomer();
    expect((await register(waiting.token)).body.DebiCheckStatus).toBe('pending');

    // The bank never answered the other: past its day, tomorrow's run finds it expired.
    const tomorrow = plusDays(setup.today, 1);
    await advanceTo(account, tomorrow);
    expect(await readMandate(account, waiting.token)).toMatchObject({
      DebiCheckStatus: 'expired',
      DebiCheckExpires: null,
    });

    const batch = await openDebitBatch({ ...viaNetcash, today: tomorrow });
    const over = await addMandatedLine(viaNetcash, batch, approved, 450.01);
    const unapproved = await addMandatedLine(viaNetcash, batch, waiting, 299.99);
    await ok(account, 'PUT', '/v1/batches/submit', { BatchToken: batch, ActionDate: actionDate });
    await advanceTo(account, plusDays(tomorrow, 1));
    const built = await ok(account, 'GET', `/v1/batches/${batch}`);
    expect(built.State).toBe('cancelled');
    expect(built.BuildError).toContain(`payment ${over.paymentId}`);
    expect(built.BuildError).toContain(`payment ${unapproved.paymentId}`);
    expect(built.BuildError).toMatch(/more than the mandate's maximum 45000/);
    expect(built.BuildError).toMatch(/its DebiCheck authentication is expired/);
    const [applied] = over.body.PaymentApplied as { invoiceID: number }[];
    const held = await ok(account, 'GET', `/v1/invoices/${applied!.invoiceID}`);
    expect(held.CollectionProblem).toMatch(/more than the mandate's maximum 45000/);
    expect(held.NextTryDate).toBeNull();
    expect(netcash.problems).toEqual([]);
  });

  it("is bundled apart from ordinary debit orders due the same day, its bank account carrying the mandate's ID number", async () => {
    const debiCheck = await debiCheckCustomer();
    expect((await register(debiCheck.token)).body.DebiCheckStatus).toBe('authenticated');
    const method = await ok(account, 'GET', `/v1/paymentmethods/${debiCheck.paymentMethodId}`);
    expect(method.BankAccount).toMatchObject({ IdType: 'sa_id', IdNumberLastThree: ID_NUMBER.slice(-3) });
    const ordinaryToken = await signedMandate(
      account,
      mandateBody(setup.today, {
        bank_AccNumber: OTHER_ACCOUNT,
        debit_ActionDay: Number(actionDate.slice(8, 10)),
        debit_Amt: 100,
        debit_MaxAmt: 150,
        debit_Escalation: 0,
      }),
    );
    const ordinaryCustomer = await newCustomer(account, { CurrencyCode: 'ZAR' });
    const ordinary = await ok(
      account,
      'POST',
      '/v1/paymentmethods/bankaccount',
      bankAccountBody(ordinaryCustomer, ordinaryToken, { AccountNumber: OTHER_ACCOUNT }),
      200,
    );
    const debtors = [
      { customerId: debiCheck.customerId, paymentMethodId: debiCheck.paymentMethodId },
      { customerId: ordinaryCustomer, paymentMethodId: ordinary.paymentMethodID },
    ];
    for (const who of debtors) {
      await issuedInvoice(account, {
        customerId: who.customerId,
        invoiceDate: setup.today,
        dueDate: setup.today,
        collect: { method: 'debit_order', gatewayId: viaNetcash.gatewayId, ...who },
        amount: 100,
      });
    }

    // The run bundles the two debits of the same date into two batches: Netcash takes DebiCheck collections in a
    // file of their own.
    await advanceTo(account, setup.today);
    const open = ((await ok(account, 'GET', '/v1/batches')) as any[]).filter((b) => b.State === 'open');
    expect(open.map((b) => [b.Notes, b.NumberOfPayments, b.ActionDate.slice(0, 10)]).sort()).toEqual([
      [`DebiCheck collections due by ${actionDate}`, 1, actionDate],
      [`Debit orders due by ${actionDate}`, 1, actionDate],
    ]);
    for (const batch of open)
      await ok(account, 'PUT', '/v1/batches/submit', { BatchToken: batch.BatchToken });
    await advanceTo(account, plusDays(setup.today, 1));
    const kinds = [];
    for (const batch of open) {
      expect(await ok(account, 'GET', `/v1/batches/${batch.BatchToken}`)).toMatchObject({
        State: 'submitted',
        BuildError: null,
      });
      const file = await account.request('GET', `/v1/batches/${batch.BatchToken}/file`);
      kinds.push([batch.Notes.split(' ')[0], file.text.split('\t')[3]]);
    }
    expect(kinds.sort()).toEqual([
      ['DebiCheck', 'DebiCheck'],
      ['Debit', 'TwoDay'],
    ]);

    // One debtor, one number: another (valid) ID number on the bank account under the DebiCheck mandate is refused.
    const another = await account.request(
      'PUT',
      `/v1/paymentmethods/bankaccount/${debiCheck.paymentMethodId}`,
      {
        body: bankAccountBody(debiCheck.customerId, debiCheck.token, {
          AccountNumber: ACCOUNT,
          IdNumber: '8501015009086',
        }),
      },
    );
    expect(another.status, another.text).toBe(422);
    expect(fieldsOf(another)).toEqual(['BankAccount.IdNumber']);
    expect(netcash.problems).toEqual([]);
  });

  it('refuses a DebiCheck mandate whose identity number or maximum break the rules, naming each field', async () => {
    const res = await account.request('POST', '/v1/emandate', {
      body: mandateBody(setup.today, {
        DebiCheckContractType: 'fixed',
        DebiCheckIdType: 'sa_id',
        DebiCheckIdNumber: WRONG_DIGIT,
        debit_Amt: 100,
        debit_MaxAmt: 151,
        debit_Frequency: 'Weekly',
        debit_ActionDay: 3,
      }),
    });
    expect(res.status).toBe(422);
    const fields = (res.body.fields as { field: string; message: string }[]).map((f) => f.field).sort();
    expect(fields).toEqual(['DebiCheckIdNumber', 'debit_ActionDay', 'debit_MaxAmt']);
    expect(res.text).not.toContain(WRONG_DIGIT);
    bank.knob = 'decline';
    const declined = await debiCheckCustomer();
    expect((await register(declined.token)).body.DebiCheckStatus).toBe('declined');
    expect((await getPage(`/widget/emandate/${declined.token}`)).html).toContain('was declined');
  });
});
