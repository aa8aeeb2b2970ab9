import { minorToWireNumber } from '../../core/money.ts';
import type { CaptureSession, CaptureSessionInput } from './captureSession.service.ts';
import type { CaptureSessionOut, CreateCaptureSessionBody } from './widgets.schemas.ts';
import { captureHtml } from './widgetAssets.ts';

export function captureSessionInputFromWire(body: CreateCaptureSessionBody): CaptureSessionInput {
  return {
    vaultingType: body.VaultingType,
    saleType: body.SaleType,
    expiresIn: body.ExpiresIn,
    vaultOnlyOnSuccess: body.isVaultOnlyOnSuccess,
    currencyCode: body.CurrencyCode,
    gatewayToken: body.GatewayToken,
    authDomain: body.AuthDomain,
    amount: body.Amount,
    description: body.Description,
    extRef: body.ExtRef,
    invoiceId: body.invoiceID,
  };
}

/**
 * A capture session on the wire. `serviceOrigin` is where the browser finds the loader and the frame: given, the
 * SessionToken, HashToken and Html are shown (to the merchant's server, which asked with its key); left out
 * (events, which are stored and sent on), they are null: the SessionToken completes the session and reads it, a
 * capability no webhook endpoint needs (docs/spec-decisions.md, "Capture widget sessions", Tokens).
 */
export function toCaptureSessionDto(session: CaptureSession, serviceOrigin?: string): CaptureSessionOut {
  return {
    AppId: session.apiKeyId,
    AccountID: session.accountId,
    iframeCapturePayID: session.id,
    IframeType: 'capturepaymethod',
    SessionToken: serviceOrigin === undefined ? null : session.sessionToken,
    HashToken: serviceOrigin === undefined ? null : session.hashToken,
    ExtRef: session.extRef,
    CurrencyCode: session.currencyCode,
    DateCreated: session.createdAt,
    Expires: session.expiresAt,
    VaultingType: session.vaultingType,
    SaleType: session.saleType,
    isVaultOnlyOnSuccess: session.vaultOnlyOnSuccess,
    Amount:
      session.amountMinor === null ? null : minorToWireNumber(session.amountMinor, session.currencyCode),
    gatewayID: session.gatewayId,
    GatewayToken: session.gatewayToken,
    AuthDomain: session.authDomain,
    paymentMethodID: session.paymentMethodId,
    paymentMethodToken: session.methodToken,
    transactionID: session.chargeId,
    Description: session.description,
    Html: serviceOrigin === undefined ? null : captureHtml(serviceOrigin, session.id, session.hashToken),
    State: session.state,
    customerID: session.customerId,
    invoiceID: session.invoiceId,
    paymentID: session.paymentId,
    Purpose: session.purpose,
    ProviderReference: session.providerRef,
  };
}
