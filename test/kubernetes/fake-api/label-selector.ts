/**
 * Equality-based label selectors as the API server parses them
 * (`key`, `!key`, `key=value`, `key==value`, `key!=value`, comma = AND).
 */
export type Labels = Record<string, string> | undefined;

export function labelMatcher(selector: string | null): (labels: Labels) => boolean {
  if (selector === null || selector.trim() === '') return () => true;
  const tests = selector
    .split(',')
    .map((part) => part.trim())
    .map(requirement);
  return (labels) => tests.every((test) => test(labels ?? {}));
}

function requirement(text: string): (labels: Record<string, string>) => boolean {
  let match = /^!\s*([^=!\s]+)$/.exec(text);
  if (match) return (labels) => !(match![1]! in labels);
  match = /^([^=!\s]+)\s*!=\s*(\S*)$/.exec(text);
  if (match) return (labels) => labels[match![1]!] !== match![2];
  match = /^([^=!\s]+)\s*==?\s*(\S*)$/.exec(text);
  if (match) return (labels) => labels[match![1]!] === match![2];
  match = /^([^=!\s]+)$/.exec(text);
  if (match) return (labels) => match![1]! in labels;
  throw new SelectorError(`unable to parse requirement: ${JSON.stringify(text)}`);
}

export class SelectorError extends Error {}
