import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { runCli } from '../cli/cli-process.ts';
import type { ChangeNotice } from '../../src/broker/changes/world-watcher.ts';
import type { Identity } from '../../src/broker/identity.ts';
import { policyPath } from '../../src/broker/knowledge/policy.ts';
import { isError, resultText, startStack, type Stack } from './stack-fixture.ts';

const policyUrl = `mark://root${policyPath}`;

const policy = (rows: string[]) =>
  `# Publishing policy\n\nThe rules every publish is checked against.\n\n| rule | setting | severity |\n|------|---------|----------|\n${rows.join('\n')}\n`;

const descriptor = (summary: string) =>
  `# Team A: identity and access\n\n${summary}\n\n## Owners\n\n- alice@example.com\n- [Team A](mailto:team-a@example.com)\n\n## What it holds\n\n- /docs/: designs and runbooks\n- /notes/: meeting notes\n`;

const publish = (client: Client, args: Record<string, unknown>) =>
  client.callTool({ name: 'mark_publish', arguments: { expected_version: 0, on_conflict: 'fail', ...args } });

/** The cells of `world`'s row in mark_worlds. */
const worldsRow = async (client: Client, world: string) => {
  const text = resultText(await client.callTool({ name: 'mark_worlds', arguments: {} }));
  const row = text.split('\n').find((line) => line.startsWith(`| ${world} |`));
  assert.ok(row, text);
  return row.split(' | ').map((cell) => cell.replace(/^\| | \|$/g, ''));
};

/** The current version of the document at `url` as mark_versions reports it, 0 when there is none yet. */
const currentVersion = async (client: Client, url: string) => {
  const versions = resultText(await client.callTool({ name: 'mark_versions', arguments: { url } }));
  return Number(/current: (\d+)/.exec(versions)?.[1] ?? 0);
};

/** Publishes `body` at `url` over whatever version is current. */
const publishOverCurrent = async (client: Client, url: string, body: string) => {
  const result = await publish(client, { url, body, expected_version: await currentVersion(client, url) });
  assert.equal(isError(result), false, resultText(result));
};

/** Publishes the hub's policy with these rows over whatever version is current. */
const publishPolicy = (client: Client, rows: string[]) => publishOverCurrent(client, policyUrl, policy(rows));

/**
 * The knowledge layer end to end: the official MCP SDK client, the real
 * broker, real worlds over QUIC. World descriptors in mark_worlds and as
 * resources, and the hub's publishing policy enforced on mark_publish and
 * mark_append at each declared severity.
 */
