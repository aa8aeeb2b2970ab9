import { beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.ts';
import { createAccount } from '../../src/modules/auth/index.ts';
import type { TestAccount } from '../helpers/service.ts';
import { useTestService } from '../helpers/testService.ts';
import { modulePorts } from '../../src/modulePorts.ts';

const t = useTestService();

/** The seller details (account.seller.test.ts), null until given. */
const SELLER_FIELDS = [
  'LegalName',
  'AddressLine1',
  'AddressLine2',
  'City',
  'PostalCode',
  'countryID',
  'Country',
  'TaxNumber',
  'CompanyNumber',
  'ContactEmail',
  'ContactPhone',
  'PaymentInstructions',
  'SenderName',
  'ReplyTo',
  'LogoURL',
];

/** How failed card collections are retried (docs/gateways.md): the defaults until set. */
const DUNNING_FIELDS = [
  'DunningRetryDays',
  'DunningMaxAttempts',
  'DunningSuspendCustomer',
  'DunningCancelSubscriptions',
];
const DUNNING_DEFAULTS = {
  DunningRetryDays: null,
  DunningMaxAttempts: null,
  DunningSuspendCustomer: false,
  DunningCancelSubscriptions: false,
};

/** What the collection loop does on its own (docs/gateways.md, "The collection loop"): the defaults until set. */
const COLLECTION_LOOP_DEFAULTS = {
  SendPaymentReceipts: true,
  SendPaymentFailedEmails: true,
  SendInvoiceReminders: true,
  InvoiceReminderDays: null,
  ApplyCreditBeforeCollecting: true,
  AutoSubmitBatches: false,
  LateChargesOnPaidInvoices: 'refund',
  StaffEmail: null,
  SmallInvoiceAmount: null,
};

const FIELDS = [
  'accountID',
  'Name',
  'TimeZone',
  'CurrencyCode',
  'isTest',
  'TestClockDate',
  'InvoiceDueDays',
  'InvoiceNotes',
  'InvoiceTerms',
  ...DUNNING_FIELDS,
  ...Object.keys(COLLECTION_LOOP_DEFAULTS),
  'StatementPeriod',
  ...SELLER_FIELDS,
  'PortalSlug',
  'PortalURL',
  'PortalAllowCancel',
  'PortalAllowTopUps',
  'PortalTopUpLimits',
  'PortalSwitchPackageIDs',
  'PortalPause',
  'MaxPauseDays',
  'MaxPausesPerYear',
  'isTaxInclusive',
  'UsageGraceHours',
  'UsageAlertEmails',
  'PrepaidCreditVat',
  'VatBasis',
  'SendCreditNotes',
  'SendRefundNotices',
  'SendLowBalanceAlerts',
  'SendCancellationNotices',
  'SendPauseNotices',
  'CopyNoticesToStaff',
];

async function readAccount(as: TestAccount) {
  const res = await as.request('GET', '/v1/account');
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

async function put(as: TestAccount, body: unknown) {
  return as.request('PUT', '/v1/account', { body });
}

describe('GET /v1/account', () => {
  it("returns the caller's account with its defaults", async () => {
    const account = await readAccount(t);
    expect(Object.keys(account).sort()).toEqual([...FIELDS].sort());
    expect(account).toEqual({
      accountID: t.accountId,
      Name: 'Test Account',
      TimeZone: 'UTC',
      CurrencyCode: 'USD',
      isTest: false,
      TestClockDate: null,
      InvoiceDueDays: 0,
      InvoiceNotes: null,
      InvoiceTerms: null,
      ...DUNNING_DEFAULTS,
      ...COLLECTION_LOOP_DEFAULTS,
      StatementPeriod: 'monthly',
      ...Object.fromEntries(SELLER_FIELDS.map((field) => [field, null])),
      PortalSlug: null,
      PortalURL: null,
      PortalAllowCancel: true,
      PortalAllowTopUps: true,
      PortalTopUpLimits: [],
      PortalSwitchPackageIDs: [],
      PortalPause: false,
      MaxPauseDays: 90,
      MaxPausesPerYear: 1,
      isTaxInclusive: false,
      UsageGraceHours: 72,
      UsageAlertEmails: false,
      PrepaidCreditVat: 'when_sold',
      VatBasis: 'invoice',
      SendCreditNotes: true,
      SendRefundNotices: true,
      SendLowBalanceAlerts: true,
      SendCancellationNotices: true,
      SendPauseNotices: true,
      CopyNoticesToStaff: false,
    });
  });

  it('shows a test account and its clock as an ISO instant', async () => {
    const created = await createAccount(
      t.service.storage.db,
      {
        ports: modulePorts(),
        clock: { now: () => new Date('2031-05-06T07:08:09.123Z') },
        wallClock: systemClock,
      },
      { name: 'Sandbox', timeZone: 'Africa/Johannesburg', currencyCode: 'ZAR', isTest: true },
    );
    const res = await t.request('GET', '/v1/account', {
      auth: { accountId: created.account.id, apiKey: created.apiKey },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      accountID: created.account.id,
      Name: 'Sandbox',
      TimeZone: 'Africa/Johannesburg',
      CurrencyCode: 'ZAR',
      isTest: true,
      TestClockDate: '2031-05-06T07:08:09.123Z',
    });
  });

  it('is created by a caller that hands over its whole deps, database included', async () => {
    // bench:billing's seed passes its BillingDeps: the creation's events must still be written in its transaction.
    const db = t.service.storage.db;
    const deps = { db, clock: systemClock, wallClock: systemClock, ports: modulePorts() };
    const created = await createAccount(db, deps, { name: 'Seeded' });
    const res = await t.request('GET', '/v1/events?type=account.created', {
      auth: { accountId: created.account.id, apiKey: created.apiKey },
    });
    expect(res.status).toBe(200);
    expect(JSON.stringify(res.body)).toContain('account.created');
  });

  it('answers 401 without credentials', async () => {
    const res = await t.request('GET', '/v1/account', { auth: false });
    expect(res.status).toBe(401);
    expect(res.headers.get('content-type')).toContain('application/problem+json');
  });
});

describe('PUT /v1/account', () => {
  let account: TestAccount;
  beforeAll(async () => {
    account = await t.newAccount('Settings');
  });

  it('changes the settings sent and keeps the others', async () => {
    const res = await put(account, {
      TimeZone: 'Africa/Johannesburg',
      InvoiceDueDays: 30,
      InvoiceNotes: '  Thank you for your business.  ',
      InvoiceTerms: 'Payable within 30 days.',
    });
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expect(await readAccount(account)).toMatchObject({
      Name: 'Settings',
      TimeZone: 'Africa/Johannesburg',
      CurrencyCode: 'USD',
      InvoiceDueDays: 30,
      InvoiceNotes: 'Thank you for your business.',
      InvoiceTerms: 'Payable within 30 days.',
    });

    expect((await put(account, { InvoiceDueDays: 7 })).status).toBe(204);
    expect(await readAccount(account)).toMatchObject({
      TimeZone: 'Africa/Johannesburg',
      InvoiceDueDays: 7,
      InvoiceNotes: 'Thank you for your business.',
      InvoiceTerms: 'Payable within 30 days.',
    });
  });

  it('clears notes and terms sent as null or blank', async () => {
    await put(account, { InvoiceNotes: 'Notes', InvoiceTerms: 'Terms' });
    expect((await put(account, { InvoiceNotes: null, InvoiceTerms: '   ' })).status).toBe(204);
    expect(await readAccount(account)).toMatchObject({ InvoiceNotes: null, InvoiceTerms: null });
  });

  it('accepts the bounds of InvoiceDueDays', async () => {
    for (const days of [0, 3650]) {
      expect((await put(account, { InvoiceDueDays: days })).status).toBe(204);
      expect((await readAccount(account)).InvoiceDueDays).toBe(days);
    }
  });

  it('accepts an edit with no body as an edit of nothing', async () => {
    const before = await readAccount(account);
    expect((await account.request('PUT', '/v1/account')).status).toBe(204);
    expect((await put(account, {})).status).toBe(204);
    expect(await readAccount(account)).toEqual(before);
  });

  it('ignores fields it does not change (a whole account read back is accepted)', async () => {
    const before = await readAccount(account);
    const res = await put(account, { ...before, Name: 'Renamed', isTest: true, InvoiceDueDays: 14 });
    expect(res.status).toBe(204);
    expect(await readAccount(account)).toEqual({ ...before, InvoiceDueDays: 14 });
  });

  it.each([
    ['an unknown TimeZone', { TimeZone: 'Mars/Olympus_Mons' }, 'TimeZone'],
    ['an empty TimeZone', { TimeZone: '' }, 'TimeZone'],
    ['a null TimeZone', { TimeZone: null }, 'TimeZone'],
    ['InvoiceDueDays below 0', { InvoiceDueDays: -1 }, 'InvoiceDueDays'],
    ['InvoiceDueDays above 3650', { InvoiceDueDays: 3651 }, 'InvoiceDueDays'],
    ['a fractional InvoiceDueDays', { InvoiceDueDays: 1.5 }, 'InvoiceDueDays'],
    ['InvoiceDueDays as text', { InvoiceDueDays: '30' }, 'InvoiceDueDays'],
    ['a null InvoiceDueDays', { InvoiceDueDays: null }, 'InvoiceDueDays'],
    ['InvoiceNotes over 10 000 characters', { InvoiceNotes: 'x'.repeat(10_001) }, 'InvoiceNotes'],
    ['a number for InvoiceTerms', { InvoiceTerms: 42 }, 'InvoiceTerms'],
  ])('refuses %s with 422 naming the field and changes nothing', async (_label, bad, field) => {
    const before = await readAccount(account);
    const res = await put(account, { InvoiceNotes: 'would change', ...bad });
    expect(res.status).toBe(422);
    expect(res.headers.get('content-type')).toContain('application/problem+json');
    expect(res.body.fields.map((f: { field: string }) => f.field)).toEqual([field]);
    expect(await readAccount(account)).toEqual(before);
  });

  it('lists every invalid field at once', async () => {
    const res = await put(account, { TimeZone: '', InvoiceDueDays: 99999, InvoiceTerms: 42 });
    expect(res.status).toBe(422);
    expect(res.body.fields.map((f: { field: string }) => f.field).sort()).toEqual([
      'InvoiceDueDays',
      'InvoiceTerms',
      'TimeZone',
    ]);
  });

  it('answers 400 for a malformed body', async () => {
    const res = await account.request('PUT', '/v1/account', { rawBody: '{"TimeZone":' });
    expect(res.status).toBe(400);
  });

  it("changes only the caller's account", async () => {
    const mine = await t.newAccount('Mine');
    const theirs = await t.newAccount('Theirs');
    const theirsBefore = await readAccount(theirs);
    expect((await put(mine, { TimeZone: 'Asia/Tokyo', InvoiceDueDays: 5 })).status).toBe(204);
    expect(await readAccount(theirs)).toEqual(theirsBefore);
    expect(await readAccount(mine)).toMatchObject({ TimeZone: 'Asia/Tokyo', InvoiceDueDays: 5 });
  });

  it('a new time zone is the one later requests read dates in', async () => {
    const zoned = await t.newAccount('Zoned');
    expect((await put(zoned, { TimeZone: 'Africa/Johannesburg' })).status).toBe(204);
    const res = await zoned.request('POST', '/v1/customers', {
      body: { Name: 'Ada', StatementDate: '05 Mar 2027' },
    });
    expect(res.status).toBe(201);
    // Midnight of 5 March in Johannesburg (UTC+2) is 22:00 UTC the day before.
    expect(res.body.StatementDate).toBe('2027-03-04T22:00:00.000Z');
  });
});

describe('PUT /v1/account: dunning', () => {
  it('sets the retry days, the attempts and the actions, and null restores the defaults', async () => {
    const as = await t.newAccount('Dunning');
    const set = await put(as, {
      DunningRetryDays: [2, 5, 9],
      DunningMaxAttempts: 3,
      DunningSuspendCustomer: true,
      DunningCancelSubscriptions: true,
    });
    expect(set.status, set.text).toBe(204);
    expect(await readAccount(as)).toMatchObject({
      DunningRetryDays: [2, 5, 9],
      DunningMaxAttempts: 3,
      DunningSuspendCustomer: true,
      DunningCancelSubscriptions: true,
    });
    expect((await put(as, { DunningRetryDays: null, DunningMaxAttempts: null })).status).toBe(204);
    expect(await readAccount(as)).toMatchObject({
      ...DUNNING_DEFAULTS,
      DunningSuspendCustomer: true,
      DunningCancelSubscriptions: true,
    });
  });

  it.each([
    [{ DunningRetryDays: [3, 1] }, 'DunningRetryDays'],
    [{ DunningRetryDays: [1, 1] }, 'DunningRetryDays'],
    [{ DunningRetryDays: [0] }, 'DunningRetryDays'],
    [{ DunningRetryDays: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11] }, 'DunningRetryDays'],
    [{ DunningMaxAttempts: 0 }, 'DunningMaxAttempts'],
    [{ DunningMaxAttempts: 21 }, 'DunningMaxAttempts'],
  ])('refuses %j naming %s, and changes nothing', async (body, field) => {
    const as = await t.newAccount('Bad dunning');
    const res = await put(as, body);
    expect(res.status, res.text).toBe(422);
    expect(JSON.stringify(res.body)).toContain(field);
    expect(await readAccount(as)).toMatchObject(DUNNING_DEFAULTS);
  });
});

describe('PUT /v1/account: the usage grace window', () => {
  it('is 72 hours until set, and takes 0 to 720', async () => {
    const as = await t.newAccount('Usage grace');
    expect(await readAccount(as)).toMatchObject({ UsageGraceHours: 72 });
    expect((await put(as, { UsageGraceHours: 0 })).status).toBe(204);
    expect(await readAccount(as)).toMatchObject({ UsageGraceHours: 0 });
    expect((await put(as, { UsageGraceHours: 720 })).status).toBe(204);
    expect(await readAccount(as)).toMatchObject({ UsageGraceHours: 720 });
  });

  it.each([[-1], [721], [1.5], ['72']])(
    'refuses %j naming UsageGraceHours, and changes nothing',
    async (value) => {
      const as = await t.newAccount('Bad usage grace');
      const res = await put(as, { UsageGraceHours: value });
      expect(res.status, res.text).toBe(422);
      expect(JSON.stringify(res.body)).toContain('UsageGraceHours');
      expect(await readAccount(as)).toMatchObject({ UsageGraceHours: 72 });
    },
  );
});

describe('PUT /v1/account: usage alert e-mails', () => {
  it('are off until turned on, and take only a boolean', async () => {
    const as = await t.newAccount('Usage alert e-mails');
    expect(await readAccount(as)).toMatchObject({ UsageAlertEmails: false });
    expect((await put(as, { UsageAlertEmails: true })).status).toBe(204);
    expect(await readAccount(as)).toMatchObject({ UsageAlertEmails: true });
    const res = await put(as, { UsageAlertEmails: 'yes' });
    expect(res.status, res.text).toBe(422);
    expect(JSON.stringify(res.body)).toContain('UsageAlertEmails');
    expect(await readAccount(as)).toMatchObject({ UsageAlertEmails: true });
    expect((await put(as, { UsageAlertEmails: false })).status).toBe(204);
    expect(await readAccount(as)).toMatchObject({ UsageAlertEmails: false });
  });
});

describe('PUT /v1/account: VAT', () => {
  it('sells prepaid credit with VAT and reports on the invoice basis until told otherwise, naming a bad value', async () => {
    const as = await t.newAccount('VAT settings');
    expect(await readAccount(as)).toMatchObject({ PrepaidCreditVat: 'when_sold', VatBasis: 'invoice' });
    expect((await put(as, { PrepaidCreditVat: 'when_used', VatBasis: 'payments' })).status).toBe(204);
    expect(await readAccount(as)).toMatchObject({ PrepaidCreditVat: 'when_used', VatBasis: 'payments' });
    const res = await put(as, { PrepaidCreditVat: 'never', VatBasis: 'cash' });
    expect(res.status, res.text).toBe(422);
    expect(res.body.fields.map((f: any) => f.field).sort()).toEqual(['PrepaidCreditVat', 'VatBasis']);
    expect(await readAccount(as)).toMatchObject({ PrepaidCreditVat: 'when_used', VatBasis: 'payments' });
  });
});

describe('PUT /v1/account: the collection loop', () => {
  it('reads the defaults, sets every setting, and null restores the reminder days and clears the staff address', async () => {
    const as = await t.newAccount('Collection loop');
    expect(await readAccount(as)).toMatchObject(COLLECTION_LOOP_DEFAULTS);
    const changed = {
      SendPaymentReceipts: false,
      SendPaymentFailedEmails: false,
      SendInvoiceReminders: false,
      InvoiceReminderDays: [-5, 0, 10],
      ApplyCreditBeforeCollecting: false,
      AutoSubmitBatches: true,
      LateChargesOnPaidInvoices: 'credit',
      StaffEmail: 'billing@shop.example',
      SmallInvoiceAmount: 5.5,
    };
    const set = await put(as, changed);
    expect(set.status, set.text).toBe(204);
    expect(await readAccount(as)).toMatchObject(changed);
    expect((await put(as, { InvoiceReminderDays: null, StaffEmail: null })).status).toBe(204);
    expect(await readAccount(as)).toMatchObject({ ...changed, InvoiceReminderDays: null, StaffEmail: null });
  });

  it.each([
    [{ InvoiceReminderDays: [3, 1] }, 'InvoiceReminderDays'],
    [{ InvoiceReminderDays: [-31] }, 'InvoiceReminderDays'],
    [{ InvoiceReminderDays: [91] }, 'InvoiceReminderDays'],
    [{ InvoiceReminderDays: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11] }, 'InvoiceReminderDays'],
    [{ StaffEmail: 'not an address' }, 'StaffEmail'],
    [{ SmallInvoiceAmount: 0 }, 'SmallInvoiceAmount'],
    [{ SmallInvoiceAmount: 0.001 }, 'SmallInvoiceAmount'],
    [{ AutoSubmitBatches: 'yes' }, 'AutoSubmitBatches'],
    [{ LateChargesOnPaidInvoices: 'keep' }, 'LateChargesOnPaidInvoices'],
  ])('refuses %j naming %s, and changes nothing', async (body, field) => {
    const as = await t.newAccount('Bad collection loop');
    const res = await put(as, body);
    expect(res.status, res.text).toBe(422);
    expect(JSON.stringify(res.body)).toContain(field);
    expect(await readAccount(as)).toMatchObject(COLLECTION_LOOP_DEFAULTS);
  });
});
