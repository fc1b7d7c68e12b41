import { describe, expect, it } from 'vitest';
import { type AddressClass, classifyAddress, isAllowedAddress } from './classifyAddress.ts';

const CLASSES: Record<AddressClass, readonly string[]> = {
  public: ['8.8.8.8', '1.1.1.1', '100.63.255.255', '100.128.0.0', '2606:4700::1111', '2a00:1450::1'],
  private: ['10.1.2.3', '172.16.0.1', '172.31.255.255', '192.168.1.1', 'fd00::1', 'fc00::1'],
  loopback: ['127.0.0.1', '127.255.255.254', '::1'],
  'link-local': ['169.254.169.254', 'fe80::1', 'fe80::1%eth0'],
  unspecified: ['0.0.0.0', '0.1.2.3', '::'],
  broadcast: ['255.255.255.255'],
  multicast: ['224.0.0.1', '239.255.255.250', 'ff02::1'],
  reserved: ['240.0.0.1', '192.0.0.8', '192.88.99.1', '100::1', 'fec0::1', '4000::1'],
  cgnat: ['100.64.0.1', '100.127.255.255'],
  documentation: ['192.0.2.1', '198.51.100.7', '203.0.113.9', '2001:db8::1', '3fff::1'],
  benchmark: ['198.18.0.1', '198.19.255.255', '2001:2::1'],
  teredo: ['2001::1', '2001:0:4136:e378:8000:63bf:3fff:fdd2'],
  'not-an-address': ['localhost', '127.1', ''],
};

describe('classifyAddress', () => {
  for (const [cls, ips] of Object.entries(CLASSES)) {
    it(`classes ${ips.join(', ')} as ${cls}`, () => {
      for (const ip of ips) expect(classifyAddress(ip), ip).toBe(cls);
    });
  }

  it('classes IPv4 inside IPv6 by the IPv4 address the packets go to', () => {
    const embedded: [string, AddressClass][] = [
      // IPv4-mapped
      ['::ffff:127.0.0.1', 'loopback'],
      ['::ffff:7f00:1', 'loopback'],
      ['::ffff:a9fe:a9fe', 'link-local'],
      ['::ffff:8.8.8.8', 'public'],
      // IPv4-compatible (deprecated)
      ['::10.0.0.1', 'private'],
      ['::a9fe:a9fe', 'link-local'],
      ['::8.8.8.8', 'public'],
      // SIIT, IPv4-translated
      ['::ffff:0:7f00:1', 'loopback'],
      ['::ffff:0:c0a8:101', 'private'],
      // NAT64, well-known prefix
      ['64:ff9b::7f00:1', 'loopback'],
      ['64:ff9b::10.0.0.1', 'private'],
      ['64:ff9b::a9fe:a9fe', 'link-local'],
      ['64:ff9b::c000:201', 'documentation'],
      ['64:ff9b::808:808', 'public'],
      // NAT64, local-use prefix: into the translator's own network, so never public
      ['64:ff9b:1::7f00:1', 'loopback'],
      ['64:ff9b:1::a00:1', 'private'],
      ['64:ff9b:1::808:808', 'reserved'],
      ['64:ff9b:1:808:8:800::', 'unspecified'],
      // 6to4
      ['2002:7f00:1::1', 'loopback'],
      ['2002:c0a8:101::1', 'private'],
      ['2002:6440:1::1', 'cgnat'],
      ['2002:808:808::1', 'public'],
    ];
    for (const [ip, cls] of embedded) expect(classifyAddress(ip), ip).toBe(cls);
  });
});

describe('isAllowedAddress', () => {
  it('allows public addresses; private, loopback and link-local only when the operator allows private', () => {
    for (const ip of ['8.8.8.8', '2606:4700::1111', '64:ff9b::808:808']) {
      expect(isAllowedAddress(ip, { allowPrivate: false }), ip).toBe(true);
    }
    for (const ip of ['10.0.0.1', '127.0.0.1', '::1', '169.254.169.254', 'fd00::1', '::ffff:127.0.0.1']) {
      expect(isAllowedAddress(ip, { allowPrivate: false }), ip).toBe(false);
      expect(isAllowedAddress(ip, { allowPrivate: true }), ip).toBe(true);
    }
  });

  it('refuses every other class whatever the operator allows', () => {
    for (const ip of [
      '0.0.0.0',
      '::',
      '255.255.255.255',
      '224.0.0.1',
      'ff02::1',
      '240.0.0.1',
      '100.64.0.1',
      '192.0.2.1',
      '2001:db8::1',
      '198.18.0.1',
      '2001::1',
      '64:ff9b::6440:1',
      'localhost',
    ]) {
      expect(isAllowedAddress(ip, { allowPrivate: true }), ip).toBe(false);
    }
  });
});
