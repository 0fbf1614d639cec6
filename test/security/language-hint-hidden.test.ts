/**
 * Threat: an anonymous caller learns in which script protected documents are
 * written. A body LOOKUP that finds nothing and asks for `nearest-titles` may
 * answer a `language-hint` ("the corpus is mostly latin-script text; …") when
 * the query's script is rare in the corpus. The corpus was the whole index
 * (src/search/script-profile.ts), protected documents included.
 *
 * The attack below succeeded before the fix (checked by running this file
 * against it): after one protected Cyrillic document was published, the
 * anonymous caller's Cyrillic query was no longer told that the corpus is
 * mostly Latin-script text. Now the hint counts the documents the caller may
 * read in the scope (SearchIndex.zeroResultHelp).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type InProcessWorlds, openInProcessWorlds } from '../broker/search/in-process-worlds.ts';

const cyrillic = 'абвгдежзиклмнопрстуфхцчшщыэюя';
/** Forty distinct Cyrillic words, so the protected document outweighs the public one. */
const cyrillicWords = Array.from(
  { length: 40 },
  (_, i) => `${cyrillic[i % 29]}${cyrillic[(i * 7) % 29]}${cyrillic[(i * 3 + 1) % 29]}ов`,
);

describe('security: the language hint says nothing of documents the caller may not read', () => {
  let worlds: InProcessWorlds;
  before(async () => {
    worlds = await openInProcessWorlds(['w']);
    await worlds.publish('w', '/pub/a.md', '# Plans\n\nThe acquisition of widgets is planned.\n');
  });
  after(() => worlds.close());

  const hints = async (auth?: string) => {
    const hintFor = async (query: string) => {
      const answer = await worlds.call('w', 'LOOKUP', '/', {
        query,
        match: 'body',
        'nearest-titles': '3',
        ...(auth && { auth }),
      });
      assert.equal(answer.metadata.matches, '0', query);
      return answer.metadata['language-hint'] ?? null;
    };
    return { latin: await hintFor('zzqqx'), cyrillic: await hintFor('слияние') };
  };

  it('a protected document in another script changes no other caller’s hint', async () => {
    const anonymousBefore = await hints();
    assert.deepEqual(anonymousBefore, {
      latin: null,
      cyrillic: 'the corpus is mostly latin-script text; if your query is in another language, translate it and retry',
    });
    await worlds.publish('w', '/private/p.md', `# Секрет\n\n${cyrillicWords.join(' ')}\n`);
    assert.deepEqual(await hints(), anonymousBefore);
    // The caller who may read it is counted with it: the document is in the index.
    assert.deepEqual(await hints(worlds.tokens.reader), { latin: null, cyrillic: null });
  });
});
