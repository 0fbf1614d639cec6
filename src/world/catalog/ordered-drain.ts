/**
 * Emits items best-first without sorting all of them: a binary heap is built in
 * O(n) and popped only as long as the consumer wants more, which for LOOKUP is
 * at most 1000 rows out of possibly many thousands of matches.
 */
export function drainInOrder<T>(items: T[], compare: (a: T, b: T) => number, emit: (item: T) => boolean): void {
  if (items.length <= 64) {
    items.sort(compare);
    for (const item of items) if (!emit(item)) return;
    return;
  }
  for (let i = (items.length >>> 1) - 1; i >= 0; i--) siftDown(items, i, items.length, compare);
  for (let size = items.length; size > 0; size--) {
    const best = items[0]!;
    if (!emit(best)) return;
    items[0] = items[size - 1]!;
    siftDown(items, 0, size - 1, compare);
  }
}

function siftDown<T>(heap: T[], start: number, size: number, compare: (a: T, b: T) => number): void {
  let parent = start;
  const item = heap[parent]!;
  for (;;) {
    let child = 2 * parent + 1;
    if (child >= size) break;
    if (child + 1 < size && compare(heap[child + 1]!, heap[child]!) < 0) child++;
    if (compare(heap[child]!, item) >= 0) break;
    heap[parent] = heap[child]!;
    parent = child;
  }
  heap[parent] = item;
}
