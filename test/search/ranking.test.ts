import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { doc, filler, indexOf, paths } from './fixtures.ts';

const ids = (rows: { id: string }[]): string[] => [...new Set(rows.map((r) => r.id))];

describe('fielded ranking (spexcode `ranker.ts`)', () => {
  const index = indexOf([
    doc('/body.md', { title: 'Alpha', body: '# Notes\nA note about the zebra crossing and more words here.\n' }),
    doc('/desc.md', { title: 'Beta', description: 'zebra crossing rules', body: '# Notes\nother words\n' }),
    doc('/name.md', { title: 'Zebra crossing', body: '# Notes\nother words\n' }),
    ...filler(10),
  ]);

  it('ranks a name match over a description match over a body match', () => {
    assert.deepEqual(ids(index.search('zebra', { mode: 'any' })), ['/name.md', '/desc.md', '/body.md']);
  });

  it('caps each term at the name-prefix weight, so one rare title word scores 8 × prior', () => {
    const [row] = index.search('zebra crossing', { limit: 1 });
    assert.equal(row?.id, '/name.md');
    assert.equal(row?.anchor, '');
    assert.equal(row?.score, 2 * 8 * (0.7 + 0.3 * 0.5));
  });

  it('scores a prefix of a long name word below the whole word', () => {
    const cover = indexOf([
      doc('/whole.md', { title: 'Spec' }),
      doc('/partial.md', { title: 'Specification' }),
      doc('/other.md', { title: 'Other' }),
    ]);
    const rows = cover.search('spec', { mode: 'any' });
    assert.deepEqual(ids(rows), ['/whole.md', '/partial.md']);
    assert.ok((rows[0]?.score ?? 0) > (rows[1]?.score ?? 0));
  });
});

describe('document prior', () => {
  const body = '# Part\nrelease notes for the quarter\n';
  const index = indexOf([
    doc('/low.md', { importance: 0.1, body }),
    doc('/high.md', { importance: 0.9, body }),
    doc('/journal/high.md', { importance: 0.9, body }),
    ...filler(5),
  ]);

  it('ranks the more important of two equal documents first, and halves a journal one', () => {
    assert.deepEqual(ids(index.search('release quarter')), ['/high.md', '/low.md', '/journal/high.md']);
  });
});

describe('reach: stemming, reverse prefixes, stoplist, CJK', () => {
  const index = indexOf([
    doc('/merge.md', { body: '# Flow\nThe merge queue lands one change.\n' }),
    doc('/declare.md', { body: '# Done\nA declaration of completion.\n' }),
    doc('/search.md', { body: '# Find\nWe search the tree.\n' }),
    doc('/zh.md', { title: 'Overview', body: '# 概述\n每个节点是一个会话。\n' }),
    ...filler(6),
  ]);
  const find = (q: string): string[] => paths(index.search(q, { limit: 10 }));

  it('reaches merge from merging and declaration from declare', () => {
    assert.deepEqual(find('merging'), ['/merge.md#flow']);
    assert.deepEqual(find('declare'), ['/declare.md#done']);
  });

  it('reaches a shorter document word from an inflected query (searches → search)', () => {
    assert.deepEqual(find('searches'), ['/search.md#find']);
  });

  it('does not reach words that merely contain the term', () => {
    assert.deepEqual(find('erge'), []);
  });

  it('ignores stopwords, so a question still finds its content words', () => {
    assert.deepEqual(find('what is the merge queue?'), ['/merge.md#flow']);
  });

  it('reaches CJK prose with a CJK query', () => {
    assert.deepEqual(find('节点'), ['/zh.md#概述']);
  });

  it('requires every CJK character of the query in all mode', () => {
    assert.deepEqual(find('节日'), []);
  });
});
