import { Type } from '@sinclair/typebox';
import type { App } from '../http/types.ts';
import { DateOut, WireDate } from '../http/schemas.ts';
import { dateAt } from '../core/calendar.ts';
import { parseWireDate } from '../core/wireDates.ts';
import { ValidationError } from '../errors.ts';
import type { Account } from '../modules/auth/index.ts';
import { advanceTestClock } from './testClock.ts';

const tags = ['Test clock'];

const TestClockOut = Type.Object({
  accountID: Type.Integer(),
  isTest: Type.Boolean(),
  Now: DateOut(),
  Today: Type.String({ description: 'The calendar date in the account time zone, YYYY-MM-DD' }),
  TimeZone: Type.String(),
});

const AdvanceOut = Type.Object({
  ...TestClockOut.properties,
  Billed: Type.Object({
    invoices: Type.Integer(),
    subscriptions: Type.Integer(),
    recurringInvoices: Type.Integer(),
    parked: Type.Integer(),
    collectionAttempts: Type.Integer({ description: 'Card charges that reached a gateway' }),
    collected: Type.Integer({ description: 'Of those, the charges that collected the money' }),
    batchLinesBundled: Type.Integer({ description: 'Due debit-order invoices put into open batches' }),
    batchesBuilt: Type.Integer({
      description: 'Submitted batches handed to their gateway or made into files',
    }),
    statementsSent: Type.Integer({
      description: 'Statements of account e-mailed to autoSendStatement customers whose StatementDate came',
    }),
  }),
});

function toTestClockDto(account: Account, now: Date) {
  return {
    accountID: account.id,
    isTest: account.isTest,
    Now: now.toISOString(),
    Today: dateAt(now, account.timeZone),
    TimeZone: account.timeZone,
  };
}

/** The test clock of a test account (beyond the spec). */
export function registerTestClockRoutes(app: App): void {
  app.get(
    '/test-clock',
    {
      schema: {
        summary: 'Read the billing clock',
        operationId: 'getTestClock',
        tags,
        description:
          "The clock the account bills by: a test account's own clock, or the real time for other accounts.",
        response: { 200: TestClockOut },
      },
    },
    async (request) => toTestClockDto(request.ctx.account, request.ctx.clock.now()),
  );

  app.post(
    '/test-clock/advance',
    {
      schema: {
        summary: "Advance a test account's clock",
        operationId: 'advanceTestClock',
        tags,
        description:
          "Moves a test account's clock forward to `To`, running the bill run for every day passed. 403 " +
          '`not_a_test_account` for a live account (make a test account with `billing account create --test`; ' +
          'the demo account made on the first start is one); 422 for a time before the clock.',
        body: Type.Object({ To: WireDate() }, { additionalProperties: false }),
        response: { 200: AdvanceOut },
      },
    },
    async (request) => {
      const to = parseWireDate(request.body.To, request.ctx.account.timeZone);
      if (!to) throw ValidationError.field('To', 'must be a date');
      const { account, billed } = await advanceTestClock(request.ctx, to);
      return { ...toTestClockDto(account, new Date(to)), Billed: billed };
    },
  );
}