describe('knowledge layer end to end: world descriptors and the publishing policy', () => {
  let stack: Stack;
  let alice: Client;
  let carol: Client;
  const setPolicy = (rows: string[]) => publishPolicy(alice, rows);

  before(async () => {
    stack = await startStack({
      worlds: ['root', 'team-a'],
      allow: { 'team-a': { emails: ['alice@example.com'] }, root: { emails: ['alice@example.com'] } },
    });
    alice = await stack.connect();
    carol = await stack.connect(await stack.token('carol@example.com'));
  });
  after(() => stack.close());

  it('shows each world descriptor after the Go columns, with writable per caller', async () => {
    const created = await publish(alice, {
      url: 'mark://team-a/world.md',
      body: descriptor('Sign-in, tokens and access reviews. Ask us before changing scopes.'),
    });
    assert.equal(isError(created), false, resultText(created));
    const text = resultText(await alice.callTool({ name: 'mark_worlds', arguments: {} }));
    assert.match(
      text,
      /\n\| world \| url \| address \| writable \| title \| summary \| owners \| holds \| health \|\n/,
    );
    const [world, , address, writable, title, summary, owners, holds, health] = await worldsRow(alice, 'team-a');
    assert.deepEqual(
      { world, writable, title, summary, owners, holds, health },
      {
        health: 'up',
        world: 'team-a',
        writable: 'yes',
        title: 'Team A: identity and access',
        summary: 'Sign-in, tokens and access reviews.',
        owners: 'alice@example.com, Team A',
        holds: '/docs/: designs and runbooks; /notes/: meeting notes',
      },
    );
    assert.match(address!, /^mark:\/\/localhost:\d+$/);
    assert.equal((await worldsRow(carol, 'team-a'))[3], 'no', 'carol is not on the writer allowlist');
    const [, , , , rootTitle, rootSummary] = await worldsRow(alice, 'root');
    assert.deepEqual([rootTitle, rootSummary], ['', ''], 'a world without world.md has empty descriptor cells');
  });

  it('publishes untouched while the hub has no policy', async () => {
    const result = await publish(alice, { url: 'mark://team-a/docs/free.md', body: 'no heading at all — anything' });
    assert.equal(isError(result), false, resultText(result));
    assert.doesNotMatch(resultText(result), /policy/);
  });

  it('blocks, asks and warns exactly as the policy declares, naming each rule', async () => {
    await setPolicy([
      '| required-tags | category | block |',
      '| unique-headings | | ask |',
      '| banned-characters | U+2014 | warn |',
      '| no-secrets | | block |',
    ]);
    const blocked = await publish(alice, {
      url: 'mark://team-a/docs/blocked.md',
      body: '# Blocked\n\nA page.\n',
      metadata: { tags: 'runbook' },
    });
    assert.equal(isError(blocked), true);
    assert.equal(
      resultText(blocked),
      `publish refused by the publishing policy (${policyUrl}):\n` +
        '- required-tags (block): no "category:" tag. Fix: add a tag such as category:<value> to metadata.tags.\n\n' +
        'Fix every rule marked block, then publish again.',
    );
    const missing = await alice.callTool({ name: 'mark_fetch', arguments: { url: 'mark://team-a/docs/blocked.md' } });
    assert.match(resultText(missing), /not-found/, 'a blocked publish sends nothing to the world');

    const askArgs = {
      url: 'mark://team-a/docs/asked.md',
      body: '# Asked\n\nA page.\n\n## Notes\n\nOne.\n\n## Notes\n\nTwo.\n',
      metadata: { tags: 'category:notes' },
    };
    const asked = await publish(alice, askArgs);
    assert.equal(isError(asked), true);
    assert.match(resultText(asked), /- unique-headings \(ask\): 2 headings read "Notes"/);
    assert.match(resultText(asked), /publish again with confirm: true to go ahead as is/);
    const confirmed = await publish(alice, { ...askArgs, confirm: true });
    assert.equal(isError(confirmed), false, resultText(confirmed));
    assert.match(resultText(confirmed), /\npolicy-warnings: 1 \(mark:\/\/root\/\.well-known\/demarkus\/policy\.md\)\n/);

    const warned = await publish(alice, {
      url: 'mark://team-a/docs/warned.md',
      body: '# Warned\n\nA page — with a long dash.\n',
      metadata: { tags: 'category:notes' },
    });
    assert.equal(isError(warned), false, resultText(warned));
    assert.match(resultText(warned), /^status: created\n/);
    assert.match(resultText(warned), /- banned-characters \(warn\): U\+2014 \("—"\) on line 3\./);

    const clean = await publish(alice, {
      url: 'mark://team-a/docs/clean.md',
      body: '# Clean\n\nA page that follows the rules.\n',
      metadata: { tags: 'category:notes' },
    });
    assert.equal(isError(clean), false, resultText(clean));
    assert.doesNotMatch(resultText(clean), /policy/);

    const appended = await alice.callTool({
      name: 'mark_append',
      arguments: { url: 'mark://team-a/docs/clean.md', body: `\nkey AKIA${'Q'.repeat(16)}\n` },
    });
    assert.equal(isError(appended), true);
    assert.match(
      resultText(appended),
      /^append refused by the publishing policy .*\n- no-secrets \(block\): line 2 looks like an AWS access key id\./,
    );
    assert.doesNotMatch(resultText(appended), /AKIAQ/);
  });

  it('degrades a broken policy to no policy, never to a refused write', async () => {
    await setPolicy(['| required-tags | category | block |', '| be-kind | | block |']);
    const result = await publish(alice, { url: 'mark://team-a/docs/after-broken.md', body: '# Any\n\nText.\n' });
    assert.equal(isError(result), false, resultText(result));
    assert.doesNotMatch(resultText(result), /policy/);
  });

  it('offers the standard as a prompt that carries the policy text', async () => {
    await setPolicy(['| h1-first | | block |']);
    const prompt = await alice.getPrompt({ name: 'publish', arguments: { url: 'mark://team-a/docs/new.md' } });
    const text = String((prompt.messages[0]?.content as { text?: string } | undefined)?.text);
    assert.match(text, /Write mark:\/\/team-a\/docs\/new\.md\./);
    assert.match(text, /## The org's policy \(mark:\/\/root\/\.well-known\/demarkus\/policy\.md\)/);
    assert.match(text, /\| h1-first \| \| block \|/);
  });

  it('lets an archived document be brought back: an empty body carries no content to check', async () => {
    // The policy of the previous test is in force: h1-first, block. An empty body is the protocol's
    // unarchive (docs/world-server.md): it stores nothing new, so no rule has anything to read.
    const url = 'mark://team-a/docs/clean.md';
    const archived = await alice.callTool({ name: 'mark_archive', arguments: { url } });
    assert.equal(isError(archived), false, resultText(archived));
    const unarchived = await publish(alice, { url, body: '' });
    assert.equal(isError(unarchived), false, resultText(unarchived));
    assert.match(resultText(await alice.callTool({ name: 'mark_fetch', arguments: { url } })), /# Clean/);
  });

  it('prints the doctor report for people from the CLI, with the exit status saying whether there are findings', async () => {
    const env = { DEMARKUS_BROKER_TOKEN: await stack.token() };
    const doctor = (args: string[]) => runCli(['doctor', '--url', stack.mcpUrl.href, ...args], { env });
    const report = await doctor(['--all', '--kinds', 'untagged,broken-link']);
    assert.equal(report.code, 1, report.stderr);
    assert.match(report.stdout, /^status: ok\nworlds: 2\n/);
    assert.match(report.stdout, /\| untagged \| mark:\/\/team-a\/docs\/free\.md \|/);
    const clean = await doctor(['--kinds', 'exact-duplicate']);
    assert.equal(clean.code, 0, clean.stdout);
    assert.match(clean.stdout, /\nfindings: 0\n/);
    const usage = await doctor(['--similarity', '3']);
    assert.equal(usage.code, 2);
    assert.match(usage.stderr, /--similarity must be a number from 0\.5 to 1/);
  });
});

/**
 * A write through the broker forgets the knowledge cache's copy of the document it wrote itself
 * (src/broker/mcp/checked-write.ts), so the next call sees it although the cache would trust its copy
 * for 30 s (docs/knowledge.md "Freshness and cost"). The broker's WATCH streams are closed first:
 * a change notice would also forget the copy, usually as fast, and hide a write tool that does not.
 */
describe('the write tools forget the cached world.md and policy themselves, without a change notice', () => {
  let stack: Stack;
  let alice: Client;
  const heard: ChangeNotice[] = [];
  const writerBehindTheTools: Identity = {
    subject: 'knowledge-e2e-writer-behind-the-tools',
    email: 'alice@example.com',
    emailVerified: true,
    groups: [],
    issuedBy: 'broker',
  };

  /**
   * Proves the broker holds its copy of `/path` on `world`, not only that it read it: without this, a
   * cache that held nothing would let every "at once" check below pass even if a write tool forgot
   * nothing. Publishes `changedBody` there through the broker's gateway, not a mark_* tool, so
   * checkedWrite (src/broker/mcp/checked-write.ts) does not forget the copy, and the watcher is closed,
   * so no change notice does either; `observe` must then still see `held`, the answer from the copy.
   */
  const assertHeld = async (
    world: string,
    path: string,
    changedBody: string,
    observe: () => Promise<string>,
    held: string,
  ) => {
    const changed = await stack.broker.gateway.write(world, writerBehindTheTools, {
      verb: 'PUBLISH',
      path,
      body: changedBody,
    });
    assert.equal(changed.status, 'created', `the change behind the write tools' back was stored on ${world}${path}`);
    assert.equal(await observe(), held, `the broker holds its copy of ${world}${path} and still answers from it`);
  };
  const summaryOf = (world: string) => async () => (await worldsRow(alice, world))[5]!;

  before(async () => {
    stack = await startStack({ worlds: ['root', 'team-a'] });
    stack.broker.watcher.close();
    stack.broker.watcher.onNotice((notice) => heard.push(notice));
    alice = await stack.connect();
  });
  after(() => stack.close());
  afterEach(() => assert.deepEqual(heard, [], 'no change notice reached the broker'));

  /** Publishes team-a's world.md, has the broker read it, and shows the broker holds that copy. */
  async function holdTeamADescriptor() {
    await publishOverCurrent(alice, 'mark://team-a/world.md', descriptor('Sign-in and tokens.'));
    assert.equal((await worldsRow(alice, 'team-a'))[5], 'Sign-in and tokens.', 'world.md is read and held');
    await assertHeld(
      'team-a',
      '/world.md',
      descriptor('Changed behind the tools.'),
      summaryOf('team-a'),
      'Sign-in and tokens.',
    );
  }

  it('shows a changed world.md at once, and serves it as a resource', async () => {
    await holdTeamADescriptor();
    const republished = await publish(alice, {
      url: 'mark://team-a/world.md',
      body: descriptor('Everything about who may sign in.'),
      expected_version: await currentVersion(alice, 'mark://team-a/world.md'),
    });
    assert.equal(isError(republished), false, resultText(republished));
    assert.equal((await worldsRow(alice, 'team-a'))[5], 'Everything about who may sign in.');
    const { resources } = await alice.listResources();
    const uris = resources.map((r) => r.uri);
    for (const uri of ['mark://team-a/world.md', 'mark://root/world.md', policyUrl]) assert.ok(uris.includes(uri), uri);
    const read = await alice.readResource({ uri: 'mark://team-a/world.md' });
    const contents = read.contents[0];
    assert.ok(contents && 'text' in contents);
    assert.match(contents.text, /Everything about who may sign in\./);
  });

  it('drops an archived world.md and an archived policy at once', async () => {
    await holdTeamADescriptor();
    const archivedDescriptor = await alice.callTool({
      name: 'mark_archive',
      arguments: { url: 'mark://team-a/world.md' },
    });
    assert.equal(isError(archivedDescriptor), false, resultText(archivedDescriptor));
    assert.deepEqual((await worldsRow(alice, 'team-a')).slice(4, 6), ['', ''], 'the archived world.md is not shown');

    await publishPolicy(alice, ['| h1-first | | block |']);
    const headless = { url: 'mark://team-a/docs/headless.md', body: 'No heading.\n' };
    const blocked = await publish(alice, headless);
    assert.match(resultText(blocked), /^publish refused by the publishing policy/, 'the policy is read and held');
    // The changed policy no longer has h1-first: only the held copy still refuses the headless page.
    const refusedByHeld = async () => resultText(await publish(alice, headless));
    await assertHeld(
      'root',
      policyPath,
      policy(['| banned-characters | U+2014 | warn |']),
      refusedByHeld,
      resultText(blocked),
    );
    const archivedPolicy = await alice.callTool({ name: 'mark_archive', arguments: { url: policyUrl } });
    assert.equal(isError(archivedPolicy), false, resultText(archivedPolicy));
    const published = await publish(alice, headless);
    assert.equal(isError(published), false, `the archived policy no longer applies: ${resultText(published)}`);
  });

  it('shows an appended world.md at once', async () => {
    const created = await publish(alice, { url: 'mark://root/world.md', body: descriptor('The hub.') });
    assert.equal(isError(created), false, resultText(created));
    const holds = '/docs/: designs and runbooks; /notes/: meeting notes';
    assert.equal((await worldsRow(alice, 'root'))[7], holds, 'world.md is read and held');
    // Only the summary changes behind the tools' back, so the append below still extends these holds.
    await assertHeld('root', '/world.md', descriptor('Changed behind the tools.'), summaryOf('root'), 'The hub.');
    const appended = await alice.callTool({
      name: 'mark_append',
      arguments: { url: 'mark://root/world.md', body: '- /runbooks/: on-call steps\n' },
    });
    assert.equal(isError(appended), false, resultText(appended));
    assert.equal((await worldsRow(alice, 'root'))[7], `${holds}; /runbooks/: on-call steps`);
  });
});
