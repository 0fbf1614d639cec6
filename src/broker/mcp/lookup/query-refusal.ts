import { goTrimSpace } from '../../../protocol/go-strings.ts';
import { isLookupQueryTooShort, lookupQueryTooShortMessage } from '../../../protocol/lookup-query.ts';

/**
 * What `mark_lookup` and `mark_lookup_all` refuse before any world is asked:
 * a query every world would refuse (its own rule, src/protocol/lookup-query.ts)
 * and `*` in body mode, which yields no terms there (Mark SPEC §6.4), so every
 * world would answer an empty table as if nothing were catalogued.
 * Undefined when the query may go to the worlds.
 */
export function lookupQueryRefusal(query: string, match: 'catalog' | 'body' | undefined): string | undefined {
  if (isLookupQueryTooShort(query)) return lookupQueryTooShortMessage;
  if (match === 'body' && goTrimSpace(query) === '*')
    return "query '*' matches no text with match=body; leave match out (catalog) to list every catalogued document";
  return undefined;
}
