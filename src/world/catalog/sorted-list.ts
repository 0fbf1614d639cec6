/**
 * A sorted sequence kept as a list of short sorted blocks, so an insert or a
 * removal moves at most one block (O(log n + B)) instead of the whole array,
 * and walking from the front yields items in order without sorting anything.
 * The comparator must be a total order (ties broken by a unique key).
 */
export class SortedList<T> {
  static readonly blockSize = 512;
  readonly #compare: (a: T, b: T) => number;
  #blocks: T[][] = [];
  #size = 0;

  constructor(compare: (a: T, b: T) => number, sortedItems: readonly T[] = []) {
    this.#compare = compare;
    for (let i = 0; i < sortedItems.length; i += SortedList.blockSize) {
      this.#blocks.push(sortedItems.slice(i, i + SortedList.blockSize));
    }
    this.#size = sortedItems.length;
  }

  get size(): number {
    return this.#size;
  }

  insert(item: T): void {
    if (this.#blocks.length === 0) {
      this.#blocks.push([item]);
      this.#size = 1;
      return;
    }
    const blockIndex = this.#blockFor(item);
    const block = this.#blocks[blockIndex]!;
    block.splice(
      lowerBound(block, (other) => this.#compare(other, item) < 0),
      0,
      item,
    );
    this.#size++;
    if (block.length > 2 * SortedList.blockSize) {
      this.#blocks.splice(blockIndex + 1, 0, block.splice(SortedList.blockSize));
    }
  }

  /** Removes the item that compares equal to `item`; false when there is none. */
  remove(item: T): boolean {
    if (this.#blocks.length === 0) return false;
    const blockIndex = this.#blockFor(item);
    const block = this.#blocks[blockIndex]!;
    const at = lowerBound(block, (other) => this.#compare(other, item) < 0);
    if (at >= block.length || this.#compare(block[at]!, item) !== 0) return false;
    block.splice(at, 1);
    if (block.length === 0) this.#blocks.splice(blockIndex, 1);
    this.#size--;
    return true;
  }

  /** Calls `visit` on each item in order from the first one `isBefore` rejects, until `visit` returns false. */
  forEachFrom(isBefore: ((item: T) => boolean) | null, visit: (item: T) => boolean): void {
    const blocks = this.#blocks;
    let blockIndex = isBefore === null ? 0 : lowerBound(blocks, (block) => isBefore(block[block.length - 1]!));
    let at = isBefore === null || blockIndex >= blocks.length ? 0 : lowerBound(blocks[blockIndex]!, isBefore);
    for (; blockIndex < blocks.length; blockIndex++, at = 0) {
      const block = blocks[blockIndex]!;
      for (; at < block.length; at++) {
        if (!visit(block[at]!)) return;
      }
    }
  }

  /** How many items `isBefore` accepts; it must accept a prefix of the order. */
  countBefore(isBefore: (item: T) => boolean): number {
    const blocks = this.#blocks;
    const blockIndex = lowerBound(blocks, (block) => isBefore(block[block.length - 1]!));
    let count = 0;
    for (let i = 0; i < blockIndex; i++) count += blocks[i]!.length;
    return blockIndex < blocks.length ? count + lowerBound(blocks[blockIndex]!, isBefore) : count;
  }

  /** The block whose range should hold `item`: the first whose last item is not below it, else the last. */
  #blockFor(item: T): number {
    const index = lowerBound(this.#blocks, (block) => this.#compare(block[block.length - 1]!, item) < 0);
    return Math.min(index, this.#blocks.length - 1);
  }
}

/** The first index whose element `isBefore` rejects, for a predicate true on a prefix. */
function lowerBound<E>(items: readonly E[], isBefore: (item: E) => boolean): number {
  let low = 0;
  let high = items.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (isBefore(items[mid]!)) low = mid + 1;
    else high = mid;
  }
  return low;
}
