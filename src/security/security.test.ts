import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import crypto from 'node:crypto';
import {
  DEFAULT_PASSWORD_HASHING,
  generatePassword,
  hashCost,
  passwordHashing,
  passwordPolicyProblem,
  topUpCosts,
  verifyPassword,
} from './passwords.ts';
import { createSecretBox } from './secretBox.ts';

describe('passwords', () => {
  it('hashes with scrypt and a salt, and verifies only the right password', async () => {
    const hashPassword = (password: string) => DEFAULT_PASSWORD_HASHING.hash(password);
    const hash = await hashPassword('secret123');
    expect(hash).toMatch(/^scrypt\$32768\$8\$1\$/);
    expect(hash).not.toContain('secret123');
    expect(await hashPassword('secret123')).not.toBe(hash);
    expect(await verifyPassword('secret123', hash)).toBe(true);
    expect(await verifyPassword('secret124', hash)).toBe(false);
    expect(await verifyPassword('secret123', 'plain')).toBe(false);
  });

  it.each([
    ['abc12', 'must have at least 6 characters'],
    ['abcdefg', 'must contain a number'],
    ['1234567', 'must contain a letter'],
    ['abc123', undefined],
    ['Пароль1', undefined],
  ])('judges %j: %s', (password, problem) => {
    expect(passwordPolicyProblem(password)).toBe(problem);
  });

  it('generates passwords that always meet the policy', () => {
    for (let i = 0; i < 500; i++) {
      const password = generatePassword();
      expect(password).toHaveLength(12);
      expect(passwordPolicyProblem(password)).toBeUndefined();
    }
  });
});

describe("checking a password at the portal's cost", () => {
  it('tops a cheaper hash up to exactly the N=2^17 a missing user is checked against', () => {
    // The API's hashes: 2^15, then 2^16 + 2^15 of dummies: 32768 + 65536 + 32768 = 131072.
    expect(topUpCosts(2 ** 15, 2 ** 17)).toEqual([2 ** 16, 2 ** 15]);
    expect(topUpCosts(2 ** 17, 2 ** 17)).toEqual([]);
    expect(topUpCosts(2 ** 20, 2 ** 17)).toEqual([]);
    fc.assert(
      fc.property(fc.integer({ min: 10, max: 18 }), fc.integer({ min: 10, max: 18 }), (stored, strong) => {
        const total = 2 ** stored + topUpCosts(2 ** stored, 2 ** strong).reduce((sum, n) => sum + n, 0);
        expect(total).toBe(Math.max(2 ** stored, 2 ** strong));
      }),
    );
  });

  it('hashes at the configured cost: the portal at 2^cost, the API at a quarter, rehashing what is weaker', async () => {
    const hashing = passwordHashing(12);
    const api = await hashing.hash('secret123');
    const portal = await hashing.hash('secret123', 'strong');
    expect([hashCost(api), hashCost(portal), hashCost(await hashing.dummyHash())]).toEqual([
      1024, 4096, 4096,
    ]);
    expect([hashing.needsStrongerHash(api), hashing.needsStrongerHash(portal)]).toEqual([true, false]);
    // A hash made at the default cost is stronger than this service's, and a service at the default rehashes this one.
    expect(hashing.needsStrongerHash(await DEFAULT_PASSWORD_HASHING.hash('secret123'))).toBe(false);
    expect(DEFAULT_PASSWORD_HASHING.needsStrongerHash(portal)).toBe(true);
    expect(await hashing.verifyAtPortalCost('secret123', api)).toBe(true);
    expect(await hashing.verifyAtPortalCost('secret124', portal)).toBe(false);
  });
});

describe('secret box', () => {
  const box = createSecretBox(crypto.randomBytes(32));

  it('opens what it sealed, for any text', () => {
    fc.assert(fc.property(fc.string({ unit: 'grapheme' }), (text) => box.open(box.seal(text)) === text));
  });

  it('never shows the text, and seals the same text differently each time', () => {
    const sealed = box.seal('Password: hunter2');
    expect(sealed).not.toContain('hunter2');
    expect(box.seal('Password: hunter2')).not.toBe(sealed);
  });

  it('refuses tampered text and a different key', () => {
    const sealed = box.seal('hello');
    // Change one character of the payload for another: the one it was would leave it untampered.
    const tampered = sealed.slice(0, -2) + (sealed.at(-2) === 'A' ? 'B' : 'A') + sealed.slice(-1);
    expect(() => box.open(tampered)).toThrow();
    expect(() => createSecretBox(crypto.randomBytes(32)).open(sealed)).toThrow();
  });

  it('fingerprints text with its key: stable for one key, different under another, not a plain hash', () => {
    const text = 'POST /v1/paymentmethods/creditcard {"Number":"4111111111111111"}';
    expect(box.fingerprint(text)).toBe(box.fingerprint(text));
    expect(box.fingerprint(text)).toMatch(/^[0-9a-f]{64}$/);
    expect(createSecretBox(crypto.randomBytes(32)).fingerprint(text)).not.toBe(box.fingerprint(text));
    expect(box.fingerprint(text)).not.toBe(crypto.createHash('sha256').update(text).digest('hex'));
  });
});
