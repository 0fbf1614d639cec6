import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { WorldInfo } from '../../../src/broker/worlds/gateway.ts';
import { canonicalWorldUrl, worldForAuthority, worldInArgument } from '../../../src/broker/worlds/world-aliases.ts';

const worlds: WorldInfo[] = [
  { name: 'root', address: 'root.kb.svc.cluster.local:6309', publicUrl: 'mark://docs.example.com', source: 'config' },
  { name: 'team-a', address: 'localhost:6401', publicUrl: 'mark://Team-A.example.com:7001', source: 'config' },
  { name: 'twin-1', address: '10.0.0.9:6309', source: 'config' },
  { name: 'twin-2', address: '10.0.0.9:6309', source: 'config' },
];

describe('world aliases: every address the broker shows names one world', () => {
  it('maps the name, the public URL authority and the dial address to the logical name', () => {
    assert.equal(worldForAuthority('team-a', worlds), 'team-a');
    assert.equal(worldForAuthority('LOCALHOST:6401', worlds), 'team-a');
    assert.equal(worldForAuthority('team-a.example.com:7001', worlds), 'team-a');
    // A public URL without a port and a dial address on the default port both mean 6309.
    assert.equal(worldForAuthority('docs.example.com:6309', worlds), 'root');
    assert.equal(worldForAuthority('root.kb.svc.cluster.local', worlds), 'root');
  });

  it('does not guess: unknown and ambiguous addresses stay unmapped', () => {
    assert.equal(worldForAuthority('localhost:6402', worlds), null);
    assert.equal(worldForAuthority('10.0.0.9:6309', worlds), null);
  });

  it('rewrites only the authority and keeps path, query and fragment for the strict parser', () => {
    assert.equal(canonicalWorldUrl('mark://localhost:6401/docs/a.md#intro', worlds), 'mark://team-a/docs/a.md#intro');
    assert.equal(canonicalWorldUrl('mark://docs.example.com/x?y=1', worlds), 'mark://root/x?y=1');
    assert.equal(canonicalWorldUrl('mark://user@localhost:6401/x', worlds), 'mark://user@localhost:6401/x');
    assert.equal(canonicalWorldUrl('https://localhost:6401/x', worlds), 'https://localhost:6401/x');
  });

  it('reads a world argument in every form mark_worlds shows, and nothing that names a document', () => {
    const named = (raw: string) => worldInArgument(raw, worlds)?.name;
    for (const form of ['team-a', 'TEAM-A', 'mark://team-a', 'mark://team-a/', 'MARK://Team-A/'])
      assert.equal(named(form), 'team-a', form);
    // The internal address and the public URL, with and without mark:// and the default port.
    for (const form of ['localhost:6401', 'mark://localhost:6401', 'mark://team-a.example.com:7001/'])
      assert.equal(named(form), 'team-a', form);
    for (const form of ['docs.example.com', 'mark://docs.example.com:6309/', 'mark://root.kb.svc.cluster.local'])
      assert.equal(named(form), 'root', form);
    // Not a world: a document or folder, userinfo, another scheme, an empty authority, an ambiguous address.
    for (const form of [
      'mark://team-a/docs/',
      'mark://team-a/x.md',
      'mark://team-a?x',
      'mark://user@team-a/',
      'https://team-a/',
      'mark:///',
      '',
      'team-a/',
      '10.0.0.9:6309',
      'nowhere',
    ])
      assert.equal(named(form), undefined, form);
  });
});
