import { Type } from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';
import { DateOut, Id, Nullable, StringEnum, Text } from '../../http/schemas.ts';
import { WireAmount } from '../ledger/index.ts';
import { AUTH_DOMAIN_MAX } from './authDomain.ts';
import { CAPTURE_STATES, SALE_TYPES, VAULTING_TYPES } from './captureSession.ts';

const SessionToken = () =>
  Text(64, { minLength: 1, description: 'The session, as create answered it (keep it on your server)' });

export const SessionTokenParams = Type.Object({ SessionToken: SessionToken() });

export const CreateCaptureSessionBody = Type.Object({
  VaultingType: StringEnum(VAULTING_TYPES, {
    description: "VaultGateway keeps the card in the gateway's vault; None keeps nothing (SaleType Sale)",
  }),
  SaleType: StringEnum(SALE_TYPES, {
    description: 'VaultOnly keeps the card; VaultSale keeps it and charges Amount; Sale only charges Amount',
  }),
  ExpiresIn: Text(16, {
    minLength: 1,
    description: 'How long the frame takes a card: hh:mm:ss, at most 24:00:00',
  }),
  isVaultOnlyOnSuccess: Type.Boolean({
    description:
      'VaultSale: keep the card only when the charge succeeds (false keeps it when the charge is declined)',
  }),
  CurrencyCode: Text(3, { minLength: 3, description: 'Enabled for the account; the sale is in it' }),
  GatewayToken: Text(64, {
    minLength: 1,
    description: "The gateway (its GatewayToken) whose vault keeps the card: the account's test gateway",
  }),
  AuthDomain: Text(AUTH_DOMAIN_MAX, {
    minLength: 1,
    description:
      'The one origin allowed to show the frame (scheme://host[:port]; https, or http on localhost); no wildcard or path',
  }),
  Amount: Type.Optional(
    Type.Unsafe<number | string | null>({
      ...WireAmount('What a sale charges, in major units; required for VaultSale and Sale'),
      type: ['number', 'string', 'null'],
    }),
  ),
  Description: Type.Optional(
    Nullable(Text(255, { description: 'Shown with the charge and on the payment' })),
  ),
  ExtRef: Type.Optional(Nullable(Text(255, { description: 'Your own reference for the session' }))),
  invoiceID: Type.Optional(
    Nullable(Id({ description: 'Beyond the spec: the invoice a sale pays, allocated at complete' })),
  ),
});
export type CreateCaptureSessionBody = Static<typeof CreateCaptureSessionBody>;

export const CompleteCaptureSessionBody = Type.Object({
  customerID: Id({ description: 'The customer the captured card (and a sale) belongs to' }),
  SessionToken: Type.Optional(SessionToken()),
  iframeCapturePayID: Type.Optional(
    Id({
      description:
        'Beyond the spec: the session by its id, as the capture_session.* events carry it, in place of SessionToken (one of the two; your API key is what authorises the call)',
    }),
  ),
});
export type CompleteCaptureSessionBody = Static<typeof CompleteCaptureSessionBody>;

const NullableId = () => Type.Unsafe<number | null>({ type: ['integer', 'null'], minimum: 1 });
const NullableText = (description: string) => Nullable(Type.String({ description }));

export const CaptureSessionOut = Type.Object({
  AppId: NullableId(),
  AccountID: Id(),
  iframeCapturePayID: Id(),
  IframeType: Type.String({ description: 'Always capturepaymethod' }),
  SessionToken: NullableText("Your server's token (get, build, complete); null in events"),
  HashToken: NullableText("The browser's token (in the frame's URL); null in events"),
  ExtRef: NullableText('Your reference'),
  CurrencyCode: Type.String(),
  DateCreated: DateOut(),
  Expires: DateOut(),
  VaultingType: StringEnum(VAULTING_TYPES),
  SaleType: StringEnum(SALE_TYPES),
  isVaultOnlyOnSuccess: Type.Boolean(),
  Amount: Type.Unsafe<number | null>({ type: ['number', 'null'] }),
  gatewayID: Id(),
  GatewayToken: Type.String(),
  AuthDomain: Type.String({ description: 'The normalised origin allowed to frame the widget' }),
  paymentMethodID: NullableId(),
  paymentMethodToken: NullableText(
    "The kept card's token of our own (pm_…), its payment method's once completed; never the gateway vault's. " +
      'Null until captured, or for a Sale',
  ),
  transactionID: NullableText("The gateway's charge of a sale; null when nothing was charged"),
  Description: NullableText('Shown with the charge'),
  Html: NullableText('The container and the loader script to put in your page; null in events'),
  State: StringEnum(CAPTURE_STATES, {
    description:
      'Beyond the spec: open, captured (a card is in), completed, locked (5 failed submits), expired',
  }),
  customerID: NullableId(),
  invoiceID: NullableId(),
  paymentID: NullableId(),
  Purpose: StringEnum(['save_card', 'pay_invoice', 'buy_credit', 'charge'] as const, {
    description:
      'Beyond the spec: what the session is for: save_card (VaultOnly), pay_invoice (a sale of invoiceID), buy_credit (a sale of a top-up invoice: prepaid credit), charge (a sale naming no invoice)',
  }),
  ProviderReference: NullableText(
    "Beyond the spec: the reference of the setup or sale started at the gateway's provider (Paystack's transaction reference, Stripe's intent id); null for the test gateway. No secret",
  ),
});
export type CaptureSessionOut = Static<typeof CaptureSessionOut>;
