import crypto from 'node:crypto';
import type { ServiceContext } from '../../context.ts';
import type { SecretBox } from '../../security/secretBox.ts';

/**
 * The "pay this invoice" link of the e-mails that ask a customer to act (docs/hosted-pages.md, "Paying one
 * invoice"): a hosted page that needs no portal account, for one invoice of one account, signed with a key derived
 * from the service's encryption key, and expiring. Nothing is stored: the signature is the capability, and what the
 * page may do is bounded by the invoice itself (it pays what the invoice still owes, and nothing once it is paid).
 */

/** The path of the page under the service's origin; the token follows it. */
export const PAY_LINK_PATH = '/pay/';
/** How long a link works: a month of real time, longer than any dunning gap between two e-mails. */
export const PAY_LINK_LIFETIME_MS = 30 * 24 * 60 * 60 * 1000;

export interface PayLinkClaims {
  accountId: number;
  invoiceId: number;
  /** When the link stops working, an instant of the wall clock (docs/architecture.md, "Two clocks"). */
  expiresAt: string;
}

const signatureOf = (secrets: SecretBox, payload: string) =>
  Buffer.from(secrets.fingerprint(`pay-link:${payload}`), 'hex').toString('base64url');

/** The token of a link: the claims in base64url JSON, a dot, and their keyed signature. */
export function signPayLinkToken(secrets: SecretBox, claims: PayLinkClaims): string {
  const payload = Buffer.from(
    JSON.stringify({ a: claims.accountId, i: claims.invoiceId, e: Date.parse(claims.expiresAt) / 1000 }),
  ).toString('base64url');
  return `${payload}.${signatureOf(secrets, payload)}`;
}

/**
 * What a token claims, when its signature holds and it has not expired at `now`; undefined otherwise, so that a
 * forged, altered or old link reads as a page that does not exist.
 */
export function readPayLinkToken(secrets: SecretBox, token: string, now: Date): PayLinkClaims | undefined {
  const [payload, signature, extra] = token.split('.');
  if (!payload || !signature || extra !== undefined || token.length > 200) return undefined;
  const expected = Buffer.from(signatureOf(secrets, payload));
  const given = Buffer.from(signature);
  if (expected.length !== given.length || !crypto.timingSafeEqual(expected, given)) return undefined;
  let claims: unknown;
  try {
    claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  const { a, i, e } = (claims ?? {}) as Record<string, unknown>;
  if (!Number.isSafeInteger(a) || !Number.isSafeInteger(i) || !Number.isSafeInteger(e)) return undefined;
  if ((e as number) * 1000 <= now.getTime()) return undefined;
  return {
    accountId: a as number,
    invoiceId: i as number,
    expiresAt: new Date((e as number) * 1000).toISOString(),
  };
}

/**
 * The link to pay one of the account's invoices, valid for PAY_LINK_LIFETIME_MS of wall time from now; undefined
 * when the context knows no origin to put in front of it (PUBLIC_URL unset, outside a loopback request).
 */
export function invoicePayLink(ctx: ServiceContext, invoiceId: number): string | undefined {
  if (!ctx.publicUrl) return undefined;
  const expiresAt = new Date(
    Math.floor((ctx.wallClock.now().getTime() + PAY_LINK_LIFETIME_MS) / 1000) * 1000,
  ).toISOString();
  const token = signPayLinkToken(ctx.secrets, { accountId: ctx.account.id, invoiceId, expiresAt });
  return `${ctx.publicUrl}${PAY_LINK_PATH}${token}`;
}
