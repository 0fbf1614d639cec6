import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createKnowledge } from '../../../src/broker/knowledge/index.ts';
import { DoctorRuns, nearDuplicates } from '../../../src/broker/knowledge/doctor/index.ts';
import { runTool } from '../../../src/broker/mcp/run-tool.ts';
import { markDoctor } from '../../../src/broker/mcp/tools/doctor.ts';
import { MarkClient } from '../../../src/transport/mark-client.ts';
import type { WorldGateway } from '../../../src/broker/worlds/gateway.ts';
import { startWorldFixture, testTls, type WorldFixture } from '../../world/world-fixture.ts';
import { alice, bob, toolContext } from '../mcp/helpers/context.ts';
import { FixtureGateway, startTestStack, type TestStack } from '../mcp/helpers/fixture-gateway.ts';

const near =
  'The release train leaves every Tuesday at noon. Each team merges its changes before Monday evening, ' +
  'runs the full suite on the candidate branch, and signs off in the release channel. Hotfixes skip the ' +
  'train only with approval from the on-call lead, and every hotfix gets a follow-up review within a week.';
const nearEdited = near.replace('Tuesday at noon', 'Wednesday at noon').replace('within a week', 'within two weeks');
const duplicate = '# Access policy\n\nOnly the platform team grants production access.\n';
const tags = { tags: 'category:test' };

/** Finding rows of the report's table as "kind | document | detail". */
const rows = (text: string) =>
  text
    .split('\n')
    .filter((line) => /^\| [a-z-]+ \| mark:/.test(line))
    .map((line) => line.split(' | ').slice(0, 2).join(' | ').replace(/^\| /, ''));

/** Creates `path` in `world` with its writer token; the world must answer `created`. */
async function seed(world: WorldFixture, path: string, body: string, metadata: Record<string, string> = tags) {
  const response = await world.call(
    'PUBLISH',
    path,
    { ...metadata, auth: world.tokens.writer!, 'expected-version': '0' },
    body,
  );
  assert.equal(response.status, 'created', `${path}: ${response.status}`);
}

