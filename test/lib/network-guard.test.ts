import { test } from 'node:test';
import assert from 'node:assert/strict';
import { blockedAddressReason } from '../../src/lib/network-guard.js';

test('refuses loopback, private, link-local, CGNAT, multicast and reserved IPv4', () => {
  const cases: [string, string][] = [
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'link-local (cloud metadata)'],
    ['100.64.0.1', 'carrier-grade NAT'],
    ['100.100.100.200', 'carrier-grade NAT'],
    ['0.0.0.0', 'unspecified'],
    ['224.0.0.251', 'multicast'],
    ['255.255.255.255', 'reserved'],
    ['198.18.0.1', 'benchmarking'],
    ['192.0.2.10', 'documentation'],
  ];
  for (const [ip, why] of cases) assert.equal(blockedAddressReason(ip), why, ip);
});

test('allows public IPv4 just outside the private ranges', () => {
  for (const ip of [
    '8.8.8.8',
    '1.1.1.1',
    '172.15.255.255',
    '172.32.0.0',
    '100.128.0.1',
    '169.253.255.255',
    '11.0.0.1',
    '93.184.216.34',
  ]) {
    assert.equal(blockedAddressReason(ip), null, ip);
  }
});

test('refuses IPv6 loopback, ULA, link-local, multicast and the metadata address', () => {
  const cases: [string, string][] = [
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fd00:ec2::254', 'unique local'],
    ['fc12::1', 'unique local'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['ff02::1', 'multicast'],
    ['2001:db8::1', 'documentation'],
  ];
  for (const [ip, why] of cases) assert.equal(blockedAddressReason(ip), why, ip);
});

test('judges IPv6 forms that embed IPv4 by the embedded address', () => {
  assert.equal(blockedAddressReason('::ffff:127.0.0.1'), 'loopback');
  assert.equal(blockedAddressReason('::ffff:7f00:1'), 'loopback');
  assert.equal(blockedAddressReason('::ffff:a9fe:a9fe'), 'link-local (cloud metadata)');
  assert.equal(blockedAddressReason('64:ff9b::10.0.0.1'), 'private');
  assert.equal(blockedAddressReason('2002:c0a8:0101::1'), 'private');
  assert.equal(blockedAddressReason('::ffff:8.8.8.8'), null);
  // IPv4-translated (::ffff:0:0:0/96), as a URL host normalises it.
  assert.equal(blockedAddressReason('::ffff:0:127.0.0.1'), 'loopback');
  assert.equal(blockedAddressReason(new URL('http://[::ffff:0:127.0.0.1]/').hostname.slice(1, -1)), 'loopback');
  assert.equal(blockedAddressReason('::ffff:0:a9fe:a9fe'), 'link-local (cloud metadata)');
  assert.equal(blockedAddressReason('::ffff:0:8.8.8.8'), null);
});

test('allows public IPv6 and refuses anything that is not an IP', () => {
  assert.equal(blockedAddressReason('2606:4700:4700::1111'), null);
  assert.equal(blockedAddressReason('2a00:1450:4001:80b::200e'), null);
  assert.equal(blockedAddressReason('localhost'), 'not an IP address');
  assert.equal(blockedAddressReason('0x7f.1'), 'not an IP address');
});
