import { describe, expect, it } from 'vitest';
import { eventsOf } from '../helpers/resourceEvents.ts';
import { useTestService } from '../helpers/testService.ts';
import {
  ACH_ORIGINATOR,
  SEPA_CREDITOR,
  achAccount,
  addBankFileGateway,
  addLine,
  bankCustomer,
  bankInvoice,
  batchOf,
  debtorLines,
  expectProblem,
  fileOf,
  invoiceOf,
  openBatch,
  pain002,
  paymentOf,
  sepaAccount,
  submitAndBuild,
  uploadReturns,
} from './bankFileFixtures.ts';
import { bankAccount, debitAccount, debitCustomer, debitInvoice } from './fixtures.ts';

// The build of a bank-file batch (docs/gateways.md, "The bankfile gateway"): what sends it back to open with a
// BuildError, and a batch of the test gateway, which has no bank file.

const t = useTestService();

describe('the build of a bankfile batch', () => {
  it('sends the batch back to open with BuildError naming the settings a gateway lacks', async () => {
    const setup = await debitAccount(t, 'EUR');
    const { account } = setup;
    const gateway = await addBankFileGateway(t, setup, { creditorName: 'Acme Subscriptions GmbH' });
    const token = await openBatch(setup, gateway.gatewayToken, 'EUR');
    // Before any build the batch has no file.
    expectProblem(await fileOf(account, token), 409, 'batch_not_submitted');
    const customer = await bankCustomer(
      setup,
      'EUR',
      sepaAccount('Jan de Vries', 'NL91ABNA0417164300', 'ABNANL2A'),
      { gatewayId: gateway.gatewayId },
    );
    const invoiceId = await bankInvoice(setup, gateway.gatewayId, customer, 100);
    await addLine(setup, token, customer, invoiceId, 100);
    await submitAndBuild(setup, token, 'sepa');

    const batch = await batchOf(account, token);
    expect(batch.State).toBe('open');
    expect(batch.BuildError).toBe(
      `gateway ${gateway.gatewayId} settings: creditorIban, creditorSchemeId required for sepa files`,
    );
    const events = (await eventsOf(account, 'batch', token)).map((e) => e.type);
    expect(events).toContain('batch.build_failed');
    expect(events.at(-1)).toBe('batch.build_failed');
    expectProblem(await fileOf(account, token), 409, 'batch_not_submitted');
    expectProblem(
      await uploadReturns(account, token, pain002('ANY', [{ endToEndId: '1', status: 'ACSC' }])),
      409,
      'batch_not_submitted',
    );
  });

  it('sends the others on and takes out the payment whose bank account was never validated', async () => {
    const setup = await debitAccount(t, 'USD');
    const { account } = setup;
    const gateway = await addBankFileGateway(t, setup, ACH_ORIGINATOR);
    const token = await openBatch(setup, gateway.gatewayToken, 'USD');
    const valid = await bankCustomer(setup, 'USD', achAccount('Grace Hopper', '000123456789'), {
      gatewayId: gateway.gatewayId,
    });
    const unchecked = await bankCustomer(setup, 'USD', achAccount('Alan Turing', '987654321'), {
      gatewayId: gateway.gatewayId,
      validated: false,
    });
    const validPayment = await addLine(
      setup,
      token,
      valid,
      await bankInvoice(setup, gateway.gatewayId, valid, 10),
      10,
    );
    const uncheckedInvoice = await bankInvoice(setup, gateway.gatewayId, unchecked, 20);
    const uncheckedPayment = await addLine(setup, token, unchecked, uncheckedInvoice, 20);
    await submitAndBuild(setup, token, 'ach');

    // One customer never holds up a batch (docs/gateways.md): the file holds the valid line only.
    const batch = await batchOf(account, token);
    expect(batch).toMatchObject({ State: 'submitted', BuildError: null, NumberOfPayments: 1 });
    expect(batch.Payments.map((line: { paymentID: number }) => line.paymentID)).toEqual([validPayment]);
    const file = await fileOf(account, token);
    expect(file.status).toBe(200);
    expect(file.text).toContain('GRACE HOPPER');
    expect(file.text).not.toContain('ALAN TURING');
    expect((await eventsOf(account, 'batch', token)).map((e) => e.type)).not.toContain('batch.build_failed');

    // The other left with its reason: its payment deleted, its invoice owing again and saying why.
    expect((await account.request('GET', `/v1/payments/${uncheckedPayment}`)).status).toBe(404);
    const invoice = await account.request('GET', `/v1/invoices/${uncheckedInvoice}`);
    expect(invoice.body).toMatchObject({
      Balance: 20,
      NextTryDate: null,
      CollectionProblem: `bank account ${unchecked.paymentMethodId} is not valid (POST /v1/ValidateBankAccount it first)`,
    });
    expect((await eventsOf(account, 'invoice', uncheckedInvoice)).map((e) => e.type)).toContain(
      'invoice.collection_blocked',
    );
  });

  it('refuses a debit-order (ZAR) batch: a bank file is made for sepa and ach only', async () => {
    const setup = await debitAccount(t, 'ZAR');
    const { account } = setup;
    const gateway = await addBankFileGateway(t, setup, SEPA_CREDITOR);
    const token = await openBatch(setup, gateway.gatewayToken, 'ZAR');
    const customer = await bankCustomer(setup, 'ZAR', bankAccount('debit_order'), {
      gatewayId: gateway.gatewayId,
    });
    await addLine(setup, token, customer, await bankInvoice(setup, gateway.gatewayId, customer, 100), 100);
    await submitAndBuild(setup, token, 'debit_order');

    const batch = await batchOf(account, token);
    expect(batch.State).toBe('open');
    expect(batch.BuildError).toBe(
      'a bank file is made for sepa and ach batches; SA debit orders go through a provider',
    );
    expect((await eventsOf(account, 'batch', token)).map((e) => e.type)).toContain('batch.build_failed');
  });

  it('counts a try on each invoice, each told by an invoice.updated showing it as its GET does', async () => {
    const setup = await debitAccount(t, 'EUR');
    const { account } = setup;
    const gateway = await addBankFileGateway(t, setup, SEPA_CREDITOR);
    const token = await openBatch(setup, gateway.gatewayToken, 'EUR');
    const lines = await debtorLines(setup, gateway.gatewayId, token, 'EUR', [
      { details: sepaAccount('Jan de Vries', 'NL91ABNA0417164300', 'ABNANL2A'), amount: 100 },
      { details: sepaAccount('Erika Mustermann', 'DE89370400440532013000', 'COBADEFFXXX'), amount: 250 },
    ]);
    const before = await Promise.all(lines.map(({ invoiceId }) => invoiceOf(account, invoiceId)));
    await submitAndBuild(setup, token, 'sepa');
    const built = await batchOf(account, token);
    expect(built.State).toBe('submitted');

    for (const [i, { invoiceId }] of lines.entries()) {
      const after = await invoiceOf(account, invoiceId);
      expect(after.NumTries).toBe(before[i].NumTries + 1);
      // The bank presents it on the action date: that is its next try (the account is in UTC).
      expect(after.NextTryDate).toBe(`${built.ActionDate.slice(0, 10)}T00:00:00.000Z`);
      const event = (await eventsOf(account, 'invoice', invoiceId)).at(-1)!;
      expect(event.type).toBe('invoice.updated');
      // The event's object is the invoice exactly as the API shows it after the build, `previous` what moved.
      expect(event.data.object).toEqual(after);
      const moved = Object.keys(after).filter(
        (key) => JSON.stringify(after[key]) !== JSON.stringify(before[i][key]),
      );
      expect(event.data.previous).toEqual(Object.fromEntries(moved.map((key) => [key, before[i][key]])));
      expect(moved).toContain('NumTries');
    }
  });
});

describe('a batch of the test gateway', () => {
  it('has no bank file and takes no uploaded returns: 409 batch_not_bank_file', async () => {
    const setup = await debitAccount(t, 'ZAR');
    const { account } = setup;
    const customer = await debitCustomer(setup, 'debit_order');
    const invoiceId = await debitInvoice(setup, customer, { dueIn: 30 });
    const token = await openBatch(setup, setup.gatewayToken, 'ZAR');
    expectProblem(await fileOf(account, token), 409, 'batch_not_bank_file');
    const paymentId = await addLine(setup, token, customer, invoiceId, 100);
    await submitAndBuild(setup, token, 'debit_order');
    expect((await batchOf(account, token)).State).toBe('submitted');

    expectProblem(await fileOf(account, token), 409, 'batch_not_bank_file');
    expectProblem(
      await uploadReturns(
        account,
        token,
        pain002('ANY', [{ endToEndId: String(paymentId), status: 'RJCT', reasonCode: 'AM04' }]),
      ),
      409,
      'batch_not_bank_file',
    );
    expect((await paymentOf(account, paymentId)).Status).toBe('Pending');
  });
});
