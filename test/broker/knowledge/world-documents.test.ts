import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  checkFailureReport,
  createKnowledge,
  parseWorldDescriptor,
  WorldDocumentCache,
  type WorldDescriptor,
} from '../../../src/broker/knowledge/index.ts';
import { descriptorLimits } from '../../../src/broker/knowledge/world-descriptor.ts';
import { runTool } from '../../../src/broker/mcp/run-tool.ts';
import { markWorlds } from '../../../src/broker/mcp/tools/worlds.ts';
import { toolContext } from '../mcp/helpers/context.ts';
import type { WorldGateway } from '../../../src/broker/worlds/gateway.ts';
import { startTestStack, type TestStack } from '../mcp/helpers/fixture-gateway.ts';

const policyBody = (rows: string) => `# Policy\n\nRules.\n\n| rule | setting | severity |\n|---|---|---|\n${rows}\n`;

describe('world documents over real QUIC worlds (world.md, the hub standard)', () => {
  let stack: TestStack;
  let clock = 0;
  before(async () => {
    stack = await startTestStack(['root', 'team-a']);
  });
  after(() => stack.close());

  it('re-reads conditionally once per interval and sees a new etag', async () => {
    const cache = new WorldDocumentCache({ gateway: stack.gateway, now: () => clock, revalidateMs: 1000 });
    await stack.seed('team-a', '/world.md', '# Team A\n\nFirst summary.\n');
    const first = await cache.get('team-a', '/world.md');
    assert.equal(first.kind, 'present');
    const sentBefore = stack.gateway.sent.length;
    await cache.get('team-a', '/world.md');
    assert.equal(stack.gateway.sent.length, sentBefore, 'inside the interval nothing is sent');
    clock += 1000;
    const same = await cache.get('team-a', '/world.md');
    assert.equal(stack.gateway.sent.length, sentBefore + 1);
    assert.deepEqual(same, first, 'not-modified keeps the copy held');
    await stack.seed('team-a', '/world.md', '# Team A\n\nSecond summary.\n');
    clock += 1000;
    const changed = await cache.get('team-a', '/world.md');
    assert.ok(changed.kind === 'present' && first.kind === 'present');
    assert.notEqual(changed.document.etag, first.document.etag);
    assert.match(changed.document.body, /Second summary/);
  });

  it('does not bring back an old copy from a check that was under way when the document changed', async () => {
    // The world answers the check before the change; its answer is held until the change is made and
    // the copy forgotten, as when a publish (or a world's change notice) lands while a check is in flight.
    await stack.seed('team-a', '/world.md', '# Team A\n\nOld summary.\n');
    let answered!: () => void;
    const checkAnswered = new Promise<void>((resolve) => {
      answered = resolve;
    });
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let holding = true;
    const gateway: WorldGateway = Object.create(stack.gateway);
    gateway.read = async (world, call) => {
      const answer = await stack.gateway.read(world, call);
      if (holding) {
        holding = false;
        answered();
        await held;
      }
      return answer;
    };
    const cache = new WorldDocumentCache({ gateway, now: () => clock, revalidateMs: 1000 });
    const underWay = cache.get('team-a', '/world.md');
    await checkAnswered;
    await stack.seed('team-a', '/world.md', '# Team A\n\nNew summary.\n');
    cache.invalidate('team-a', '/world.md');
    const next = cache.get('team-a', '/world.md');
    release();
    const summary = (state: Awaited<typeof next>) => (state.kind === 'present' ? state.document.body : state.kind);
    assert.match(summary(await underWay), /Old summary/, 'the check under way answers what the world said then');
    assert.match(summary(await next), /New summary/, 'the next call after the change reads again');
    assert.match(summary(await cache.get('team-a', '/world.md')), /New summary/, 'and the old answer is not kept');
  });

  it("forgets every document held for one world at once (a WATCH resync), and no other world's", async () => {
    const cache = new WorldDocumentCache({ gateway: stack.gateway, now: () => clock, revalidateMs: 1000 });
    const body = async (world: string, path: string) => {
      const state = await cache.get(world, path);
      return state.kind === 'present' ? state.document.body : state.kind;
    };
    await stack.seed('team-a', '/world.md', '# Team A\n\nBefore the resync.\n');
    await stack.seed('root', '/notes/resync.md', '# Root\n\nBefore the resync.\n');
    assert.match(await body('team-a', '/world.md'), /Before/);
    assert.equal(await body('team-a', '/.well-known/demarkus/policy.md'), 'absent');
    assert.match(await body('root', '/notes/resync.md'), /Before/);
    await stack.seed('team-a', '/world.md', '# Team A\n\nAfter the resync.\n');
    await stack.seed('team-a', '/.well-known/demarkus/policy.md', policyBody('| h1-first | | block |'));
    await stack.seed('root', '/notes/resync.md', '# Root\n\nAfter the resync.\n');
    cache.invalidateWorld('team-a');
    assert.match(await body('team-a', '/world.md'), /After/);
    assert.match(await body('team-a', '/.well-known/demarkus/policy.md'), /h1-first/);
    assert.match(await body('root', '/notes/resync.md'), /Before/, "root's copy is trusted until its interval ends");
  });

  it('answers absent for a missing document and keeps the last copy when the world stops answering', async () => {
    const failures: string[] = [];
    const cache = new WorldDocumentCache({
      gateway: stack.gateway,
      now: () => clock,
      revalidateMs: 1000,
      onCheckFailed: (world, path) => failures.push(`${world}${path}`),
    });
    assert.deepEqual(await cache.get('root', '/world.md'), { kind: 'absent' });
    const held = await cache.get('team-a', '/world.md');
    await stack.worlds['team-a']!.close();
    clock += 1000;
    assert.deepEqual(await cache.get('team-a', '/world.md'), held);
    assert.deepEqual(failures, ['team-a/world.md']);
  });

  it('applies no policy, and logs why, when the hub policy cannot be read', async () => {
    const warnings: Array<Record<string, unknown>> = [];
    const knowledge = createKnowledge({
      gateway: stack.gateway,
      revalidateMs: 0,
      log: { warn: (fields) => warnings.push(fields) },
    });
    const submission = { body: 'no heading', metadata: {} };
    assert.deepEqual(await knowledge.standard.check('team-a', '/a.md', submission, 'document'), { kind: 'none' });
    await stack.seed('root', '/.well-known/demarkus/policy.md', policyBody('| h1-first | | block |'));
    const checked = await knowledge.standard.check('team-a', '/a.md', submission, 'document');
    assert.equal(checked.kind, 'checked');
    assert.deepEqual(checked.kind === 'checked' && checked.violations.map((v) => v.rule), ['h1-first']);
    assert.deepEqual(await knowledge.standard.check('root', '/.well-known/demarkus/style.md', submission, 'document'), {
      kind: 'none',
    });
    const elsewhere = await knowledge.standard.check(
      'team-a',
      '/.well-known/demarkus/style.md',
      submission,
      'document',
    );
    assert.equal(elsewhere.kind, 'checked', 'the standard is exempt on the hub only');
    await stack.seed('root', '/.well-known/demarkus/policy.md', policyBody('| h1-first | | sometimes |'));
    assert.deepEqual(await knowledge.standard.check('team-a', '/a.md', submission, 'document'), { kind: 'none' });
    await knowledge.standard.check('team-a', '/a.md', submission, 'document');
    assert.equal(warnings.length, 1, 'logged once per version of the file');
    assert.match(String(warnings[0]?.reason), /severity "sometimes"/);
  });
});

