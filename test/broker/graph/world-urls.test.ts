import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { WorldDirectory } from '../../../src/broker/graph/world-urls.ts';
import type { WorldInfo } from '../../../src/broker/worlds/gateway.ts';

const worlds: WorldInfo[] = [
  { name: 'team-a', address: 'team-a.team-a.svc.cluster.local:6309', source: 'config' },
  { name: 'root', address: '10.0.0.7:7000', publicUrl: 'mark://knowledge.example.org:6310', source: 'discovery' },
];
const directory = new WorldDirectory(worlds);

describe('world URL translation (Go broker translateSeedURLs)', () => {
  it('rewrites a dial address, with or without the default port, to the world name', () => {
    assert.equal(directory.translate('mark://team-a.team-a.svc.cluster.local/docs/a.md'), 'mark://team-a/docs/a.md');
    assert.equal(
      directory.translate('mark://TEAM-A.team-a.svc.cluster.local:6309/docs/a.md'),
      'mark://team-a/docs/a.md',
    );
    assert.equal(directory.translate('mark://10.0.0.7:7000'), 'mark://root/');
  });

  it('rewrites a world public URL to its name', () => {
    assert.equal(directory.translate('mark://knowledge.example.org:6310/index.md'), 'mark://root/index.md');
  });

  it('keeps unknown hosts, in identity form', () => {
    assert.equal(directory.translate('mark://Other.example:6309/x.md'), 'mark://other.example/x.md');
    assert.equal(directory.translate('mark://10.0.0.7:7001/x.md'), 'mark://10.0.0.7:7001/x.md');
  });

  it('matches whole authorities only, never a prefix of a longer host', () => {
    assert.equal(
      directory.translate('mark://team-a.team-a.svc.cluster.local.evil/x.md'),
      'mark://team-a.team-a.svc.cluster.local.evil/x.md',
    );
  });

  it('leaves non-mark URLs alone', () => {
    assert.equal(
      directory.translate('https://team-a.team-a.svc.cluster.local/x'),
      'https://team-a.team-a.svc.cluster.local/x',
    );
  });
});

describe('world URL location', () => {
  it('locates a configured world and decodes the path', () => {
    assert.deepEqual(directory.locate('mark://team-a/docs/c%20d.md'), { world: 'team-a', path: '/docs/c d.md' });
    assert.deepEqual(directory.locate('mark://team-a.team-a.svc.cluster.local/x.md'), {
      world: 'team-a',
      path: '/x.md',
    });
  });

  it('does not locate unknown worlds, worlds with a port, or other schemes', () => {
    assert.equal(directory.locate('mark://team-z/x.md'), null);
    assert.equal(directory.locate('mark://team-a:7000/x.md'), null);
    assert.equal(directory.locate('https://team-a/x.md'), null);
  });
});
