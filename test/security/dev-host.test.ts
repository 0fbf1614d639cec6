/**
 * Threat: `npm start -- --host 0.0.0.0` (or a LAN address) puts the local
 * development stack where other computers reach it. Its IdP signs in any
 * email address without a password, so anyone on the network would be anyone.
 *
 * Before the fix (checked by running this file against it) the command
 * accepted the address: it created the data directory, seeded the worlds and
 * started them and the development IdP on every interface, and only then
 * failed at the broker's config check (`config: oidc.issuer: must use https`),
 * a message that said nothing of why. The broker itself never ran, so the
 * attack got no further than listeners that were up for those seconds. Now a
 * host other than 127.0.0.1 or localhost is a usage error before anything
 * starts, saying why and how to reach the stack from elsewhere (a forwarded
 * port).
 *
 * The real CLI (a spawned `demarkus-broker dev`).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../cli/cli-process.ts';

describe('the development stack listens only on this computer', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'demarkus-dev-host-'));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  for (const host of ['0.0.0.0', '::']) {
    it(`refuses --host ${host} before anything starts, saying why and what to do instead`, async () => {
      const data = join(dir, 'data');
      const run = await runCli(['dev', '--host', host, '--data', data, '--port', '46401', '--broker-port', '46480']);
      assert.equal(run.code, 2, run.stderr);
      assert.match(
        run.stderr,
        new RegExp(`--host ${host.replaceAll('.', '\\.')} is not this computer's loopback address`),
      );
      assert.match(run.stderr, /signs in anyone as anyone without a password/);
      assert.match(run.stderr, /ssh -L/);
      assert.equal(run.stdout, '');
      assert.equal(existsSync(data), false, 'nothing was made, so nothing was started');
    });
  }
});
