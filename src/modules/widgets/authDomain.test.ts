import { describe, expect, it } from 'vitest';
import { normaliseAuthDomain } from './authDomain.ts';

describe('normaliseAuthDomain', () => {
  it.each([
    ['https://shop.example.com', 'https://shop.example.com'],
    ['https://Shop.Example.com/', 'https://shop.example.com'],
    ['shop.example.com', 'https://shop.example.com'],
    ['https://shop.example.com:8443', 'https://shop.example.com:8443'],
    ['https://shop.example.com:443', 'https://shop.example.com'],
    ['http://localhost:3000', 'http://localhost:3000'],
    ['http://127.0.0.1:8080', 'http://127.0.0.1:8080'],
    ['http://[::1]:8080', 'http://[::1]:8080'],
  ])('normalises %s to %s', (input, origin) => {
    expect(normaliseAuthDomain(input)).toEqual({ origin });
  });

  it.each([
    ['', 'origin'],
    ['*.example.com', 'wildcards'],
    ['https://*', 'wildcards'],
    ['https://shop.example.com/pay', 'path'],
    ['https://shop.example.com/?a=1', 'punctuation'],
    ['http://shop.example.com', 'https'],
    ['ftp://shop.example.com', 'https'],
    ['https://shop.example.com; script-src https:', 'punctuation'],
    ['https://a.example.com,https://b.example.com', 'punctuation'],
    ["https://shop.example.com'", 'punctuation'],
    ['"https://shop.example.com"', 'punctuation'],
    [' https://shop.example.com', 'punctuation'],
    ['https://shop.example.com\r\nSet-Cookie: a=b', 'punctuation'],
    ['https://shop.example.com"><script>', 'punctuation'],
    ['https://user@shop.example.com', 'punctuation'],
    ['https://bücher.example', 'punycode'],
    ['https://', 'valid'],
    ['x'.repeat(300), '255'],
  ])('refuses %j', (input, words) => {
    const read = normaliseAuthDomain(input);
    expect('refused' in read && read.refused).toContain(words);
  });
});
