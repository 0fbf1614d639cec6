import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { dialTargetOf } from '../../src/transport/authority.ts';

describe('dial target of an authority (SPEC §3.4, ADR 0018)', () => {
  it('dials the authority host and sends it as SNI by default', () => {
    assert.deepEqual(dialTargetOf({ host: 'Team-A.Example', port: 6309 }), {
      key: 'team-a.example:6309',
      dialHost: 'team-a.example',
      port: 6309,
      serverName: 'team-a.example',
    });
  });

  it('keeps SNI and authority when only the dial address is overridden', () => {
    const target = dialTargetOf({ host: 'team-a.example', port: 6309, dialHost: '10.0.0.7' });
    assert.equal(target.serverName, 'team-a.example');
    assert.equal(target.dialHost, '10.0.0.7');
    assert.equal(target.key, 'team-a.example:6309 via=10.0.0.7');
  });

  it('uses the configured serverName as SNI and pools it apart', () => {
    const plain = dialTargetOf({ host: 'hub.example', port: 6309 });
    const named = dialTargetOf({ host: 'hub.example', port: 6309, serverName: 'team-b.example' });
    assert.equal(named.serverName, 'team-b.example');
    assert.notEqual(named.key, plain.key);
  });

  it('strips the brackets of an IPv6 authority host', () => {
    const target = dialTargetOf({ host: '[::1]', port: 7000 });
    assert.equal(target.dialHost, '::1');
    assert.equal(target.key, '[::1]:7000');
  });

  it('refuses a port outside 1..65535 and an empty host', () => {
    assert.throws(() => dialTargetOf({ host: 'a.example', port: 0 }), RangeError);
    assert.throws(() => dialTargetOf({ host: 'a.example', port: 65_536 }), RangeError);
    assert.throws(() => dialTargetOf({ host: ' ', port: 6309 }), TypeError);
  });
});
