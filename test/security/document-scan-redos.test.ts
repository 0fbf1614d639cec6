/**
 * Threat: one document stalls the broker for every caller. The knowledge
 * layer runs regular expressions over document bodies synchronously, on the
 * event loop: the secret scan at every mark_publish and mark_append and on
 * every document mark_doctor reads, the world descriptor's list items at
 * every mark_worlds, the policy table whenever the hub's policy changes. A
 * backtracking pattern that tries O(n) start positions and scans O(n) from
 * each takes quadratic time on a line crafted for it.
 *
 * The attacks below on the URL and JWT shapes, the list item and the policy
 * row succeeded before the fix (checked by running this file against it:
 * each child was killed at the bound, with no answer); of the lines built
 * from the other shapes' prefixes, 'xoxb-' repeated was killed too, through
 * the URL shape, and the rest check that those shapes stay linear. Measured
 * before the fix with Node 24 on this machine, on 80,000-character lines: the
 * password-in-a-URL shape 5.3 s ('a.' repeated), the JWT shape 4.1 s ('eyJ-'
 * repeated), a world.md list item 4.9 s (spaces, text, then a mid-line CR),
 * the policy's delimiter row 8.1 s (spaces, then a non-space); a reviewer saw
 * one 160 KB mark_publish hold the event loop for 11.4 s. Each line here is
 * as long as a body may be (1 MiB, src/protocol/limits.ts), where the
 * quadratic scans need ten minutes and more.
 *
 * Not a timing threshold: each scan runs in a child process that is killed
 * only if it has not finished after 60 s. A linear scan of 1 MiB finishes in
 * well under a second however loaded the machine is; a quadratic one cannot
 * finish at all within the bound. Each child also reports what it found, so
 * the test checks that the real secret or item after the crafted run is
 * still found.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { maxBodyBytes } from '../../src/protocol/limits.ts';
import { runInChild } from '../support/run-in-child.ts';

const knowledge = new URL('../../src/broker/knowledge/index.ts', import.meta.url);

/** Runs `body` in a child killed after 60 s, with the knowledge module as `k` (test/support/run-in-child.ts). */
const scanInChild = (body: string) => runInChild({ k: knowledge }, body);

/** The findings of the no-secrets rule on one line: the crafted run, then ` ${secret}`. */
const secretScan = (unit: string, secret: string) =>
  scanInChild(`const policy = k.parsePolicy('# P\\n\\nRules.\\n\\n| rule | setting | severity |\\n|---|---|---|\\n| no-secrets | | block |\\n');
const body = fill(${JSON.stringify(unit)}) + ' ' + ${JSON.stringify(secret)};
return k.checkSubmission(policy, { body, metadata: {} }, 'document').map((v) => v.problem);`);

describe('document scans take time linear in the document (each in a child killed after 60 s)', () => {
  it('the password-in-a-URL shape, on a line of word boundaries without ://', async () => {
    assert.deepEqual(await secretScan('a.', 'postgres://u:p@h'), ['line 1 looks like a password in a URL']);
    assert.deepEqual(await secretScan('a-', 'https://alice:s3cret@db.example'), [
      'line 1 looks like a password in a URL',
    ]);
  });

  it('the JWT shape, on a line of dash-joined eyJ starts without a dot', async () => {
    const jwt = `eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.${'s'.repeat(20)}`;
    assert.deepEqual(await secretScan('eyJ-', jwt), ['line 1 looks like a JSON Web Token']);
  });

  it('the password-in-a-URL shape with an empty user, on a line of :// without a scheme or an @', async () => {
    assert.deepEqual(await secretScan('://:a', 'redis://:s3cret@redis'), ['line 1 looks like a password in a URL']);
    assert.deepEqual(await secretScan('a://:', 'redis://:s3cret@redis'), ['line 1 looks like a password in a URL']);
  });

  for (const unit of [
    '-----BEGIN A ',
    'AKIA',
    'AIza',
    'ghp_',
    '-github_pat_',
    'xoxb-',
    'sk_live_',
    'Bearer ',
    'sk-',
    'sk-proj-',
    'sk-ant-api03-',
    'glpat-',
    'npm_',
    'hooks.slack.com/services/T0/B',
    'GOCSPX-',
    'AccountKey=',
    'Authorization: Basic ',
    'Authorization:',
  ])
    it(`every credential shape, on a line of ${JSON.stringify(unit)} repeated`, async () => {
      const found = (await secretScan(unit, '-----BEGIN RSA PRIVATE KEY-----')) as string[];
      assert.ok(found.includes('line 1 looks like a private key block'), JSON.stringify(found));
    });

  it("a world descriptor's list item, on spaces then text then a carriage return", async () => {
    const owners =
      await scanInChild(`const item = '- ' + fill(' ', ${maxBodyBytes / 2}) + fill('x', ${maxBodyBytes / 2 + 1024}) + '\\r y';
return k.parseWorldDescriptor('# T\\n\\nA world.\\n\\n## Owners\\n\\n' + item + '\\n- bob@example.com\\n').owners.at(-1);`);
    assert.equal(owners, 'bob@example.com');
  });

  it("the policy's delimiter row, on spaces then a non-space", async () => {
    const error = await scanInChild(`const row = '|' + fill(' ') + 'x';
try { k.parsePolicy('# P\\n\\n| rule | setting | severity |\\n' + row + '\\n| no-secrets | | block |\\n'); return 'parsed'; }
catch (e) { return e.message; }`);
    assert.equal(error, 'line 4: the policy table needs a |---|---|---| line under its header');
  });
});
