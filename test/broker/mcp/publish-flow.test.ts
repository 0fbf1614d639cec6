import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { runTool } from '../../../src/broker/mcp/run-tool.ts';
import { markPublish } from '../../../src/broker/mcp/tools/publish.ts';
import { WorldGatewayError } from '../../../src/broker/worlds/gateway.ts';
import { toolContext } from './helpers/context.ts';
import { MemoryGateway, response } from './helpers/memory-gateway.ts';

/** Lost write answers cannot be produced on demand by a real world: these are the reconciliation rules alone. */
describe('mark_publish when the write answer is lost (never resend)', () => {
  const lost = () => {
    throw new WorldGatewayError('ERR_OUTCOME_UNKNOWN', 'w', 'world w: request sent but outcome unknown');
  };

  for (const mode of ['merge', 'fail']) {
    it(`reads the head and reports success when it is this submission (${mode})`, async () => {
      const gateway = new MemoryGateway({
        w: (call) =>
          call.verb === 'PUBLISH'
            ? lost()
            : response('ok', { version: '4', modified: '2026-01-02T00:00:00Z', agent: 'alice@example.com' }, 'body\n'),
      });
      const result = await runTool(
        markPublish,
        { url: 'mark://w/d.md', body: 'body\n', expected_version: 3, on_conflict: mode },
        toolContext(gateway),
      );
      assert.deepEqual(result, {
        text: 'status: ok\nversion: 4\nmodified: 2026-01-02T00:00:00Z\n',
        structured: {
          status: 'ok',
          url: 'mark://w/d.md',
          version: 4,
          modified: '2026-01-02T00:00:00Z',
          metadata: { version: '4', modified: '2026-01-02T00:00:00Z' },
        },
      });
      assert.deepEqual(
        gateway.calls.map((c) => c.verb),
        ['PUBLISH', 'FETCH'],
      );
    });
  }

  it("is a tool error, without a second PUBLISH, when the head is someone else's", async () => {
    const gateway = new MemoryGateway({
      w: (call) => (call.verb === 'PUBLISH' ? lost() : response('ok', { version: '4' }, 'other\n')),
    });
    const result = await runTool(
      markPublish,
      { url: 'mark://w/d.md', body: 'body\n', expected_version: 3 },
      toolContext(gateway),
    );
    assert.deepEqual(result, {
      isError: true,
      text: 'publish failed: world w: request sent but outcome unknown',
    });
    assert.deepEqual(
      gateway.calls.map((c) => c.verb),
      ['PUBLISH', 'FETCH'],
    );
  });

  it('reports a merge whose head has no version as a tool error', async () => {
    const gateway = new MemoryGateway({
      w: (call) =>
        call.verb === 'PUBLISH'
          ? response('conflict', { 'server-version': '2', 'your-version': '1' })
          : response('ok', {}, 'theirs\n'),
    });
    const result = await runTool(
      markPublish,
      { url: 'mark://w/d.md', body: 'ours\n', expected_version: 1 },
      toolContext(gateway),
    );
    assert.deepEqual(result, {
      isError: true,
      text: 'publish failed: fetch current: missing or invalid version metadata',
    });
  });

  it('fetches the base version by its /vN path for the merge', async () => {
    const gateway = new MemoryGateway({
      w: (call) => {
        if (call.verb === 'PUBLISH') return response('conflict', { 'server-version': '3' });
        if (call.path === '/d.md/v2') return response('ok', { version: '2' }, 'a\nb\n');
        return response('ok', { version: '3' }, 'a\nB\n');
      },
    });
    const result = await runTool(
      markPublish,
      { url: 'mark://w/d.md', body: 'A\nb\n', expected_version: 2 },
      toolContext(gateway),
    );
    assert.equal(
      result.text,
      'status: merge-candidate\nyour-version: 2\ncurrent-version: 3\npublish-at-version: 3\nhas-markers: false\n\nA\nB\n',
    );
    assert.deepEqual(
      gateway.calls.map((c) => `${c.verb} ${c.path}`),
      ['PUBLISH /d.md', 'FETCH /d.md', 'FETCH /d.md/v2'],
    );
  });
});
