import { describe, expect, it } from 'vitest';
import type { TestAccount } from '../helpers/service.ts';
import { expectEvents, ok, read } from '../helpers/resourceEvents.ts';
import { useTestService } from '../helpers/testService.ts';

// Events of payments, credit notes, adjustments (with the invoices their allocations move) and payment methods,
// triggered through the API and read back through GET /v1/events.

const t = useTestService();

async function setUp(name: string) {
  const account = await t.newAccount(name, { isTest: true });
  const clock = (await read(account, '/v1/account')).TestClockDate as string;
  const customerID = (await ok(account, 'POST', '/v1/customers', { Name: 'Ada' })).customerID as number;
  return { account, clock, customerID };
}

const newInvoice = async (account: TestAccount, customerID: number, amount: number) =>
  (
    await ok(account, 'POST', '/v1/invoices', {
      customerID,
      InvoiceDate: '2026-03-01',
      Charges: [{ Descrip: 'Work', Qty: 1, UnitCostEx: amount }],
    })
  ).invoiceID as number;

const paymentBody = (customerID: number, amount: number, allocations: unknown[], extra = {}) => ({
  customerID,
  Amount: amount,
  CurrencyCode: 'USD',
  Date: '2026-03-05',
  Method: 'cash',
  allocations,
  ...extra,
});

describe('payment events', () => {
  it('announce create, a field edit, an allocation change and deletion, with the invoices they move', async () => {
    const { account, clock, customerID } = await setUp('Payment events');
    const invoiceID = await newInvoice(account, customerID, 100);
    const created = await ok(account, 'POST', '/v1/payments', paymentBody(customerID, 100, []));
    const id = created.paymentID as number;
    const path = `/v1/payments/${id}`;
    const afterCreate = await read(account, path);
    await ok(account, 'PUT', path, paymentBody(customerID, 100, [], { Memo: 'wire' }));
    const afterEdit = await read(account, path);
    await ok(
      account,
      'PUT',
      path,
      paymentBody(customerID, 100, [{ invoiceID, amountApplied: 100 }], { Memo: 'wire' }),
    );
    const afterAllocate = await read(account, path);
    const invoicePaid = await read(account, `/v1/invoices/${invoiceID}`);
    // The same body again changes nothing: no event.
    await ok(
      account,
      'PUT',
      path,
      paymentBody(
        customerID,
        100,
        [{ allocationID: afterAllocate.Allocations[0].allocationID, invoiceID, amountApplied: 100 }],
        { Memo: 'wire' },
      ),
    );
    await ok(account, 'DELETE', path);
    const invoiceOwed = await read(account, `/v1/invoices/${invoiceID}`);

    const events = await expectEvents(account, 'payment', id, [
      'payment.created',
      'payment.updated',
      'payment.allocated',
      'payment.deleted',
    ]);
    const [create, edit, allocate, deleted] = events;
    expect(create!.data).toEqual({ object: afterCreate });
    expect(edit!.data).toEqual({ object: afterEdit, previous: { Memo: null } });
    expect(allocate!.data).toEqual({
      object: afterAllocate,
      previous: { Status: afterEdit.Status, Allocations: [] },
    });
    expect(deleted!.data).toEqual({ object: afterAllocate });
    for (const event of events) expect(event.timestamp).toBe(clock);

    const [, paid, reopened] = await expectEvents(account, 'invoice', invoiceID, [
      'invoice.created',
      'invoice.paid',
      'invoice.updated',
    ]);
    expect(paid!.data.object).toEqual(invoicePaid);
    // Dated 2026-03-01, the invoice is past due on the test clock.
    expect(paid!.data.previous).toBeUndefined(); // money only came in: the object tells it

    expect(reopened!.data.object).toEqual(invoiceOwed);
    expect(reopened!.data.previous).toMatchObject({ Status: 'Paid', Balance: 0 });
  });
});

