#!/usr/bin/env node
// Entry point for the installed package. A production install runs the compiled
// tree in dist/; a source checkout (Node >= 22.18 strips types natively) runs src/.
import { existsSync } from 'node:fs';

const compiled = new URL('../dist/cli/main.js', import.meta.url);
const entry = existsSync(compiled) ? compiled : new URL('../src/cli/main.ts', import.meta.url);
const { main } = await import(entry.href);
process.exitCode = await main(process.argv.slice(2));