describe('mark_doctor over real QUIC worlds', () => {
  let alpha: WorldFixture;
  let beta: WorldFixture;
  let gateway: FixtureGateway;

  before(async () => {
    [alpha, beta] = await Promise.all([
      startWorldFixture({
        tokens: [
          { label: 'writer', paths: ['/**'], operations: ['publish'] },
          { label: 'reader', paths: ['/private/**'], operations: ['read'] },
        ],
      }),
      startWorldFixture(),
    ]);
    gateway = new FixtureGateway(
      [
        { name: 'alpha', fixture: alpha, writers: ['alice@example.com'] },
        { name: 'beta', fixture: beta, writers: ['alice@example.com'] },
      ],
      new MarkClient({ ca: (await testTls()).cert, maxAttempts: 2 }),
    );
    await seed(
      alpha,
      '/index.md',
      '# Alpha\n\nThe alpha world.\n\n- [Guide](guide.md)\n- [Dup](dup-a.md)\n- [Near](near-a.md)\n- [Gone](missing.md)\n- [Beta](mark://beta/index.md)\n',
    );
    await seed(
      alpha,
      '/guide.md',
      '# Guide\n\nHow we work here.\n\nSee [untagged](untagged.md) and [the other train](mark://beta/near-b.md).\n\n' +
        // LIST never shows a dot directory or a `versions` directory (Mark SPEC LIST "Excluded"), so the
        // doctor cannot tell whether these exist: not broken. The versions one was called broken before,
        // though a Go world serves it (ours refuses such a path since 2026-12-07, docs/decisions.md, so
        // it is not seeded here): the listing shows no `/notes`, as it hides everything beneath.
        'Agents read [the manifest](.well-known/agent-manifest.md) and [the state](mark://beta/.demarkus/state.md), ' +
        'and [the draft](notes/versions/draft.md).\n',
    );
    await seed(alpha, '/.well-known/agent-manifest.md', '# Manifest\n\nWhat agents may do here.\n');
    await seed(alpha, '/dup-a.md', duplicate);
    await seed(alpha, '/near-a.md', `# Release train\n\n${near}\n`);
    await seed(alpha, '/orphan.md', '# Orphan\n\nNobody links to this page about the release train.\n');
    await seed(alpha, '/untagged.md', '# Untagged\n\nA page without tags.\n', {});
    await seed(alpha, '/private/secret.md', duplicate);
    await seed(
      beta,
      '/index.md',
      '# Beta\n\nThe beta world.\n\n- [Dup](dup-b.md)\n- [Alpha](mark://alpha/index.md)\n- [Gone](mark://alpha/gone.md)\n',
    );
    await seed(beta, '/dup-b.md', duplicate);
    await seed(beta, '/near-b.md', `# Release train\n\n${nearEdited}\n`);
  });
  after(async () => {
    await gateway.close();
    await Promise.all([alpha.close(), beta.close()]);
  });

  it('finds every seeded problem and nothing else (precision and recall 1)', async () => {
    const result = await runTool(markDoctor, {}, toolContext(gateway));
    assert.equal(result.isError, undefined, result.text);
    assert.match(result.text, /^status: ok\nworlds: 2\ndocuments: 9\nfindings: 6\n/);
    assert.deepEqual(rows(result.text), [
      'exact-duplicate | mark://alpha/dup-a.md, mark://beta/dup-b.md',
      'near-duplicate | mark://alpha/near-a.md, mark://beta/near-b.md',
      'untagged | mark://alpha/untagged.md',
      'broken-link | mark://alpha/index.md',
      'broken-link | mark://beta/index.md',
      'orphan | mark://alpha/orphan.md',
    ]);
    assert.match(result.text, /links to mark:\/\/alpha\/missing\.md, which does not exist/);
    assert.match(result.text, /links to mark:\/\/alpha\/gone\.md, which does not exist/);
  });

  it('never shows a document the caller cannot read', async () => {
    const result = await runTool(markDoctor, {}, toolContext(gateway));
    assert.doesNotMatch(result.text, /private/);
  });

  it('reports policy breaks with the hub policy, and filters, pages and validates', async () => {
    await seed(
      alpha,
      '/.well-known/demarkus/policy.md',
      '# Policy\n\nRules.\n\n| rule | setting | severity |\n|---|---|---|\n| required-tags | category | warn |\n',
    );
    const knowledge = createKnowledge({ gateway, hub: 'alpha' });
    const ctx = { ...toolContext(gateway), knowledge };
    const policy = await runTool(markDoctor, { kinds: 'policy' }, ctx);
    assert.deepEqual(rows(policy.text), ['policy | mark://alpha/untagged.md']);
    assert.match(policy.text, /required-tags \\\(warn\\\): no "category:" tag/);

    const first = await runTool(markDoctor, { limit: 4 }, ctx);
    assert.match(first.text, /\nfindings: 7\nshown: 1-4\nnext-cursor: [A-Za-z0-9_-]{16}\.4\n/);
    const cursor = /^next-cursor: (\S+)$/m.exec(first.text)![1]!;
    const second = await runTool(markDoctor, { limit: 4, cursor }, ctx);
    assert.match(second.text, /\nshown: 5-7\n/);
    assert.doesNotMatch(second.text, /next-cursor/);
    assert.equal(rows(first.text).length + rows(second.text).length, 7);

    const betaOnly = await runTool(markDoctor, { worlds: 'beta' }, ctx);
    assert.match(
      betaOnly.text,
      /\nworlds: 1\ndocuments: 3\nfindings: 0\n/,
      'links into, and orphans of, unread worlds are not judged',
    );
    // World names compare lower-case, as in every mark:// URL; before, BETA was an unknown world here.
    assert.equal((await runTool(markDoctor, { worlds: 'BETA' }, ctx)).text, betaOnly.text);
    // Every form mark_worlds shows, as URL arguments take them; before, each was an unknown world.
    const betaAddress = gateway.get('beta')!.address;
    for (const form of ['mark://beta/', 'mark://beta', `mark://${betaAddress}`, betaAddress])
      assert.equal((await runTool(markDoctor, { worlds: form }, ctx)).text, betaOnly.text, form);
    const both = await runTool(markDoctor, { worlds: 'alpha,beta' }, ctx);
    assert.equal((await runTool(markDoctor, { worlds: `mark://alpha/, ${betaAddress}, beta` }, ctx)).text, both.text);
    assert.deepEqual(await runTool(markDoctor, { worlds: 'gamma' }, ctx), {
      isError: true,
      text: 'broker: unknown world "gamma" (not in broker config; known worlds: alpha, beta)',
    });
    assert.equal((await runTool(markDoctor, { kinds: 'typos' }, ctx)).isError, true);
    assert.equal((await runTool(markDoctor, { cursor: 'x' }, ctx)).isError, true);
    assert.equal((await runTool(markDoctor, { similarity: 0.2 }, ctx)).isError, true);
  });

  it('serves later pages from the report the first page made: no reads, the same report after a change', async () => {
    const knowledge = createKnowledge({ gateway, hub: 'alpha' });
    const ctx = { ...toolContext(gateway), knowledge };
    const first = await runTool(markDoctor, { limit: 2 }, ctx);
    const total = /\nfindings: (\d+)\n/.exec(first.text)![1];
    await seed(alpha, '/late-untagged.md', '# Late\n\nAdded between pages.\n', {});
    const sentBefore = gateway.sent.length;
    const pages = [first];
    for (let cursor = /^next-cursor: (\S+)$/m.exec(first.text)?.[1]; cursor !== undefined; ) {
      const page = await runTool(markDoctor, { limit: 2, cursor }, ctx);
      assert.notEqual(page.isError, true, page.text);
      pages.push(page);
      cursor = /^next-cursor: (\S+)$/m.exec(page.text)?.[1];
    }
    assert.equal(gateway.sent.length, sentBefore, 'later pages send nothing to the worlds');
    assert.ok(pages.length > 2);
    assert.ok(pages.every((page) => page.text.includes(`\nfindings: ${total}\n`)));
    const shown = pages.flatMap((page) => rows(page.text));
    assert.equal(shown.length, Number(total));
    assert.equal(new Set(shown).size, shown.length, 'no finding twice, none skipped');
    assert.ok(!shown.some((row) => row.includes('late-untagged')), 'the change shows in the next report');
    assert.ok(rows((await runTool(markDoctor, {}, ctx)).text).includes('untagged | mark://alpha/late-untagged.md'));

    const cursor = /^next-cursor: (\S+)$/m.exec(first.text)![1]!;
    const startOver = /^this report is no longer held .*: call mark_doctor again without cursor to start over$/;
    for (const [who, args] of [
      [bob, { limit: 2, cursor }],
      [alice, { limit: 2, cursor, kinds: 'orphan' }],
      [alice, { limit: 2, cursor: `${'A'.repeat(16)}.2` }],
    ] as const) {
      const refused = await runTool(markDoctor, args, { ...toolContext(gateway, { identity: who }), knowledge });
      assert.equal(refused.isError, true);
      assert.match(refused.text, startOver, "another caller's, other arguments', or an unknown report");
    }
    const otherReplica = { ...toolContext(gateway), knowledge: createKnowledge({ gateway, hub: 'alpha' }) };
    assert.match((await runTool(markDoctor, { limit: 2, cursor }, otherReplica)).text, startOver);
  });

  it("refuses a caller's second report while its first is being made, and not another caller's", async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let reading!: () => void;
    const started = new Promise<void>((resolve) => {
      reading = resolve;
    });
    // The fixture's methods read its private fields, so each is called on it, not on the wrapper.
    const slow: WorldGateway = {
      list: () => gateway.list(),
      get: (name) => gateway.get(name),
      canWrite: (world, identity) => gateway.canWrite(world, identity),
      write: (world, identity, call) => gateway.write(world, identity, call),
      close: async () => {},
      read: async (world, call) => {
        reading();
        await held;
        return gateway.read(world, call);
      },
    };
    const knowledge = createKnowledge({ gateway: slow, hub: 'alpha' });
    const ctx = (identity = alice) => ({ ...toolContext(slow, { identity }), knowledge });
    const first = runTool(markDoctor, {}, ctx());
    await started;
    const second = await runTool(markDoctor, {}, ctx());
    assert.equal(second.isError, true);
    assert.match(second.text, /^a mark_doctor report of yours is still being made: wait for its answer/);
    const bobs = runTool(markDoctor, {}, ctx(bob));
    release();
    assert.notEqual((await first).isError, true);
    assert.notEqual((await bobs).isError, true);
    assert.notEqual((await runTool(markDoctor, {}, ctx())).isError, true, 'free again once the first answered');
  });
});

