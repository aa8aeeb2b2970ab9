import crypto from 'node:crypto';
import { promisify } from 'node:util';

const scrypt = promisify(crypto.scrypt) as (
  password: string,
  salt: Buffer,
  keylen: number,
  options: crypto.ScryptOptions,
) => Promise<Buffer>;

// scrypt with N=2^15, r=8, p=1: about 32 MiB and tens of milliseconds per hash on a small machine, so a contact
// edit stays quick while guessing stays costly. The parameters travel with each hash, so they can grow later.
const N = 32768;
/**
 * The portal's cost, OWASP's for scrypt (N=2^17, r=8, p=1: 128 MiB; docs/design/portal.md, "Sign-in"): a contact's
 * password is rehashed at it when the contact signs in or changes it in the portal.
 */
const STRONG_N = 131072;
const R = 8;
const P = 1;
const KEY_LENGTH = 32;
/** Above what the strongest hash needs (128 × N × r bytes). */
const MAX_MEMORY = 256 * 1024 * 1024;

/** `standard` for passwords the API sets; `strong` where a person waits once for it (portal sign-in). */
export type PasswordCost = 'standard' | 'strong';

export async function hashPassword(password: string, cost: PasswordCost = 'standard'): Promise<string> {
  const n = cost === 'strong' ? STRONG_N : N;
  const salt = crypto.randomBytes(16);
  const hash = await scrypt(password, salt, KEY_LENGTH, { N: n, r: R, p: P, maxmem: MAX_MEMORY });
  return ['scrypt', n, R, P, salt.toString('base64'), hash.toString('base64')].join('$');
}

/** Whether a stored hash is weaker than the portal's cost (made before it, or by the API), so worth rehashing. */
export function needsStrongerHash(stored: string): boolean {
  const [scheme, n, r, p] = stored.split('$');
  return scheme !== 'scrypt' || Number(n) < STRONG_N || Number(r) < R || Number(p) < P;
}

let dummy: Promise<string> | undefined;

/**
 * A hash of no one's password, at the portal's cost: a sign-in for a username that does not exist verifies
 * against it, so it takes as long as one that does (docs/design/portal.md, "Sign-in").
 */
export function dummyPasswordHash(): Promise<string> {
  dummy ??= hashPassword(crypto.randomBytes(16).toString('base64'), 'strong');
  return dummy;
}

/** The scrypt cost N a stored hash was made at; 0 for a hash this service cannot read. */
export function hashCost(stored: string): number {
  const [scheme, n] = stored.split('$');
  return scheme === 'scrypt' && /^\d{1,7}$/.test(n ?? '') ? Number(n) : 0;
}

const dummies = new Map<number, Promise<string>>();
/** A hash of no one's password at cost `n`, made once per process. */
function dummyHashAt(n: number): Promise<string> {
  let dummy = dummies.get(n);
  if (!dummy) {
    const salt = crypto.randomBytes(16);
    dummy = scrypt(crypto.randomBytes(16).toString('base64'), salt, KEY_LENGTH, {
      N: n,
      r: R,
      p: P,
      maxmem: MAX_MEMORY,
    }).then((hash) => ['scrypt', n, R, P, salt.toString('base64'), hash.toString('base64')].join('$'));
    dummies.set(n, dummy);
  }
  return dummy;
}

/**
 * verifyPassword, then, for a hash cheaper than the portal's cost, the difference spent on verifications against
 * dummy hashes (scrypt's time grows with N, so 2^15 + 2^16 + 2^15 take as long as 2^17): every check takes about
 * as long as one at the portal's cost, so a contact whose hash the API made at N=2^15 cannot be told by its timing
 * from a missing user checked against the N=2^17 dummy (docs/design/portal.md, "Sign-in").
 */
export async function verifyPasswordAtPortalCost(password: string, stored: string): Promise<boolean> {
  const matches = await verifyPassword(password, stored);
  for (const n of topUpCosts(hashCost(stored))) await verifyPassword(password, await dummyHashAt(n));
  return matches;
}

/**
 * The costs of the dummy checks that bring a check at cost `storedN` up to one at the portal's: powers of two,
 * largest first, below 2^10 left out (too small to tell apart).
 */
export function topUpCosts(storedN: number): number[] {
  const costs: number[] = [];
  let remaining = STRONG_N - Math.min(storedN, STRONG_N);
  while (remaining >= 1024) {
    const n = 2 ** Math.floor(Math.log2(remaining));
    costs.push(n);
    remaining -= n;
  }
  return costs;
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !hash) return false;
  if (![n, r, p].every((part) => /^\d{1,7}$/.test(part ?? ''))) return false;
  const expected = Buffer.from(hash, 'base64');
  const actual = await scrypt(password, Buffer.from(salt, 'base64'), expected.length, {
    N: Number(n),
    r: Number(r),
    p: Number(p),
    maxmem: MAX_MEMORY,
  });
  return crypto.timingSafeEqual(actual, expected);
}

const LETTERS = 'abcdefghijkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ';
const DIGITS = '23456789';

/** A 12-character password of letters and digits (no look-alikes such as l, 1, O, 0), with at least one of each. */
export function generatePassword(): string {
  const alphabet = LETTERS + DIGITS;
  const pick = (from: string) => from[crypto.randomInt(from.length)]!;
  const chars = [pick(LETTERS), pick(DIGITS), ...Array.from({ length: 10 }, () => pick(alphabet))];
  for (let i = chars.length - 1; i > 0; i--) {
    const j = crypto.randomInt(i + 1);
    [chars[i], chars[j]] = [chars[j]!, chars[i]!];
  }
  return chars.join('');
}

/** Spec, Limits: a contact password has at least 6 characters, at least one letter and one number. */
export function passwordPolicyProblem(password: string): string | undefined {
  if (password.length < 6) return 'must have at least 6 characters';
  if (!/\p{L}/u.test(password)) return 'must contain a letter';
  if (!/\p{Nd}/u.test(password)) return 'must contain a number';
  return undefined;
}

/** docs/design/portal.md, "Sign-in": a password set in the portal has at most 128 characters. */
export const PORTAL_PASSWORD_MAX = 128;
