import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createSecretBox } from '../../src/security/secretBox.ts';
import { readPayLinkToken, signPayLinkToken } from '../../src/modules/collections/index.ts';

const secrets = createSecretBox(crypto.randomBytes(32));
const claims = { accountId: 7, invoiceId: 42, expiresAt: '2027-01-31T10:00:00.000Z' };
const before = new Date('2027-01-31T09:59:59Z');

describe('pay links (docs/hosted-pages.md, "Paying one invoice")', () => {
  it('reads back what was signed until it expires', () => {
    const token = signPayLinkToken(secrets, claims);
    expect(readPayLinkToken(secrets, token, before)).toEqual(claims);
    expect(readPayLinkToken(secrets, token, new Date(claims.expiresAt))).toBeUndefined();
  });

  it('refuses a token signed with another key, altered, or malformed', () => {
    const token = signPayLinkToken(secrets, claims);
    const [payload, signature] = token.split('.') as [string, string];
    const other = signPayLinkToken(createSecretBox(crypto.randomBytes(32)), claims);
    const otherInvoice = Buffer.from(JSON.stringify({ a: 7, i: 43, e: 1801389600 })).toString('base64url');
    for (const bad of [
      other,
      `${otherInvoice}.${signature}`,
      `${payload}.${signature.slice(1)}`,
      `${payload}.${signature}.x`,
      payload,
      '',
      `${'a'.repeat(300)}.${signature}`,
    ]) {
      expect(readPayLinkToken(secrets, bad, before), bad).toBeUndefined();
    }
  });
});
