/**
 * Tests that run an outside program (Chromium, haproxy, redis-server) are
 * skipped on a developer machine without it. Under CI (`CI` set, as CI
 * services and .ci/run's callers do) a missing program fails them instead:
 * .ci/run installs every one, so an install that did not happen must not
 * pass as green by skipping.
 */

/** node:test's `skip` option for tests that need what `missing` says is absent (null: nothing is). */
export function skipUnlessInstalled(missing: string | null): string | false {
  return missing === null || process.env.CI ? false : missing;
}