describe('doctor reports kept for their later pages', () => {
  it('expire after their time, and are found only by the caller and arguments that made them', () => {
    // Not 0: lru-cache takes a start time of 0 for "no ttl".
    let clock = 1_000_000;
    const runs = new DoctorRuns({ ttlMs: 1000, now: () => clock });
    const report = { worlds: 1, documents: 0, findings: [], notExamined: [] };
    const id = runs.keep('alice', 'args', report);
    assert.equal(runs.held(id, 'alice', 'args'), report);
    assert.equal(runs.held(id, 'bob', 'args'), undefined);
    assert.equal(runs.held(id, 'alice', 'other'), undefined);
    clock += 1000;
    assert.equal(runs.held(id, 'alice', 'args'), report, 'held for the whole of its time');
    clock += 1;
    assert.equal(runs.held(id, 'alice', 'args'), undefined);
  });
});

describe('near-duplicate detection', () => {
  it('pairs documents above the threshold and leaves unrelated ones alone', () => {
    const unrelated = 'Tokens rotate on every use and a replayed refresh token revokes the whole family of tokens.';
    const { pairs: found, complete } = nearDuplicates([near, unrelated, nearEdited, ''], 0.8);
    assert.equal(complete, true);
    assert.equal(found.length, 1);
    assert.deepEqual([found[0]!.a, found[0]!.b], [0, 2]);
    assert.ok(found[0]!.similarity >= 0.8 && found[0]!.similarity < 1);
    assert.deepEqual(nearDuplicates([near, nearEdited], 0.99), { pairs: [], complete: true });
  });
});

