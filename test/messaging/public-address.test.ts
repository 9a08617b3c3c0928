import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { isPublicAddress, resolvePublic } from '../../src/shared/public-address.js';

/* The address policy behind check_external_images (issue 17, SSRF): what counts as public. */

const strict = { allowLoopback: false };
const tests = { allowLoopback: true };

describe('isPublicAddress', () => {
  test('refuses loopback, private, link-local, CGNAT, documentation, multicast and reserved ranges', () => {
    for (const address of [
      '127.0.0.1',
      '127.255.0.9',
      '0.0.0.0',
      '10.1.2.3',
      '100.64.0.1',
      '169.254.169.254',
      '172.16.0.1',
      '172.31.255.255',
      '192.168.1.1',
      '192.0.2.7',
      '198.18.0.1',
      '203.0.113.9',
      '224.0.0.1',
      '255.255.255.255',
      '::',
      '::1',
      'fe80::1',
      'fd00::1',
      'fc00::2',
      'ff02::1',
      '2001:db8::1',
      '::ffff:127.0.0.1',
      '::ffff:7f00:1',
      '::ffff:169.254.169.254',
      '64:ff9b::a9fe:a9fe',
      '2002:c0a8:0101::1',
      'not an address',
    ]) {
      assert.equal(isPublicAddress(address, strict), false, address);
    }
  });

  test('accepts public unicast, IPv4 and IPv6', () => {
    for (const address of ['93.184.216.34', '8.8.8.8', '172.32.0.1', '2606:4700::1111', '::ffff:8.8.8.8', '2002:0808:0808::1']) {
      assert.equal(isPublicAddress(address, strict), true, address);
    }
  });

  test('IMAGE_CHECK_ALLOW_LOOPBACK lets loopback through and nothing else', () => {
    for (const address of ['127.0.0.1', '::1', '::ffff:127.0.0.1']) assert.equal(isPublicAddress(address, tests), true, address);
    for (const address of ['0.0.0.0', '10.0.0.1', '169.254.169.254', 'fd00::1']) assert.equal(isPublicAddress(address, tests), false, address);
  });

  test('resolvePublic: a name is refused when any of its addresses is not public; literals in brackets', async () => {
    await assert.rejects(resolvePublic('localhost', strict));
    await assert.rejects(resolvePublic('[::1]', strict));
    assert.deepEqual(await resolvePublic('[::1]', tests), { address: '::1', family: 6 });
    assert.deepEqual(await resolvePublic('8.8.8.8', strict), { address: '8.8.8.8', family: 4 });
  });
});
