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
const R = 8;
const P = 1;
const KEY_LENGTH = 32;
const MAX_MEMORY = 64 * 1024 * 1024;

export async function hashPassword(password: string): Promise<string> {
  const salt = crypto.randomBytes(16);
  const hash = await scrypt(password, salt, KEY_LENGTH, { N, r: R, p: P, maxmem: MAX_MEMORY });
  return ['scrypt', N, R, P, salt.toString('base64'), hash.toString('base64')].join('$');
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !hash) return false;
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
