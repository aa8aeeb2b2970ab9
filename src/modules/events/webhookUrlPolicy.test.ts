import { describe, expect, it } from 'vitest';
import { addressAllowed, parseWebhookUrlPolicy, webhookUrlProblem } from './webhookUrlPolicy.ts';

// The URL policy of webhook endpoints (docs/design/webhooks.md, "Endpoint addresses"): pure functions, the same on
// both dialects.
const strict = parseWebhookUrlPolicy({});

const REFUSED_ADDRESSES: [string, string][] = [
  ['10.0.0.1', 'private 10/8'],
  ['10.255.255.255', 'private 10/8, last'],
  ['172.16.0.1', 'private 172.16/12, first'],
  ['172.31.255.254', 'private 172.16/12, last'],
  ['192.168.1.1', 'private 192.168/16'],
  ['127.0.0.1', 'loopback'],
  ['127.8.9.10', 'loopback 127/8'],
  ['169.254.169.254', 'link-local (cloud metadata)'],
  ['0.0.0.0', 'unspecified'],
  ['100.64.0.1', 'carrier-grade NAT, first'],
  ['100.127.255.254', 'carrier-grade NAT, last'],
  ['224.0.0.1', 'multicast'],
  ['255.255.255.255', 'broadcast'],
  ['::1', 'IPv6 loopback'],
  ['::', 'IPv6 unspecified'],
  ['fc00::1', 'unique local fc00::/7'],
  ['fd12:3456::1', 'unique local fd00::/8'],
  ['fe80::1', 'IPv6 link-local'],
  ['febf::1', 'IPv6 link-local, last /10'],
  ['ff02::1', 'IPv6 multicast'],
  ['::ffff:127.0.0.1', 'IPv4-mapped loopback'],
  ['::ffff:7f00:1', 'IPv4-mapped loopback, hex'],
  ['::ffff:10.1.2.3', 'IPv4-mapped private'],
  ['::ffff:169.254.169.254', 'IPv4-mapped link-local'],
  ['::ffff:100.64.0.1', 'IPv4-mapped CGNAT'],
  ['168.63.129.16', "Azure's wire server (metadata)"],
  ['::ffff:168.63.129.16', "IPv4-mapped Azure's wire server"],
  ['::ffff:a83f:8110', "IPv4-mapped Azure's wire server, hex"],
  ['192.88.99.0', '6to4 relay anycast, first'],
  ['192.88.99.1', '6to4 relay anycast'],
  ['192.88.99.255', '6to4 relay anycast, last'],
  ['::ffff:192.88.99.1', 'IPv4-mapped 6to4 relay anycast'],
  ['64:ff9b:1::', 'local-use NAT64, first'],
  ['64:ff9b:1:ffff:ffff:ffff:ffff:ffff', 'local-use NAT64, last'],
];

const PUBLIC_ADDRESSES = [
  '93.184.215.14',
  '8.8.8.8',
  '172.15.255.255',
  '172.32.0.1',
  '100.63.255.255',
  '100.128.0.1',
  '192.169.0.1',
  '11.0.0.1',
  '2606:4700::1111',
  '::ffff:8.8.8.8',
  '168.63.129.15',
  '168.63.129.17',
  '192.88.98.255',
  '192.88.100.0',
];

