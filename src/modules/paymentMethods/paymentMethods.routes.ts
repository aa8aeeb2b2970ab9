import { Type } from '@sinclair/typebox';
import type { App } from '../../http/types.ts';
import { NoContent, PagingQuery, pageOf } from '../../http/schemas.ts';
import { deletePaymentMethod } from '../../flows/deletePaymentMethod.ts';
import * as bankAccounts from './bankAccount.service.ts';
import { validateBankAccount } from './bankAccountValidation.service.ts';
import * as cards from './card.service.ts';
import * as paymentMethods from './paymentMethod.service.ts';
import {
  AddCreditCardBody,
  BankAccountBody,
  CustomerIdParams,
  CustomerPaymentMethodListItemOut,
  GatewayIdParams,
  PaymentMethodIdParams,
  PaymentMethodListItemOut,
  PaymentMethodOut,
  ValidateBankAccountBody,
} from './paymentMethods.schemas.ts';
import {
  bankAccountInputFromWire,
  creditCardInputFromWire,
  toCustomerPaymentMethodListItemDto,
  toPaymentMethodDto,
  toPaymentMethodListItemDto,
  validateBankAccountInputFromWire,
} from './paymentMethods.serializer.ts';

const tags = ['Payment methods'];

export function registerPaymentMethodsRoutes(app: App): void {
  app.get(
    '/customers/:customerID/paymentmethods',
    {
      schema: {
        summary: "List a customer's payment methods",
        operationId: 'listCustomerPaymentMethods',
        tags,
        description:
          "The customer's payment methods in the order they were added, with the list's short fields.",
        params: CustomerIdParams,
        querystring: PagingQuery,
        response: { 200: Type.Array(CustomerPaymentMethodListItemOut) },
      },
    },
    async (request) =>
      (
        await paymentMethods.listPaymentMethods(request.ctx, pageOf(request.query), request.params.customerID)
      ).map(toCustomerPaymentMethodListItemDto),
  );

  app.get(
    '/paymentmethods',
    {
      schema: {
        summary: 'List payment methods',
        operationId: 'listPaymentMethods',
        tags,
        description:
          "The account's payment methods in the order they were added, with the list's short fields.",
        querystring: PagingQuery,
        response: { 200: Type.Array(PaymentMethodListItemOut) },
      },
    },
    async (request) =>
      (await paymentMethods.listPaymentMethods(request.ctx, pageOf(request.query))).map(
        toPaymentMethodListItemDto,
      ),
  );

  app.get(
    '/paymentmethods/:paymentMethodID',
    {
      schema: {
        summary: 'Get a payment method',
        operationId: 'getPaymentMethod',
        tags,
        description:
          'The full payment method. A card number is never returned; a sepa account has no AccountNumber.',
        params: PaymentMethodIdParams,
        response: { 200: PaymentMethodOut },
      },
    },
    async (request) =>
      toPaymentMethodDto(
        await paymentMethods.getPaymentMethod(request.ctx, request.params.paymentMethodID),
        request.ctx.account.timeZone,
      ),
  );

  // Spec: the adds answer 200 (not 201) with the payment method.
  app.post(
    '/paymentmethods/creditcard',
    {
      schema: {
        summary: 'Add a card',
        operationId: 'createCreditCard',
        tags,
        description:
          "Adds a card. The number goes to the vault of the customer's gateway (its PrimaryGatewayID, else the account's primary gateway), which must take cards; only its token, the brand, the last four digits, the names and the expiry are kept. isValid is true.",
        body: AddCreditCardBody,
        response: { 200: PaymentMethodOut },
      },
    },
    async (request) =>
      toPaymentMethodDto(
        await cards.addCreditCard(request.ctx, creditCardInputFromWire(request.body)),
        request.ctx.account.timeZone,
      ),
  );

  app.post(
    '/paymentmethods/bankaccount',
    {
      schema: {
        summary: 'Add a bank account',
        operationId: 'createBankAccount',
        tags,
        description:
          'Adds a bank account (debit_order, ach or sepa). The account number and IBAN are encrypted at rest and left null in this response (GET the method to read them). isValid is false, unless EMandateToken names a signed eMandate for this account (which the method is then linked to; an unsigned, expired or unknown token, or other details, are a 422). Beyond the spec, a sepa account may carry its debit mandate (MandateReference, MandateSignatureDate), which its pain.008 lines are collected under.',
        body: BankAccountBody,
        response: { 200: PaymentMethodOut },
      },
    },
    async (request) =>
      toPaymentMethodDto(
        await bankAccounts.addBankAccount(request.ctx, bankAccountInputFromWire(request.body)),
        request.ctx.account.timeZone,
      ),
  );

  app.put(
    '/paymentmethods/:paymentMethodID/setprimary',
    {
      schema: {
        summary: 'Make a payment method primary',
        operationId: 'setPrimaryPaymentMethod',
        tags,
        description: "Makes the method its customer's primary; the previous primary stops being primary.",
        params: PaymentMethodIdParams,
        response: NoContent,
      },
    },
    async (request, reply) => {
      await paymentMethods.setPrimaryPaymentMethod(request.ctx, request.params.paymentMethodID);
      return reply.code(204).send(null);
    },
  );

  app.put(
    '/paymentmethods/bankaccount/:paymentMethodID',
    {
      schema: {
        summary: 'Edit a bank account',
        operationId: 'editBankAccount',
        tags,
        description:
          "Replaces a bank account's details (the same body as the add). The customer cannot change; isValid becomes false; isPrimary true makes it primary, false changes nothing.",
        params: PaymentMethodIdParams,
        body: BankAccountBody,
        response: NoContent,
      },
    },
    async (request, reply) => {
      await bankAccounts.editBankAccount(
        request.ctx,
        request.params.paymentMethodID,
        bankAccountInputFromWire(request.body),
      );
      return reply.code(204).send(null);
    },
  );

  app.delete(
    '/paymentmethods/:paymentMethodID',
    {
      schema: {
        summary: 'Delete a payment method',
        operationId: 'deletePaymentMethod',
        tags,
        description:
          'Deletes a payment method. 409 when it is the primary, or when an invoice, a recurring invoice or a payment refers to it.',
        params: PaymentMethodIdParams,
        response: NoContent,
      },
    },
    async (request, reply) => {
      await deletePaymentMethod(request.ctx, request.params.paymentMethodID);
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/ValidateBankAccount/:gatewayID',
    {
      schema: {
        summary: 'Validate bank account details',
        operationId: 'validateBankAccount',
        tags,
        description:
          'Checks bank account details as an add would (required fields per Method; IBAN, BIC and routing ' +
          'checksums) for a gateway that takes bank accounts, then asks the gateway (one without an online check, ' +
          'such as `bankfile`, goes by the offline checks alone). 204 when the details pass, or when the bank has ' +
          'not answered yet; 422 naming each bad field, or `BankAccount.AccountNumber` (`BankAccount.IBAN` for ' +
          "SEPA) with the bank's reason when the gateway refuses the account.\n\n" +
          'What it stores: **without `customerID`, nothing** (the gateway call is logged, masked to the last four ' +
          'digits, as every gateway call is). **With `customerID`** (404 for an unknown customer), every bank ' +
          'account stored for that customer with the same details (DebitMethod, AccountNumber, IBAN, BranchCode ' +
          "and RoutingNumber; the holder's name is not compared) takes the answer: `isValid` true when the details " +
          'pass, false when the gateway refuses them (the answer is still the 422), each change a ' +
          '`payment_method.updated` event. An answer still pending changes nothing. No payment method is ever ' +
          'added: `isPrimary` and `isValid` in the body are accepted and ignored.',
        params: GatewayIdParams,
        body: ValidateBankAccountBody,
        response: NoContent,
      },
    },
    async (request, reply) => {
      await validateBankAccount(
        request.ctx,
        validateBankAccountInputFromWire(request.params.gatewayID, request.body),
      );
      return reply.code(204).send(null);
    },
  );
}