/**
 * The hub's generated files (`/graph.md`, `/index/<host:port>.md`) are skipped
 * as content, so the doctor never reads them; a link to one was reported as a
 * broken link although the document exists. Only a target the hub's listing
 * shows to be missing is broken.
 */
describe('mark_doctor on the hub: links to its generated files', () => {
  let root: WorldFixture;
  let gateway: FixtureGateway;
  before(async () => {
    root = await startWorldFixture();
    gateway = new FixtureGateway(
      [{ name: 'root', fixture: root, writers: ['alice@example.com'] }],
      new MarkClient({ ca: (await testTls()).cert, maxAttempts: 2 }),
    );
    const index = `/index/127.0.0.1:${root.server.port}.md`;
    await seed(root, '/graph.md', '# Link graph\n\n> generated by the federation crawl\n');
    await seed(root, index, '# Content index\n\n> generated by the federation crawl\n');
    await seed(
      root,
      '/index.md',
      `# Root\n\nThe hub.\n\n- [Graph](graph.md)\n- [Root's index](mark://root${index})\n- [Gone](gone.md)\n`,
    );
  });
  after(async () => {
    await gateway.close();
    await root.close();
  });

  it('does not call a link to a generated file broken, and still finds a missing document', async () => {
    const result = await runTool(markDoctor, { kinds: 'broken-link' }, toolContext(gateway));
    assert.equal(result.isError, undefined, result.text);
    assert.match(
      result.text,
      /^status: ok\nworlds: 1\ndocuments: 1\nfindings: 1\n/,
      'the generated files are not read',
    );
    assert.deepEqual((result.structured as { findings: unknown[] }).findings, [
      { kind: 'broken-link', url: 'mark://root/index.md', target: 'mark://root/gone.md' },
    ]);
  });
});

/**
 * A policy the broker cannot read is not "no policy": before, the doctor took the hub's read-protected
 * policy.md for none and answered `status: ok` with no policy findings, as if every document passed.
 */
describe('mark_doctor when the hub hides its policy', () => {
  let stack: TestStack;
  before(async () => {
    stack = await startTestStack(['root', 'team-a'], {
      tokens: [
        { label: 'writer', paths: ['/**'], operations: ['publish'] },
        { label: 'reader', paths: ['/.well-known/demarkus/policy.md'], operations: ['read'] },
      ],
    });
    await stack.seed(
      'root',
      '/.well-known/demarkus/policy.md',
      '# Policy\n\n| rule | setting | severity |\n|---|---|---|\n| required-tags | category | warn |\n',
    );
    await stack.seed('team-a', '/untagged.md', '# Untagged\n\nA page the policy would flag.\n');
  });
  after(() => stack.close());

  it('says the policy was not examined, and the report is partial', async () => {
    const ctx = { ...toolContext(stack.gateway), knowledge: createKnowledge({ gateway: stack.gateway }) };
    const result = await runTool(markDoctor, { kinds: 'policy' }, ctx);
    assert.equal(result.isError, undefined, result.text);
    assert.match(result.text, /^status: partial\n/);
    assert.match(
      result.text,
      /\n## Not examined\n\n\| world \| reason \|\n\|-+\|-+\|\n\| root \| the publishing policy /,
    );
    const structured = result.structured as { status: string; not_examined: Array<{ world: string; reason: string }> };
    assert.equal(structured.status, 'partial');
    assert.equal(structured.not_examined.length, 1);
    assert.equal(structured.not_examined[0]!.world, 'root');
    assert.match(
      structured.not_examined[0]!.reason,
      /^the publishing policy \(mark:\/\/root\/\.well-known\/demarkus\/policy\.md\) is read-protected on the hub/,
    );

    const others = await runTool(markDoctor, { kinds: 'untagged' }, ctx);
    assert.match(others.text, /^status: ok\n/, 'a report that asks for no policy findings misses nothing');
  });
});
