/**
 * A world's own explanation of a failed answer, as the broker quotes it after
 * the status: on one line and at most 256 characters (runes), with "..." when
 * cut, as the Go broker's lookupFailureDetail does. Empty when the world said
 * nothing. One home for mark_lookup_all, mark_search and mark_index.
 */
export function failureDetail(body: string): string {
  const detail = body
    .split(/\s+/)
    .filter((word) => word !== '')
    .join(' ');
  if (detail === '') return '';
  const runes = [...detail];
  return `: ${runes.length > 256 ? `${runes.slice(0, 256).join('')}...` : detail}`;
}