describe('world descriptors are bounded in mark_worlds', () => {
  let stack: TestStack;
  before(async () => {
    stack = await startTestStack(['team-a', 'team-b']);
  });
  after(() => stack.close());

  it('clips long text and long lists, and does not parse a world.md over 64 KiB', async () => {
    const items = Array.from({ length: 500 }, (_, i) => `- /d${i}/: folder ${i}`).join('\n');
    const long = `# ${'Team A '.repeat(100)}\n\n${'A sentence that goes on '.repeat(50)}end.\n\n## What it holds\n\n${items}\n`;
    await stack.seed('team-a', '/world.md', long);
    await stack.seed('team-b', '/world.md', `# Team B\n\n${'word '.repeat(20_000)}end.\n`);
    const knowledge = createKnowledge({ gateway: stack.gateway });
    const result = await runTool(markWorlds, {}, { ...toolContext(stack.gateway), knowledge });
    const worlds = (result.structured as { worlds: Array<{ name: string; descriptor?: WorldDescriptor }> }).worlds;
    const a = worlds.find((world) => world.name === 'team-a')!.descriptor!;
    assert.equal([...a.title].length, descriptorLimits.maxTextChars);
    assert.ok(a.title.endsWith('…') && a.summary.endsWith('…'));
    assert.equal(a.holds.length, descriptorLimits.maxItems + 1);
    assert.equal(a.holds.at(-1), `and ${500 - descriptorLimits.maxItems} more`);
    assert.equal(worlds.find((world) => world.name === 'team-b')!.descriptor, undefined);
    assert.match(result.text, /\| team-b \|[^\n]*\(world\.md not shown: 98 KiB, over the 64 KiB a descriptor may be\)/);
    assert.ok(Buffer.byteLength(result.text) < 16 * 1024, `${Buffer.byteLength(result.text)} bytes`);
  });
});

