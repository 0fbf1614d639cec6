/**
 * Threat: an anonymous caller learns how many protected documents hold a word.
 * A body LOOKUP may carry corpus statistics for a cross-world merge
 * (`corpus-stats`, `corpus-df`) and then answers `row-scores`. A term the
 * supplied `corpus-df` left out was scored with the world's own df, counted
 * over every document, protected ones included (src/search/evaluate.ts), so
 * the scores told how many documents the caller may not read hold the word.
 *
 * The attack below succeeded before the fix (checked by running this file
 * against it): with five private documents holding `acquisition`, the score of
 * an empty `corpus-df` was the score of `acquisition=6`, not of
 * `acquisition=1`. Now a term left out counts the documents the caller may
 * read, as `corpus-stats: only` does (docs/decisions.md).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type InProcessWorlds, openInProcessWorlds } from '../broker/search/in-process-worlds.ts';

/** Totals the caller chose for its merge; only df differs between the calls compared. */
const totals = 'docs=2,sections=2,described=0,name=4,description=0,body=12,trail=2';

describe('security: row scores say nothing of documents the caller may not read', () => {
  let worlds: InProcessWorlds;
  before(async () => {
    worlds = await openInProcessWorlds(['w']);
    await worlds.publish('w', '/pub/a.md', '# Plans\n\nThe acquisition of widgets is planned.\n');
    await worlds.publish('w', '/pub/b.md', '# Other\n\nNothing to see here at all.\n');
    for (let i = 0; i < 5; i++)
      await worlds.publish('w', `/private/p${i}.md`, `# Secret ${i}\n\nThe acquisition of Initech.\n`);
  });
  after(() => worlds.close());

  const scores = async (df: string, auth?: string) => {
    const answer = await worlds.call('w', 'LOOKUP', '/', {
      query: 'acquisition',
      match: 'body',
      'corpus-stats': totals,
      'corpus-df': df,
      ...(auth && { auth }),
    });
    assert.equal(answer.status, 'ok');
    return answer.metadata['row-scores'];
  };

  it('a term corpus-df leaves out is counted over the documents the caller may read', async () => {
    const readable = await scores('acquisition=1');
    assert.notEqual(readable, await scores('acquisition=6'), 'df changes the score');
    assert.equal(await scores(''), readable);
  });

  it('a caller who may read the protected documents has them counted', async () => {
    assert.equal(
      (await scores('', worlds.tokens.reader))?.split(',')[0],
      (await scores('acquisition=6', worlds.tokens.reader))?.split(',')[0],
    );
  });
});
