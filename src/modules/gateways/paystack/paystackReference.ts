/**
 * Our idempotency keys as Paystack transaction references, and back. Paystack takes only alphanumerics and `-`,
 * `.`, `=` in a reference (its OpenAPI document, TransactionInitialize and TransactionChargeAuthorization,
 * `reference`); our keys may hold anything (`charge_12_3`, `batch_<token>_<time>`). Letters, digits and `-` pass
 * through; every other character becomes `.` and two hex digits per UTF-8 byte (`_` is `.5f`). `.` never appears
 * alone, so the mapping is reversible and two keys never share a reference: asking again with the same key names
 * the same Paystack transaction, which is what makes a retried charge safe (docs/gateways/paystack.md, "Renewals").
 */

const PASSES = /[A-Za-z0-9-]/;

export function toReference(key: string): string {
  let reference = '';
  for (const character of key) {
    if (PASSES.test(character)) {
      reference += character;
      continue;
    }
    for (const byte of Buffer.from(character, 'utf8')) reference += `.${byte.toString(16).padStart(2, '0')}`;
  }
  return reference;
}

/** The key a reference was made from; undefined for a reference we did not make. */
export function fromReference(reference: string): string | undefined {
  if (!/^(?:[A-Za-z0-9-]|\.[0-9a-f]{2})*$/.test(reference)) return undefined;
  const bytes: number[] = [];
  for (let i = 0; i < reference.length;) {
    if (reference[i] === '.') {
      bytes.push(Number.parseInt(reference.slice(i + 1, i + 3), 16));
      i += 3;
    } else {
      bytes.push(reference.charCodeAt(i));
      i += 1;
    }
  }
  const key = Buffer.from(bytes).toString('utf8');
  return toReference(key) === reference ? key : undefined;
}

/**
 * A saved card as our token: Paystack charges a reusable authorization with its `authorization_code` and the
 * e-mail address of the customer it belongs to (charge_authorization needs both), so the token holds the two.
 * It is opaque to the rest of the service; neither is a card number.
 */
export interface PaystackCardToken {
  authorizationCode: string;
  email: string;
}

const TOKEN_PREFIX = 'paystack1.';

export function toCardToken(card: PaystackCardToken): string {
  const json = JSON.stringify({ a: card.authorizationCode, e: card.email });
  return TOKEN_PREFIX + Buffer.from(json, 'utf8').toString('base64url');
}

export function fromCardToken(token: string): PaystackCardToken | undefined {
  if (!token.startsWith(TOKEN_PREFIX)) return undefined;
  try {
    const parsed = JSON.parse(
      Buffer.from(token.slice(TOKEN_PREFIX.length), 'base64url').toString('utf8'),
    ) as {
      a?: unknown;
      e?: unknown;
    };
    if (typeof parsed.a !== 'string' || typeof parsed.e !== 'string') return undefined;
    return { authorizationCode: parsed.a, email: parsed.e };
  } catch {
    return undefined;
  }
}
