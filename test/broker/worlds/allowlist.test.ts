import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { worldAllows, type AllowList } from '../../../src/broker/worlds/index.ts';
import type { Identity } from '../../../src/broker/identity.ts';

const person = (email: string, groups: string[] = [], emailVerified = true): Identity => ({
  subject: `sub-${email}`,
  email,
  emailVerified,
  groups,
  issuedBy: 'broker',
});

const allow = (lists: Partial<AllowList>): AllowList => ({ domains: [], groups: [], emails: [], ...lists });

describe('writer allowlist (Go broker worldAllows)', () => {
  // Rows: allowlist, identity, expected. One row per branch of the rule.
  const table: Array<[string, AllowList, Identity, boolean]> = [
    ['all lists empty: any verified identity', allow({}), person('anyone@else.org'), true],
    ['email listed', allow({ emails: ['ann@example.com'], domains: ['other.org'] }), person('ann@example.com'), true],
    ['email listed, compared lower-case', allow({ emails: ['ann@example.com'] }), person('Ann@Example.com'), true],
    ['only emails set, email not listed', allow({ emails: ['ann@example.com'] }), person('bob@example.com'), false],
    ['domain matches, no groups required', allow({ domains: ['example.com'] }), person('bob@example.com'), true],
    ['domain differs', allow({ domains: ['example.com'] }), person('bob@example.org'), false],
    [
      'domain is the part after the last @',
      allow({ domains: ['example.com'] }),
      person('"a@example.com"@evil.org'),
      false,
    ],
    ['subdomain is not the domain', allow({ domains: ['example.com'] }), person('bob@sub.example.com'), false],
    ['group matches, no domain required', allow({ groups: ['writers'] }), person('bob@any.org', ['Writers']), true],
    ['group missing', allow({ groups: ['writers'] }), person('bob@any.org', ['readers']), false],
    ['no groups at all', allow({ groups: ['writers'] }), person('bob@any.org'), false],
    [
      'domain and group both match',
      allow({ domains: ['example.com'], groups: ['writers'] }),
      person('bob@example.com', ['writers']),
      true,
    ],
    [
      'domain matches, group does not',
      allow({ domains: ['example.com'], groups: ['writers'] }),
      person('bob@example.com', ['readers']),
      false,
    ],
    [
      'group matches, domain does not',
      allow({ domains: ['example.com'], groups: ['writers'] }),
      person('bob@example.org', ['writers']),
      false,
    ],
    [
      'email carve-out beats domain and group',
      allow({ domains: ['example.com'], groups: ['writers'], emails: ['eve@other.org'] }),
      person('eve@other.org'),
      true,
    ],
    ['unverified email, open world', allow({}), person('ann@example.com', [], false), false],
    [
      'unverified email, even when listed',
      allow({ emails: ['ann@example.com'] }),
      person('ann@example.com', [], false),
      false,
    ],
    ['empty email, open world', allow({}), person(''), false],
  ];

  for (const [rule, lists, identity, expected] of table) {
    it(`${expected ? 'allows' : 'denies'}: ${rule}`, () => {
      assert.equal(worldAllows(lists, identity), expected);
    });
  }
});
