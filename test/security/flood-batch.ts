/** One JSON-RPC batch of `size` `mark_search` calls with ids from `from`: the flood of the fairness test and bench. */
export const floodBatch = (size: number, from: number) =>
  Array.from({ length: size }, (_, i) => ({
    jsonrpc: '2.0',
    id: from + i,
    method: 'tools/call',
    params: { name: 'mark_search', arguments: { query: `flood ${i} notes` } },
  }));
