/**
 * Common passwords that the spec's rule (at least 6 characters, a letter and a number) would accept, refused when
 * a contact chooses a password in the portal (docs/design/portal.md, "Sign-in"; NIST 800-63B asks for a check
 * against common passwords). Source: the entries of SecLists' 10-million-password-list-top-1000.txt
 * (github.com/danielmiessler/SecLists, Passwords/Common-Credentials; MIT licence) that the rule accepts, lowercased;
 * the other 940 entries (all letters, all digits, or shorter) the rule already refuses.
 */
const COMMON_PASSWORDS = new Set([
  'abc123',
  '1qaz2wsx',
  '123qwe',
  'trustno1',
  '1234qwer',
  'q1w2e3r4t5',
  'qwer1234',
  'ncc1701',
  'q1w2e3r4',
  '1q2w3e4r',
  'thx1138',
  'jordan23',
  '123abc',
  '123456a',
  'abcd1234',
  'password1',
  'qwerty123',
  'secret123',
  '1q2w3e4r5t',
  'q1w2e3',
  '123456q',
  'bond007',
  '12345a',
  'rush2112',
  'red123',
  'passw0rd',
  '1qazxsw2',
  'blink182',
  '12qwaszx',
  'asdf1234',
  'lol123',
  '1232323q',
  'eagle1',
  'hello1',
  '12345qwert',
  'qwe123',
  'lucky1',
  'a12345',
  '123456789a',
  'a123456',
  'qwerty12',
  'zaq12wsx',
  'money1',
  'rasdzv3',
  '123123a',
  'test123',
  'ncc1701d',
  'hello123',
  'happy1',
  'michael1',
  '1q2w3e',
  'qqq111',
  'a1b2c3',
  '123456789q',
  'zxc123',
  '12345q',
  'qwerty1',
  'asd123',
]);

/** Whether a password is one of the most common ones, whatever its case. */
export function isCommonPassword(password: string): boolean {
  return COMMON_PASSWORDS.has(password.toLowerCase());
}
