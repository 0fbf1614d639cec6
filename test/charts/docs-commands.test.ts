/**
 * The helm and kubectl commands the install and operations docs give, run as
 * written from the repository root: every file they pass with -f exists there,
 * and every helm install or upgrade of our own charts renders with the real
 * helm (as `helm template`, which takes the same arguments and needs no
 * cluster). Charts from other repositories (ingress-nginx, cert-manager, Dex,
 * Redis) cannot be fetched here; their commands are checked for their values
 * files and their chart source.
 */
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { helm, type HelmResult } from './helm.ts';

const repo = join(import.meta.dirname, '..', '..');
const documents = [
  'deploy/README.md',
  'docs/operations.md',
  'charts/demarkus-broker/README.md',
  'charts/demarkus-world/README.md',
];

type Command = { document: string; words: string[] };

/** Shell lines of the ```sh blocks, continuations joined, `for x in a b; do ... done` unrolled. */
function commands(document: string): Command[] {
  const text = readFileSync(join(repo, document), 'utf8');
  const out: Command[] = [];
  for (const block of text.matchAll(/```sh\n([\s\S]*?)```/g)) {
    const lines = block[1]!.replace(/\\\n\s*/g, ' ').split('\n');
    let loop: { name: string; values: string[]; body: string[] } | undefined;
    for (const raw of lines) {
      const line = raw.replace(/\s+#.*$/, '').trim();
      const start = /^for (\w+) in ([^;]+); do$/.exec(line);
      if (start) {
        loop = { name: start[1]!, values: start[2]!.trim().split(/\s+/), body: [] };
        continue;
      }
      if (loop !== undefined && line === 'done') {
        for (const value of loop.values)
          for (const body of loop.body) out.push({ document, words: words(body.replaceAll(`$${loop.name}`, value)) });
        loop = undefined;
        continue;
      }
      if (line === '') continue;
      if (loop !== undefined) loop.body.push(line);
      else out.push({ document, words: words(line) });
    }
  }
  return out;
}

/** Words as the shell splits them here: on spaces, with one level of quotes removed. */
function words(line: string): string[] {
  return line
    .split(/\s+/)
    .filter((word) => word !== '')
    .map((word) => word.replace(/^'(.*)'$/, '$1').replace(/^"(.*)"$/, '$1'));
}

/** Values given with -f/--values, other than stdin. */
function valuesFiles(command: Command): string[] {
  return command.words.flatMap((word, i) =>
    (word === '-f' || word === '--values') && command.words[i + 1] !== '-' ? [command.words[i + 1]!] : [],
  );
}

const all = documents.flatMap(commands);
const helmInstalls = all.filter((c) => c.words[0] === 'helm' && (c.words[1] === 'install' || c.words[1] === 'upgrade'));
/** `helm upgrade [--install] NAME CHART ARGS...` of a chart in this repository, as `helm template NAME CHART ARGS...`. */
function asTemplate(command: Command): string[] | undefined {
  const rest = command.words.slice(2).filter((word) => word !== '--install' && word !== '--create-namespace');
  const [name, chart, ...args] = rest;
  if (chart === undefined || !chart.startsWith('charts/')) return undefined;
  return ['template', name!, chart, ...args.filter((word) => word !== '--wait')];
}

describe('the install and operations docs: commands as written, from the repository root (real helm)', () => {
  const rendered = new Map<string, HelmResult>();
  before(async () => {
    await Promise.all(
      helmInstalls.map(async (command) => {
        const args = asTemplate(command);
        if (args !== undefined) rendered.set(command.words.join(' '), await helm(args));
      }),
    );
  });

  it('gives helm commands at all (the extraction still reads the docs)', () => {
    assert.ok(helmInstalls.length >= 8, `found ${helmInstalls.length}`);
    assert.ok(rendered.size >= 5, `found ${rendered.size} installs of this repository's charts`);
  });

  it('names only files that exist from the repository root', () => {
    // kubectl also applies files the reader made a step before (a backup); those are named without a directory.
    const named = (command: Command) =>
      command.words[0] === 'helm'
        ? [...valuesFiles(command), ...command.words.filter((w) => w.startsWith('charts/'))]
        : valuesFiles(command).filter((file) => file.includes('/'));
    const missing = all.flatMap((command) =>
      named(command)
        .filter((file) => !existsSync(join(repo, file)))
        .map((file) => `${command.document}: ${file} (in: ${command.words.join(' ')})`),
    );
    assert.deepEqual(missing, []);
  });

  it("renders every install and upgrade of this repository's charts", () => {
    const failed = [...rendered]
      .filter(([, result]) => result.code !== 0)
      .map(([line, result]) => `${line}\n${result.stderr}`);
    assert.deepEqual(failed, []);
  });

  it('gives the Dex install command: its chart repository and the values file the broker overlay expects', () => {
    const dex = helmInstalls.find((command) => command.words.includes('https://charts.dexidp.io'));
    assert.ok(dex, 'deploy/README.md installs Dex');
    assert.deepEqual(dex.words.slice(0, 5), ['helm', 'upgrade', '--install', 'dex', 'dex']);
    assert.deepEqual(valuesFiles(dex), ['deploy/values/dex.yaml']);
    const overlay = helmInstalls.find((command) => valuesFiles(command).includes('deploy/values/broker-dex.yaml'));
    assert.ok(overlay, 'and then the broker with the Dex overlay');
    assert.equal(rendered.get(overlay.words.join(' '))?.code, 0);
  });
});
