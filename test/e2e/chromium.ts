/**
 * Debian's Chromium for the page tests, driven by playwright-core (which never
 * downloads a browser of its own). .ci/run installs it; locally:
 * apt-get install -y chromium.
 */
import { existsSync } from 'node:fs';
import { skipUnlessInstalled } from '../support/needs-program.ts';

export const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Skipped on a developer machine without it; under CI a missing browser fails the tests instead. */
export const skipWithoutChromium: string | false = skipUnlessInstalled(
  existsSync(chromiumPath) ? null : `no Chromium at ${chromiumPath} (apt-get install -y chromium)`,
);

/** Flags from the machine notes: no sandbox as root, and no background traffic on a closed network. */
export const chromiumArgs: readonly string[] = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
