import { describe, expect, it } from 'vitest';
import { addressKey, isLoopbackAddress } from './clientAddress.ts';
import { isPlainHost } from './origin.ts';

describe('addressKey', () => {
  it('keeps an IPv4 address, and one mapped into IPv6, as the IPv4 address', () => {
    expect(addressKey('203.0.113.7')).toBe('203.0.113.7');
    expect(addressKey('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(addressKey('::ffff:cb00:7107')).toBe('203.0.113.7');
  });

  it('keys every IPv6 address of a /64 alike, however it is written', () => {
    const key = addressKey('2001:db8:1:2::1');
    expect(key).toBe('2001:db8:1:2::/64');
    expect(addressKey('2001:0db8:0001:0002:ffff:ffff:ffff:ffff')).toBe(key);
    expect(addressKey('2001:DB8:1:2:a:b:c:d')).toBe(key);
    expect(addressKey('2001:db8:1:3::1')).not.toBe(key);
    expect(addressKey('::1')).toBe('0:0:0:0::/64');
    expect(addressKey('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
  });
});

describe('isLoopbackAddress', () => {
  it('knows 127.0.0.0/8 and ::1, mapped or not, and nothing else', () => {
    for (const ip of ['127.0.0.1', '127.8.9.10', '::1', '::ffff:127.0.0.1', '0:0:0:0:0:0:0:1']) {
      expect(isLoopbackAddress(ip), ip).toBe(true);
    }
    for (const ip of ['192.0.2.2', '::', '::2', 'fd00::1', '::ffff:192.0.2.2', 'localhost', '', undefined]) {
      expect(isLoopbackAddress(ip), String(ip)).toBe(false);
    }
  });
});

describe('isPlainHost', () => {
  it('takes a name or address with an optional port, and nothing else', () => {
    for (const host of [
      'localhost',
      'localhost:8080',
      'billing.example.com',
      'billing_app:80',
      '127.0.0.1:1',
      '[::1]:8080',
      '[fd00::2]',
    ]) {
      expect(isPlainHost(host), host).toBe(true);
    }
    for (const host of [
      'localhost:1@evil.example',
      'evil.example/path',
      'evil.example?x',
      'evil.example#x',
      'a b',
      'evil.example:99999',
      'evil.example:',
      '[::1',
      '[not-v6]',
      '-evil.example',
      `${'a'.repeat(300)}.example`,
    ]) {
      expect(isPlainHost(host), host).toBe(false);
    }
  });
});