describe('credit note events', () => {
  it('announce create with its allocation, an allocation change and deletion', async () => {
    const { account, customerID } = await setUp('Credit note events');
    const invoiceID = await newInvoice(account, customerID, 100);
    const created = await ok(account, 'POST', '/v1/credits', {
      customerID,
      Date: '2026-03-05',
      CurrencyCode: 'USD',
      Amount: 40,
      CreditNumber: 'CN-1',
      Allocations: [{ invoiceID, amountApplied: 40 }],
    });
    const id = created.creditNoteID as number;
    const path = `/v1/credits/${id}`;
    const afterCreate = await read(account, path);
    const invoiceAfterCredit = await read(account, `/v1/invoices/${invoiceID}`);
    await ok(account, 'PUT', path, {
      customerID,
      Date: '2026-03-05',
      CurrencyCode: 'USD',
      Amount: 40,
      CreditNumber: 'CN-1',
      Allocations: [{ allocationID: afterCreate.Allocations[0].allocationID, invoiceID, amountApplied: 25 }],
    });
    const afterEdit = await read(account, path);
    await ok(account, 'DELETE', path);

    const [create, allocate, deleted] = await expectEvents(account, 'credit_note', id, [
      'credit_note.created',
      'credit_note.allocated',
      'credit_note.deleted',
    ]);
    expect(create!.data).toEqual({ object: afterCreate });
    expect(allocate!.data.object).toEqual(afterEdit);
    expect(allocate!.data.previous).toMatchObject({ Allocations: afterCreate.Allocations });
    expect(deleted!.data).toEqual({ object: afterEdit });

    const [, partly, lessPaid, back] = await expectEvents(account, 'invoice', invoiceID, [
      'invoice.created',
      'invoice.partially_paid',
      'invoice.updated',
      'invoice.updated',
    ]);
    expect(partly!.data.object).toEqual(invoiceAfterCredit);
    expect(partly!.data.previous).toBeUndefined(); // money only came in: the object tells it
    expect(lessPaid!.data.previous).toMatchObject({ Balance: 60, TotalNegativeAdjs: 40 });
    expect(back!.data.object.Balance).toBe(100);
  });
});

describe('adjustment events', () => {
  it('announce create, edit and delete of a positive and a negative adjustment, and the targets they move', async () => {
    const { account, customerID } = await setUp('Adjustment events');
    const invoiceID = await newInvoice(account, customerID, 100);
    const added = await ok(account, 'POST', '/v1/adjustment/add', {
      AdjustmentType: 'opening_balance',
      customerID,
      Type: 'positive',
      Amount: 50,
      Date: '2026-03-02',
      DueDate: '2026-03-20',
      Ref: 'OB-1',
    });
    const positive = added.AdjustmentID as number;
    const getPositive = async () =>
      (
        await read(
          account,
          `/v1/adjustment/get?type=positive&adjustmentID=${positive}&customerID=${customerID}`,
        )
      ).adjustment;
    const positiveCreated = await getPositive();
    await ok(account, 'PUT', '/v1/adjustment/edit', {
      AdjustmentID: positive,
      AdjustmentType: 'interest',
      customerID,
      Type: 'positive',
      Amount: 50,
      Date: '2026-03-02',
      DueDate: '2026-03-20',
      Ref: 'OB-1',
      isAutoApply: false,
      LinkedAllocations: [],
    });
    const positiveEdited = await getPositive();

    const negative = (
      await ok(account, 'POST', '/v1/adjustment/add', {
        AdjustmentType: 'credit_note',
        customerID,
        Type: 'negative',
        Amount: 30,
        Date: '2026-03-05',
        Ref: 'CN-9',
        isAutoApply: false,
        LinkedAllocations: [
          { objectID: invoiceID, AmtAllocated: 10, isAdjustment: false },
          { objectID: positive, AmtAllocated: 20, isAdjustment: true },
        ],
      })
    ).AdjustmentID as number;
    const negativeCreated = (
      await read(
        account,
        `/v1/adjustment/get?type=negative&adjustmentID=${negative}&customerID=${customerID}`,
      )
    ).adjustment;
    const positiveAllocated = await getPositive();
    await ok(
      account,
      'DELETE',
      `/v1/adjustment/delete?type=negative&adjustmentID=${negative}&customerID=${customerID}`,
    );

    const [pCreate, pEdit, pAllocated, pReleased] = await expectEvents(account, 'adjustment', positive, [
      'adjustment.created',
      'adjustment.updated',
      'adjustment.updated',
      'adjustment.updated',
    ]);
    expect(pCreate!.data).toEqual({ object: positiveCreated });
    expect(pEdit!.data).toEqual({
      object: positiveEdited,
      previous: { positiveAdjustmentType: 'opening_balance' },
    });
    expect(pAllocated!.data.object).toEqual(positiveAllocated);
    expect(pReleased!.data.object).toEqual(positiveEdited);

    const [nCreate, nDelete] = await expectEvents(account, 'adjustment', negative, [
      'adjustment.created',
      'adjustment.deleted',
    ]);
    expect(nCreate!.data).toEqual({ object: negativeCreated });
    expect(nDelete!.data).toEqual({ object: negativeCreated });
    await expectEvents(account, 'invoice', invoiceID, [
      'invoice.created',
      'invoice.partially_paid',
      'invoice.updated',
    ]);
  });
});

