import { describe, expect, it } from 'vitest';
import { readCredentials } from './auth.ts';

const basic = (text: string) => `Basic ${Buffer.from(text).toString('base64')}`;

describe('readCredentials', () => {
  it('reads Basic as account id and key, and Bearer as a key', () => {
    expect(readCredentials(basic('42:bk_abc'))).toEqual({ accountId: 42, apiKey: 'bk_abc' });
    expect(readCredentials(basic('42:a:b'))).toEqual({ accountId: 42, apiKey: 'a:b' });
    expect(readCredentials('Bearer bk_abc')).toEqual({ apiKey: 'bk_abc' });
    expect(readCredentials('bearer  bk_abc ')).toEqual({ apiKey: 'bk_abc' });
  });

  it.each([
    undefined,
    '',
    'Bearer',
    'Bearer ',
    'Digest abc',
    basic('name:key'),
    basic('42'),
    basic('42:'),
    basic('1234567890123456:key'),
    `Bearer ${'k'.repeat(300)}`,
  ])('refuses %j', (header) => {
    expect(readCredentials(header)).toBeUndefined();
  });
});