describe('addressAllowed', () => {
  it.each(REFUSED_ADDRESSES)('refuses %s (%s) by default', (ip) => {
    expect(addressAllowed(ip, strict)).toBe(false);
  });

  it.each(PUBLIC_ADDRESSES)('lets the public address %s through', (ip) => {
    expect(addressAllowed(ip, strict)).toBe(true);
  });

  it('refuses what is not an IP address', () => {
    for (const text of ['', 'localhost', 'example.com', '999.1.1.1', '10.0.0.1/8']) {
      expect(addressAllowed(text, strict), text).toBe(false);
    }
  });

  it('lets listed private addresses and ranges through, and nothing else of those ranges', () => {
    const policy = parseWebhookUrlPolicy({ allowedPrivateHosts: '127.0.0.1, 10.20.0.0/16,fd00::/8' });
    expect(policy.allowedPrivateHosts).toEqual(['127.0.0.1', '10.20.0.0/16', 'fd00::/8']);
    expect(addressAllowed('127.0.0.1', policy)).toBe(true);
    expect(addressAllowed('::ffff:127.0.0.1', policy)).toBe(true);
    expect(addressAllowed('127.0.0.2', policy)).toBe(false);
    expect(addressAllowed('10.20.30.40', policy)).toBe(true);
    expect(addressAllowed('10.21.0.1', policy)).toBe(false);
    expect(addressAllowed('fd00::5', policy)).toBe(true);
    expect(addressAllowed('fc00::5', policy)).toBe(false);
    expect(addressAllowed('::1', policy)).toBe(false);
  });

  it('takes the list already split, as the configuration holds it', () => {
    const policy = parseWebhookUrlPolicy({ allowedPrivateHosts: ['::1', '192.168.0.0/24'] });
    expect(addressAllowed('::1', policy)).toBe(true);
    expect(addressAllowed('192.168.0.77', policy)).toBe(true);
    expect(addressAllowed('192.168.1.77', policy)).toBe(false);
  });

  it.each(['localhost', '10.0.0.0/33', '10.0.0.0/', '10.0.0.0/8/1', 'fd00::/129', '1.2.3', '10.0.0.0/x'])(
    'refuses the configuration entry %s, naming the variable',
    (entry) => {
      expect(() => parseWebhookUrlPolicy({ allowedPrivateHosts: entry })).toThrow(
        /^WEBHOOK_ALLOWED_PRIVATE_HOSTS/,
      );
    },
  );
});

describe('webhookUrlProblem', () => {
  it('accepts a public https URL with a port, path and query', () => {
    expect(
      webhookUrlProblem('https://hooks.example.com:8443/billing?source=openbill', strict),
    ).toBeUndefined();
    expect(webhookUrlProblem('https://93.184.215.14/hook', strict)).toBeUndefined();
    expect(webhookUrlProblem('https://[2606:4700::1111]/hook', strict)).toBeUndefined();
  });

  it('refuses http unless the policy allows it', () => {
    expect(webhookUrlProblem('http://hooks.example.com/', strict)).toBe(
      'must be an https URL (http is allowed only when the service runs with WEBHOOK_ALLOW_HTTP=true)',
    );
    const allowHttp = parseWebhookUrlPolicy({ allowHttp: true });
    expect(webhookUrlProblem('http://hooks.example.com/', allowHttp)).toBeUndefined();
    expect(webhookUrlProblem('ftp://hooks.example.com/', allowHttp)).toBe('must be an http or https URL');
  });

  it.each([
    'https://10.0.0.1/hook',
    'https://127.0.0.1:8443/hook',
    'https://169.254.169.254/latest/meta-data',
    'https://[::1]/hook',
    'https://[fe80::1]/hook',
    'https://[::ffff:127.0.0.1]/hook',
    'https://[::ffff:a00:1]/hook',
    'https://0x7f.1/hook',
    'https://2130706433/hook',
    'https://0/hook',
    'https://100.64.1.1/hook',
    'https://168.63.129.16/machine?comp=goalstate',
    'https://[::ffff:168.63.129.16]/machine',
    'https://192.88.99.1/hook',
    'https://[64:ff9b:1::808:808]/hook',
  ])('refuses the internal address in %s', (url) => {
    expect(webhookUrlProblem(url, strict)).toMatch(/private, loopback, link-local or reserved/);
  });

  it.each(['https://localhost/hook', 'https://LOCALHOST./hook', 'https://api.localhost:8443/'])(
    'refuses %s, which is loopback by definition',
    (url) => {
      expect(webhookUrlProblem(url, strict)).toBe('must not point at localhost');
    },
  );

  it('lets an allowed private address through, and localhost when loopback is allowed', () => {
    const policy = parseWebhookUrlPolicy({ allowHttp: true, allowedPrivateHosts: '127.0.0.1' });
    expect(webhookUrlProblem('http://127.0.0.1:4321/hook', policy)).toBeUndefined();
    expect(webhookUrlProblem('http://localhost:4321/hook', policy)).toBeUndefined();
    expect(webhookUrlProblem('http://10.0.0.1/hook', policy)).toMatch(/private/);
  });

  it('refuses credentials in the URL', () => {
    expect(webhookUrlProblem('https://user:secret@hooks.example.com/', strict)).toMatch(/credentials/);
    expect(webhookUrlProblem('https://user@hooks.example.com/', strict)).toMatch(/credentials/);
  });

  it('refuses text that is not an absolute URL', () => {
    for (const url of ['hooks.example.com/path', '/relative', 'https://', 'not a url']) {
      expect(webhookUrlProblem(url, strict), url).toBeDefined();
    }
  });

  it('allows 2048 characters and no more', () => {
    const base = 'https://hooks.example.com/';
    expect(webhookUrlProblem(base + 'a'.repeat(2048 - base.length), strict)).toBeUndefined();
    expect(webhookUrlProblem(base + 'a'.repeat(2049 - base.length), strict)).toBe(
      'must be at most 2048 characters',
    );
  });
});

