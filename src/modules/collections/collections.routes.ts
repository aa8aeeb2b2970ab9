import { Type } from '@sinclair/typebox';
import { Id, Nullable, StringEnum, Text, emptyBodyAsObject } from '../../http/schemas.ts';
import type { App } from '../../http/types.ts';
import { GrantOut, toGrantDto } from '../credits/index.ts';
import { PAID_INVOICES_CHOICES, PaymentOut, WireAmount, toPaymentDto } from '../ledger/index.ts';
import { refundPayment } from './gatewayRefund.service.ts';
import { refundCreditGrant } from './grantRefund.service.ts';

export function registerCollectionsRoutes(app: App): void {
  app.post(
    '/payments/:paymentID/refund',
    {
      schema: {
        summary: 'Refund a card payment through its gateway, crediting or reopening what it paid',
        operationId: 'refundPayment',
        tags: ['Payments'],
        description:
          'Beyond the spec: pays money of a collected card payment back to the card, through the gateway that ' +
          'charged it, in one call. The money comes first from what the payment has not allocated, then from what ' +
          'it paid invoices, the latest invoice first. `PaidInvoices` says what happens to those invoices: ' +
          '`credit` (the default) issues a credit note of what was taken from them in the same call (numbered ' +
          "`CreditNumber`, or the account's next `CN-` number), so they stay settled, as a goodwill refund; " +
          '`reopen` gives that money back to them, so they owe it again. Without `Amount`, all that is left to ' +
          'refund. Recorded as a positive refund adjustment the payment is allocated to (`payment.refunded`, ' +
          'with `credit_note.created` or the invoices’ `invoice.updated`). 409 for a payment not charged by a ' +
          'gateway or with nothing left to refund, a refund the gateway refuses (nothing then changes), or one it ' +
          'did not answer (it stays reserved and the next collection run finishes it: made at most once); 409 ' +
          '`top_up_reopen_refused` for `reopen` of a payment that paid a top-up invoice whose credit the customer ' +
          'still holds (docs/credits.md, "Crediting a top-up").',
        params: Type.Object({ paymentID: Id() }),
        body: Type.Object(
          {
            Amount: Type.Optional(
              WireAmount('The amount to pay back; all that is left to refund when left out'),
            ),
            Memo: Type.Optional(Nullable(Text(1000))),
            PaidInvoices: Type.Optional(
              StringEnum(PAID_INVOICES_CHOICES, {
                description:
                  'What happens to the invoices the refunded money paid: `credit` (default: a credit note keeps ' +
                  'them settled) or `reopen` (they owe it again)',
              }),
            ),
            CreditNumber: Type.Optional(
              Text(100, {
                minLength: 1,
                description:
                  'The number of the credit note `credit` issues, unique per account; default ' +
                  "the account's next `CN-` number",
              }),
            ),
          },
          { additionalProperties: false },
        ),
        response: { 200: PaymentOut },
      },
    },
    async (request) =>
      toPaymentDto(
        await refundPayment(request.ctx, request.params.paymentID, {
          ...(request.body.Amount === undefined ? {} : { amount: String(request.body.Amount) }),
          memo: request.body.Memo,
          ...(request.body.PaidInvoices === undefined ? {} : { paidInvoices: request.body.PaidInvoices }),
          ...(request.body.CreditNumber === undefined ? {} : { creditNumber: request.body.CreditNumber }),
        }),
        request.ctx.account.timeZone,
      ),
  );

  app.post(
    '/credit-grants/:creditGrantID/refund',
    {
      preValidation: emptyBodyAsObject,
      schema: {
        summary: 'Refund unused paid credit to the card that bought it',
        operationId: 'refundCreditGrant',
        tags: ['Prepaid credit'],
        description:
          'Pays unused credit of a paid grant back through the gateway that charged its top-up (docs/credits.md, ' +
          '"Refunding unused credit"). `Amount` is credit, in the grant’s currency, at most its `Remaining`; all ' +
          'of it when left out. The card gets that credit with its tax share: the top-up invoice’s money it stands ' +
          'for, counted with what the invoice was credited before and rounded half up, so refunds one at a time add ' +
          'up to the invoice’s total. In one call, as `POST /v1/payments/{id}/refund` does for the payment that ' +
          'paid the top-up (a refund adjustment, `payment.refunded`), a credit note on the top-up invoice keeps it ' +
          'settled and takes the credit out of the grant (a `refund` entry, `credit_grant.refunded`). 409 ' +
          '`credit_grant_not_refundable` for free credit (void it) or a top-up not paid by a card charged through ' +
          'a gateway (refund it by hand), `credit_grant_voided`, `credit_grant_used` (nothing left), ' +
          '`top_up_credit_spent` when credit was consumed meanwhile, `refund_declined` (nothing changes) and ' +
          '`refund_unanswered` (reserved; the next collection run finishes it, once).',
        params: Type.Object({ creditGrantID: Id() }),
        body: Type.Object(
          {
            Amount: Type.Optional(
              WireAmount('The credit to refund, at most what the grant holds; all of it when left out'),
            ),
            Memo: Type.Optional(
              Nullable(Text(1000, { description: 'Added to the refund adjustment’s memo' })),
            ),
          },
          { additionalProperties: false },
        ),
        response: { 200: GrantOut },
      },
    },
    async (request) =>
      toGrantDto(
        await refundCreditGrant(request.ctx, request.params.creditGrantID, {
          ...(request.body.Amount === undefined ? {} : { amount: request.body.Amount }),
          memo: request.body.Memo,
        }),
      ),
  );
}