describe('read-protected world documents', () => {
  let stack: TestStack;
  before(async () => {
    stack = await startTestStack(['root', 'team-a'], {
      tokens: [
        { label: 'writer', paths: ['/**'], operations: ['publish'] },
        { label: 'reader', paths: ['/world.md', '/.well-known/demarkus/policy.md'], operations: ['read'] },
      ],
    });
    await stack.seed('team-a', '/world.md', '# Team A\n\nPrivate summary.\n');
    await stack.seed('root', '/.well-known/demarkus/policy.md', policyBody('| no-secrets | | block |'));
  });
  after(() => stack.close());

  it('show no descriptor, as a world without world.md, and refuse writes while the policy cannot be read', async () => {
    const failures: string[] = [];
    const knowledge = createKnowledge({ gateway: stack.gateway, onCheckFailed: (w, p) => failures.push(`${w}${p}`) });
    assert.deepEqual(await knowledge.descriptors.describe('team-a'), { kind: 'absent' });
    const verdict = await knowledge.standard.check('team-a', '/a.md', { body: '# A\n', metadata: {} }, 'document');
    assert.equal(verdict.kind, 'unavailable');
    assert.match(
      verdict.kind === 'unavailable' ? verdict.reason : '',
      /^the publishing policy \(mark:\/\/root\/\.well-known\/demarkus\/policy\.md\) is read-protected on the hub/,
    );
    assert.deepEqual(failures, [], 'an answer, not a failed check');
  });
});

describe('failed checks of world documents', () => {
  it('counts every failure and logs one warning per document per interval, saying how many it stands for', () => {
    let clock = 0;
    const counted: string[] = [];
    const warnings: Array<Record<string, unknown>> = [];
    const report = checkFailureReport({
      log: { warn: (fields) => warnings.push(fields) },
      count: (world, path) => counted.push(`${world}${path}`),
      intervalMs: 1000,
      now: () => clock,
    });
    report('root', '/.well-known/demarkus/policy.md', 'world root is unavailable');
    report('root', '/.well-known/demarkus/policy.md', 'world root is unavailable');
    report('team-a', '/world.md', 'world answered server-error');
    clock += 1000;
    report('root', '/.well-known/demarkus/policy.md', 'world root is unavailable');
    assert.equal(counted.length, 4);
    assert.deepEqual(
      warnings.map((w) => [w.world, w.path, w.failures]),
      [
        ['root', '/.well-known/demarkus/policy.md', 1],
        ['team-a', '/world.md', 1],
        ['root', '/.well-known/demarkus/policy.md', 2],
      ],
    );
  });
});

describe('world descriptor format', () => {
  it('reads title, first sentence, owners and holdings, ignoring other sections', () => {
    const body =
      'Team B\n======\n\nSearch and the **link graph**. We also run LOOKUP.\n\n## Owners\n\n* `team-b@example.com`\n\n## History\n\n- not an owner\n\n## What goes where\n\n1. /docs/: notes\n';
    assert.deepEqual(parseWorldDescriptor(body), {
      title: 'Team B',
      summary: 'Search and the link graph.',
      owners: ['team-b@example.com'],
      holds: ['/docs/: notes'],
    });
  });

  it('prefers metadata title and owners, and copes with a document that has neither', () => {
    assert.deepEqual(parseWorldDescriptor('# Old name\n\nSummary.\n', { title: 'New name', owners: 'a@x, b@x' }), {
      title: 'New name',
      summary: 'Summary.',
      owners: ['a@x', 'b@x'],
      holds: [],
    });
    assert.deepEqual(parseWorldDescriptor(''), { title: '', summary: '', owners: [], holds: [] });
  });

  it('reads a list item up to a stray carriage return inside its line', () => {
    const body = '# T\n\nA world.\n\n## Owners\n\n- alice@example.com\rstray\n- bob@example.com\n';
    assert.deepEqual(parseWorldDescriptor(body).owners, ['alice@example.com', 'bob@example.com']);
  });
});