describe('addresses that carry or stand for another', () => {
  const policy = parseWebhookUrlPolicy({});
  it.each([
    ['64:ff9b::a9fe:a9fe', false], // NAT64 of 169.254.169.254
    ['64:ff9b::127.0.0.1', false],
    ['64:ff9b:1::a00:1', false], // local-use NAT64 of 10.0.0.1
    // Local-use NAT64 may use a /48 to /96 prefix (RFC 6052 §2.2), so its last 32 bits need not be the address it
    // reaches: a public-looking tail is refused too, and so is the whole /48.
    ['64:ff9b:1::808:808', false],
    ['64:ff9b:1:a9fe:a9:fe00::', false], // 169.254.169.254 behind a /48 prefix
    ['64:ff9b:1:7f00:1::808:808', false],
    ['64:ff9b::a83f:8110', false], // NAT64 of Azure's wire server
    ['64:ff9b::168.63.129.16', false],
    ['2002:a83f:8110::1', false], // 6to4 of Azure's wire server
    ['::168.63.129.16', false], // IPv4-compatible
    ['::ffff:0:a83f:8110', false], // IPv4-translated
    ['64:ff9b::c058:6301', false], // NAT64 of the 6to4 relay anycast
    ['2002:c058:6301::1', false], // 6to4 of the 6to4 relay anycast
    ['2002:7f00:1::', false], // 6to4 of 127.0.0.1
    ['2002:c0a8:101::1', false], // 6to4 of 192.168.1.1
    ['::127.0.0.1', false], // IPv4-compatible
    ['::ffff:0:7f00:1', false], // IPv4-translated
    ['2001:0:4136:e378::1', false], // Teredo
    ['fec0::1', false],
    ['100::1', false],
    ['2001:db8::1', false],
    ['198.18.0.1', false],
    ['192.0.2.10', false],
    ['203.0.113.7', false],
    ['64:ff9b::8.8.8.8', true], // NAT64 of a public address
    ['2002:808:808::1', true], // 6to4 of a public address
    ['2606:4700::1111', true],
  ])('%s allowed: %s', (ip, allowed) => {
    expect(addressAllowed(ip, policy)).toBe(allowed);
  });

  it('lets an allowed private address through its NAT64 form', () => {
    const local = parseWebhookUrlPolicy({ allowedPrivateHosts: '127.0.0.1' });
    expect(addressAllowed('64:ff9b::7f00:1', local)).toBe(true);
    expect(addressAllowed('64:ff9b::a00:1', local)).toBe(false);
  });

  it('lets the local-use NAT64 prefix through only when it is listed itself', () => {
    expect(
      addressAllowed('64:ff9b:1::7f00:1', parseWebhookUrlPolicy({ allowedPrivateHosts: '127.0.0.1' })),
    ).toBe(false);
    const translator = parseWebhookUrlPolicy({ allowedPrivateHosts: '64:ff9b:1::/48' });
    expect(addressAllowed('64:ff9b:1::808:808', translator)).toBe(true);
    expect(addressAllowed('fd00::1', translator)).toBe(false);
  });
});