describe('payment method events', () => {
  const bank = {
    Method: 'debit_order',
    AccountType: 'Savings',
    AccountHolder: 'Ada Lovelace',
    Bank: 'Standard Bank',
    AccountNumber: '62001234567',
    BranchCode: '051001',
  };

  it('announce adds, a primary move, a bank account edit and deletion, never with the account number', async () => {
    const { account, customerID } = await setUp('Payment method events');
    const first = await ok(account, 'POST', '/v1/paymentmethods/bankaccount', {
      customerID,
      isPrimary: false,
      BankAccount: bank,
    });
    const card = await ok(account, 'POST', '/v1/paymentmethods/creditcard', {
      customerID,
      isPrimary: false,
      CreditCard: {
        CardType: 'Visa',
        Number: '4111111111111111',
        NameOnCard: 'Ada',
        LastNameOnCard: 'Lovelace',
        ExpiryMonth: 12,
        ExpiryYear: 2030,
      },
    });
    const bankId = first.paymentMethodID as number;
    const cardId = card.paymentMethodID as number;
    // Events show a bank account as the add answers it: the single GET's fields, the number and IBAN not opened.
    const masked = async (id: number) => {
      const full = await read(account, `/v1/paymentmethods/${id}`);
      return full.BankAccount
        ? { ...full, BankAccount: { ...full.BankAccount, AccountNumber: null, IBAN: null } }
        : full;
    };
    const bankCreated = await masked(bankId);
    expect(bankCreated.isPrimary).toBe(true);
    await ok(account, 'PUT', `/v1/paymentmethods/${cardId}/setprimary`);
    const cardPrimary = await masked(cardId);
    const bankNotPrimary = await masked(bankId);
    await ok(account, 'PUT', `/v1/paymentmethods/bankaccount/${bankId}`, {
      customerID,
      isPrimary: false,
      BankAccount: { ...bank, AccountHolder: 'A. Lovelace' },
    });
    const bankEdited = await masked(bankId);
    await ok(account, 'DELETE', `/v1/paymentmethods/${bankId}`);

    const bankEvents = await expectEvents(account, 'payment_method', bankId, [
      'payment_method.created',
      'payment_method.updated',
      'payment_method.updated',
      'payment_method.deleted',
    ]);
    const [created, lostPrimary, edited, deleted] = bankEvents;
    expect(created!.data).toEqual({ object: bankCreated });
    expect(lostPrimary!.data).toEqual({ object: bankNotPrimary, previous: { isPrimary: true } });
    expect(edited!.data.object).toEqual(bankEdited);
    expect(edited!.data.previous).toMatchObject({ BankAccount: bankNotPrimary.BankAccount });
    expect(deleted!.data).toEqual({ object: bankEdited });
    for (const event of bankEvents) expect(JSON.stringify(event)).not.toContain('62001234567');

    const [cardCreated, primary] = await expectEvents(account, 'payment_method', cardId, [
      'payment_method.created',
      'payment_method.primary_changed',
    ]);
    expect(cardCreated!.data.object.isPrimary).toBe(false);
    expect(primary!.data).toEqual({ object: cardPrimary, previous: { isPrimary: false } });
    expect(JSON.stringify(cardCreated)).not.toContain('4111111111111111');
  });

  it('are not written when a primary method cannot be deleted', async () => {
    const { account, customerID } = await setUp('Payment method refusal');
    const { paymentMethodID } = await ok(account, 'POST', '/v1/paymentmethods/bankaccount', {
      customerID,
      isPrimary: true,
      BankAccount: bank,
    });
    expect((await account.request('DELETE', `/v1/paymentmethods/${paymentMethodID}`)).status).toBe(409);
    await expectEvents(account, 'payment_method', paymentMethodID, ['payment_method.created']);
  });

  it("are written for each of a customer's methods deleted with the customer", async () => {
    const { account, customerID } = await setUp('Payment methods deleted with their customer');
    const { paymentMethodID } = await ok(account, 'POST', '/v1/paymentmethods/bankaccount', {
      customerID,
      isPrimary: true,
      BankAccount: bank,
    });
    const [created] = await expectEvents(account, 'payment_method', paymentMethodID, [
      'payment_method.created',
    ]);
    await ok(account, 'DELETE', `/v1/customers/${customerID}`);
    const [, deleted] = await expectEvents(account, 'payment_method', paymentMethodID, [
      'payment_method.created',
      'payment_method.deleted',
    ]);
    expect(deleted!.data).toEqual({ object: created!.data.object });
    expect(JSON.stringify(deleted)).not.toContain(bank.AccountNumber);
  });
});
