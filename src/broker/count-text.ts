/**
 * How every broker text prints a count: with thousands separators, `2,400`,
 * whatever the host's locale (`toLocaleString('en')`). In the broker's shared
 * kernel so that mcp's tools and graph's card sections, which mark_explore
 * shows, print one way (scripts/check-imports.ts). A number an agent is to send
 * back as an argument (an offset, a version) is not a count and stays plain
 * digits, as do the counts inside texts kept in the Go reference's format
 * (`Backlinks for <url> (<n>):`, go-broker-inventory.md §5).
 */
export function countText(count: number): string {
  return count.toLocaleString('en');
}
