import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { documentTemplate, ResourceReadError, worldIndexResources } from '../../../src/broker/mcp/resources.ts';
import {
  allPrompts,
  orientPrompt,
  PromptArgumentError,
  publishPrompt,
  recallPrompt,
  whatsNewPrompt,
} from '../../../src/broker/mcp/prompts.ts';
import { testNow, toolContext } from './helpers/context.ts';
import { startTestStack, type TestStack } from './helpers/fixture-gateway.ts';

const doc = '# Runbook\n\nWhy.\n\n## Restart\n\nsystemctl restart\n\n## Escalate\n\ncall someone\n';

describe('resources (Go broker mcp_resources.go) against a real world', () => {
  let stack: TestStack;
  before(async () => {
    stack = await startTestStack(['ops', 'team-a']);
    await stack.seed('ops', '/runbook.md', doc);
  });
  after(() => stack.close());

  const read = (uri: string) => documentTemplate.read(uri, toolContext(stack.gateway));

  it('reads a whole document as markdown under the URI it was asked for', async () => {
    assert.deepEqual(await read('mark://ops/runbook.md'), {
      uri: 'mark://ops/runbook.md',
      mimeType: 'text/markdown',
      text: doc,
    });
  });

  it('reads one section for a #anchor URI and keeps the anchor in the URI', async () => {
    assert.deepEqual(await read('mark://ops/runbook.md#restart'), {
      uri: 'mark://ops/runbook.md#restart',
      mimeType: 'text/markdown',
      text: '## Restart\n\nsystemctl restart\n\n',
    });
  });

  it('fails with the reference texts for a missing section, a missing document and a bad URI', async () => {
    await assert.rejects(read('mark://ops/runbook.md#deploy'), {
      name: 'ResourceReadError',
      message: 'section #deploy not found in mark://ops/runbook.md; available anchors: runbook, restart, escalate',
    });
    await assert.rejects(read('mark://ops/none.md'), { message: 'mark://ops/none.md: not-found' });
    await assert.rejects(read('mark://ops:1/x.md'), (error: unknown) => {
      assert.ok(error instanceof ResourceReadError);
      assert.match(error.message, /^invalid resource URI "mark:\/\/ops:1\/x\.md": invalid URL .*must not carry a port/);
      return true;
    });
  });

  it('offers the template and one index hub per world', () => {
    assert.equal(documentTemplate.uriTemplate, 'mark://{world}/{+path}');
    assert.equal(documentTemplate.mimeType, 'text/markdown');
    assert.deepEqual(
      worldIndexResources(stack.gateway.list()).map((resource) => [resource.uri, resource.name, resource.mimeType]),
      [
        ['mark://ops/index.md', 'ops: index hub', 'text/markdown'],
        ['mark://team-a/index.md', 'team-a: index hub', 'text/markdown'],
      ],
    );
  });
});

describe('prompts (Go broker mcp_prompts.go)', () => {
  const ctx = {
    now: testNow,
    worlds: ['ops', 'team-a'].map((name) => ({ name, address: `${name}.worlds.test:6309`, source: 'config' as const })),
  };

  it('offers orient, recall, whats-new and publish with their argument rules', () => {
    assert.deepEqual(
      allPrompts().map((prompt) => [prompt.name, prompt.arguments.map((a) => `${a.name}${a.required ? '!' : '?'}`)]),
      [
        ['orient', ['url!']],
        ['recall', ['subject!']],
        ['whats-new', ['since?', 'world?']],
        ['publish', ['url!', 'subject?']],
      ],
    );
  });

  it('refuses a missing or blank required argument with "<name> argument is required"', () => {
    assert.throws(() => orientPrompt.render({}, ctx), {
      name: 'PromptArgumentError',
      message: 'url argument is required',
    });
    assert.throws(
      () => recallPrompt.render({ subject: '   ' }, ctx),
      (error: unknown) => error instanceof PromptArgumentError && error.message === 'subject argument is required',
    );
  });

  it('renders orient around the trimmed URL, pointing at mark_explore then sections', async () => {
    const rendered = await orientPrompt.render({ url: ' mark://ops/runbook.md ' }, ctx);
    assert.equal(rendered.description, 'Orient around mark://ops/runbook.md');
    assert.match(rendered.text, /mark_explore with url "mark:\/\/ops\/runbook\.md"/);
    assert.match(rendered.text, /mark_fetch, url "mark:\/\/ops\/runbook\.md#<anchor>"/);
  });

  it('refuses an orient or publish url the tools would refuse, and renders another address form as the logical URL', async () => {
    assert.throws(() => orientPrompt.render({ url: 'runbook.md' }, ctx), {
      name: 'PromptArgumentError',
      message: 'url argument is not a mark:// document URL: unsupported scheme "" (expected mark://)',
    });
    await assert.rejects(async () => publishPrompt.render({ url: 'mark://nowhere/x.md' }, ctx), {
      name: 'PromptArgumentError',
      message: 'url argument names no world of this knowledge system (worlds: ops, team-a)',
    });
    const rendered = await orientPrompt.render({ url: 'mark://ops.worlds.test:6309/run book.md' }, ctx);
    assert.equal(rendered.description, 'Orient around mark://ops/run%20book.md');
  });

  it('renders recall as a full-text search across every world that tells failure from absence', async () => {
    const rendered = await recallPrompt.render({ subject: 'release checklist' }, ctx);
    assert.equal(rendered.description, 'Recall: release checklist');
    assert.match(rendered.text, /mark_search with query "release checklist"/);
    assert.match(rendered.text, /No rows: call mark_lookup_all/);
    assert.match(rendered.text, /status: partial/);
  });

  it('renders whats-new from seven days ago by default, or from the given date in one world', async () => {
    const fallback = await whatsNewPrompt.render({}, ctx);
    assert.equal(fallback.description, "What's new");
    assert.match(fallback.text, /mark_lookup_all with query "\*" and filter "modified-after=2026-01-01"/);
    const narrowed = await whatsNewPrompt.render({ since: '2025-12-24', world: 'ops' }, ctx);
    assert.equal(narrowed.description, "What's new since 2025-12-24 in ops");
    assert.match(
      narrowed.text,
      /mark_lookup with url "mark:\/\/ops\/", query "\*" and filter "modified-after=2025-12-24"/,
    );
  });

  it('reads the whats-new world in every form mark_search and mark_doctor take', async () => {
    for (const world of ['OPS', 'mark://ops', 'mark://ops/']) {
      const rendered = await whatsNewPrompt.render({ world }, ctx);
      assert.equal(rendered.description, "What's new in ops", world);
      assert.match(rendered.text, /mark_lookup with url "mark:\/\/ops\/"/);
    }
  });

  it('refuses a since that is not a calendar date and a world that does not exist', () => {
    assert.throws(() => whatsNewPrompt.render({ since: '2026-02-30' }, ctx), {
      message: 'since argument must be a date as YYYY-MM-DD',
    });
    assert.throws(() => whatsNewPrompt.render({ since: 'last week' }, ctx), PromptArgumentError);
    assert.throws(
      () => whatsNewPrompt.render({ world: 'nowhere' }, ctx),
      /names no world of this knowledge system \(worlds: ops, team-a\)/,
    );
  });
});
