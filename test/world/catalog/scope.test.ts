import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isUnderScope, normalizeScope } from '../../../src/world/catalog/scope.ts';

describe('LOOKUP scope (catalog.NormalizeScope, underScope)', () => {
  it('normalizes to `/` or a leading-slashed scope without trailing slashes', () => {
    assert.equal(normalizeScope(''), '/');
    assert.equal(normalizeScope('/'), '/');
    assert.equal(normalizeScope('/docs/'), '/docs');
    assert.equal(normalizeScope('docs//'), '/docs');
  });

  it('holds the scope itself and everything below it', () => {
    assert.equal(isUnderScope('/docs', '/docs'), true);
    assert.equal(isUnderScope('/docs/a.md', '/docs'), true);
    assert.equal(isUnderScope('/docs/sub/b.md', '/docs'), true);
    assert.equal(isUnderScope('/anything.md', '/'), true);
  });

  it('does not hold a sibling that merely shares the prefix', () => {
    assert.equal(isUnderScope('/other/c.md', '/oth'), false);
    assert.equal(isUnderScope('/docs2/a.md', '/docs'), false);
    assert.equal(isUnderScope('/doc', '/docs'), false);
  });
});
