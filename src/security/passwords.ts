import crypto from 'node:crypto';
import { promisify } from 'node:util';

const scrypt = promisify(crypto.scrypt) as (
  password: string,
  salt: Buffer,
  keylen: number,
  options: crypto.ScryptOptions,
) => Promise<Buffer>;

/**
 * The portal's cost by default, OWASP's for scrypt (N=2^17, r=8, p=1: 128 MiB; docs/design/portal.md, "Sign-in"): a
 * contact's password is rehashed at it when the contact signs in or changes it in the portal. The API's hashes cost
 * a quarter of it (2^15: about 32 MiB and tens of milliseconds on a small machine), so a contact edit stays quick
 * while guessing stays costly. The parameters travel with each hash, so they can grow later.
 */
export const PASSWORD_COST_LOG2 = 17;
/** PASSWORD_COST's range (docs/operations.md): 2^12 is 4 MiB, for tests; 2^18 is 256 MiB. */
export const PASSWORD_COST_LOG2_MIN = 12;
export const PASSWORD_COST_LOG2_MAX = 18;
const R = 8;
const P = 1;
const KEY_LENGTH = 32;
/** Above what the strongest hash needs (128 × N × r bytes). */
const MAX_MEMORY = 2 * 128 * R * 2 ** PASSWORD_COST_LOG2_MAX;

/** `standard` for passwords the API sets; `strong` where a person waits once for it (portal sign-in). */
export type PasswordCost = 'standard' | 'strong';

/**
 * A service's password hashing at its configured cost (PASSWORD_COST; ServiceContext.passwordHashing): the portal's
 * N and the API's, a quarter of it.
 */
export interface PasswordHashing {
  hash(password: string, cost?: PasswordCost): Promise<string>;
  /** Whether a stored hash is weaker than the portal's cost (made before it, or by the API), so worth rehashing. */
  needsStrongerHash(stored: string): boolean;
  /**
   * A hash of no one's password, at the portal's cost: a sign-in for a username that does not exist verifies
   * against it, so it takes as long as one that does (docs/design/portal.md, "Sign-in").
   */
  dummyHash(): Promise<string>;
  /**
   * verifyPassword, then, for a hash cheaper than the portal's cost, the difference spent on verifications against
   * dummy hashes (scrypt's time grows with N, so 2^15 + 2^16 + 2^15 take as long as 2^17): every check takes about
   * as long as one at the portal's cost, so a contact whose hash the API made at N=2^15 cannot be told by its timing
   * from a missing user checked against the N=2^17 dummy (docs/design/portal.md, "Sign-in").
   */
  verifyAtPortalCost(password: string, stored: string): Promise<boolean>;
}

/** Password hashing whose portal hashes have N = 2^`costLog2`. */
export function passwordHashing(costLog2: number = PASSWORD_COST_LOG2): PasswordHashing {
  const strongN = 2 ** costLog2;
  const standardN = 2 ** (costLog2 - 2);
  return {
    hash: (password, cost = 'standard') => hashAt(password, cost === 'strong' ? strongN : standardN),
    needsStrongerHash(stored) {
      const [scheme, n, r, p] = stored.split('$');
      return scheme !== 'scrypt' || Number(n) < strongN || Number(r) < R || Number(p) < P;
    },
    dummyHash: () => dummyHashAt(strongN),
    async verifyAtPortalCost(password, stored) {
      const matches = await verifyPassword(password, stored);
      for (const n of topUpCosts(hashCost(stored), strongN))
        await verifyPassword(password, await dummyHashAt(n));
      return matches;
    },
  };
}

/** The hashing of a service with PASSWORD_COST unset, and of a context made without one. */
export const DEFAULT_PASSWORD_HASHING = passwordHashing();

export function passwordHashingOf(holder: { passwordHashing?: PasswordHashing }): PasswordHashing {
  return holder.passwordHashing ?? DEFAULT_PASSWORD_HASHING;
}

async function hashAt(password: string, n: number): Promise<string> {
  const salt = crypto.randomBytes(16);
  const hash = await scrypt(password, salt, KEY_LENGTH, { N: n, r: R, p: P, maxmem: MAX_MEMORY });
  return ['scrypt', n, R, P, salt.toString('base64'), hash.toString('base64')].join('$');
}

/** The scrypt cost N a stored hash was made at; 0 for a hash this service cannot read. */
export function hashCost(stored: string): number {
  const [scheme, n] = stored.split('$');
  return scheme === 'scrypt' && /^\d{1,7}$/.test(n ?? '') ? Number(n) : 0;
}

/** Hashes of no one's password, one per cost N, made once per process: they hold nothing of any service. */
const dummies = new Map<number, Promise<string>>();
function dummyHashAt(n: number): Promise<string> {
  let dummy = dummies.get(n);
  if (!dummy) {
    dummy = hashAt(crypto.randomBytes(16).toString('base64'), n);
    dummies.set(n, dummy);
  }
  return dummy;
}

/**
 * The costs of the dummy checks that bring a check at cost `storedN` up to one at the portal's `strongN`: powers of
 * two, largest first, below 2^10 left out (too small to tell apart).
 */
export function topUpCosts(storedN: number, strongN: number): number[] {
  const costs: number[] = [];
  let remaining = strongN - Math.min(storedN, strongN);
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
