import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SortedList } from '../../../src/world/catalog/sorted-list.ts';
import { seededRandom } from './corpus.ts';

const byNumber = (a: number, b: number) => a - b;

function contents(list: SortedList<number>, from: ((n: number) => boolean) | null = null): number[] {
  const out: number[] = [];
  list.forEachFrom(from, (n) => {
    out.push(n);
    return true;
  });
  return out;
}

describe('SortedList', () => {
  it('stays sorted and equal to a model array across block splits and removals', () => {
    const random = seededRandom(3);
    const list = new SortedList(byNumber);
    const model: number[] = [];
    for (let step = 0; step < 6000; step++) {
      const value = Math.floor(random() * 4000);
      if (random() < 0.35 && model.includes(value)) {
        assert.equal(list.remove(value), true);
        model.splice(model.indexOf(value), 1);
      } else if (!model.includes(value)) {
        list.insert(value);
        model.push(value);
      }
    }
    model.sort(byNumber);
    assert.deepEqual(contents(list), model);
    assert.equal(list.size, model.length);
  });

  it('answers false when removing an absent item, and leaves the list unchanged', () => {
    const list = new SortedList(byNumber, [1, 3, 5]);
    assert.equal(list.remove(4), false);
    assert.equal(new SortedList(byNumber).remove(1), false);
    assert.deepEqual(contents(list), [1, 3, 5]);
  });

  it('walks from a bound and counts what lies before it', () => {
    const sorted = Array.from({ length: 2000 }, (_, i) => i * 2);
    const list = new SortedList(byNumber, sorted);
    assert.deepEqual(contents(list, (n) => n < 3997).slice(0, 3), [3998]);
    assert.equal(
      list.countBefore((n) => n < 1001),
      501,
    );
    assert.equal(
      list.countBefore(() => true),
      2000,
    );
    assert.equal(
      list.countBefore(() => false),
      0,
    );
  });

  it('stops walking when the visitor says so', () => {
    const list = new SortedList(byNumber, [1, 2, 3, 4]);
    const seen: number[] = [];
    list.forEachFrom(null, (n) => {
      seen.push(n);
      return n < 2;
    });
    assert.deepEqual(seen, [1, 2]);
  });
});
