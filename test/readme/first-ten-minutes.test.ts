/**
 * The first ten minutes of a new user, as the README tells them: a fresh copy
 * of the repository, `npm start`, an MCP client with the printed token, the
 * device sign-in, then every `npx demarkus-broker` command of the README in
 * the order it gives them, each run through a shell from the copy's root as
 * written. Each step's visible outcome is what the README promises.
 *
 * What differs from a person's laptop, and why: the copy shares this
 * checkout's node_modules (installing is what .ci/run does on a clean
 * machine); the stack runs on free ports instead of 6401 and 8080 (other
 * suites run beside this one), so the README's addresses are rewritten to
 * those ports and DEMARKUS_BROKER_URL points search and doctor at the MCP
 * port that 8081 stands for; the credentials directory is the test's own.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { cp, mkdir, mkdtemp, readFile, rm, stat, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { createServer } from 'node:net';
import { createSocket } from 'node:dgram';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { decodeJwt } from 'jose';
import { UserAgent } from '../e2e/signin-user-agent.ts';
import { mintBrokerToken } from '../../src/broker/auth/mint-broker-token.ts';
import { loadSigningKey } from '../../src/broker/auth/signing-key.ts';

const repo = join(import.meta.dirname, '..', '..');
const readme = await readFile(join(repo, 'README.md'), 'utf8');

/** The ```sh lines of a README section (continuations joined), by its heading. */
function sectionCommands(heading: string): string[] {
  const start = readme.indexOf(`\n## ${heading}\n`);
  assert.ok(start >= 0, `README has a "${heading}" section`);
  const end = readme.indexOf('\n## ', start + 1);
  const section = readme.slice(start, end < 0 ? undefined : end);
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].flatMap((block) =>
    block[1]!
      .replace(/\\\n\s*/g, '')
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line !== ''),
  );
}

/** The command without its trailing `# comment`. */
const withoutComment = (line: string) => line.replace(/\s+#\s.*$/, '');

/** Two free runs of ports: three UDP for the worlds, four TCP for the broker (issuer, MCP, IdP, management). */
async function freeRuns(): Promise<{ worlds: number; broker: number }> {
  const udpFree = (port: number) =>
    new Promise<boolean>((resolve) => {
      const socket = createSocket('udp4');
      socket.once('error', () => resolve(false));
      socket.bind(port, '127.0.0.1', () => socket.close(() => resolve(true)));
    });
  const tcpFree = (port: number) =>
    new Promise<boolean>((resolve) => {
      const server = createServer();
      server.once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
    });
  for (;;) {
    const worlds = 20_000 + Math.floor(Math.random() * 20_000);
    const broker = worlds + 20_000;
    // Three worlds; the broker's issuer, MCP, IdP and management listeners.
    const all = await Promise.all([
      ...[0, 1, 2].map((i) => udpFree(worlds + i)),
      ...[0, 1, 2, 3].map((i) => tcpFree(broker + i)),
    ]);
    if (all.every(Boolean)) return { worlds, broker };
  }
}

type Run = { code: number | null; stdout: string; stderr: string };

describe('the README, first ten minutes: a fresh copy, npm start, sign-in, every command as written', () => {
  let copy: string;
  let home: string;
  let ports: { worlds: number; broker: number };
  let stack: ChildProcess | undefined;
  let banner = '';
  let stackLog = '';
  let devToken = '';
  let signedInToken = '';
  const clients: Client[] = [];

  /** The README's addresses, on this run's ports. */
  const local = (text: string) =>
    text
      .replaceAll('127.0.0.1:8080', `127.0.0.1:${ports.broker}`)
      .replaceAll('127.0.0.1:8081', `127.0.0.1:${ports.broker + 1}`)
      .replaceAll('localhost:6401', `localhost:${ports.worlds}`)
      .replaceAll('localhost:6402', `localhost:${ports.worlds + 1}`)
      .replaceAll('localhost:6403', `localhost:${ports.worlds + 2}`);
  const env = () => {
    const inherited = { ...process.env };
    for (const name of ['DEMARKUS_BROKER_CONFIG', 'DEMARKUS_BROKER_TOKEN', 'DEMARKUS_BROKER_ISSUER', 'DEMARKUS_TOKEN'])
      delete inherited[name];
    return {
      ...inherited,
      HOME: home,
      DEMARKUS_BROKER_CONFIG_DIR: join(home, 'demarkus-broker'),
      DEMARKUS_BROKER_URL: `http://127.0.0.1:${ports.broker + 1}/mcp`,
    };
  };

  /**
   * One README line through bash in the copy's root; `onLine` sees each whole stdout line as it
   * comes (a chunk may end mid-line). The test's `signal` ends the command with the test: it has
   * the test's own timeout rather than a fixed one a loaded machine may outlast.
   */
  function shell(signal: AbortSignal, line: string, onLine?: (text: string) => void): Promise<Run> {
    return new Promise((resolve, reject) => {
      const child = spawn('bash', ['-c', line], {
        cwd: copy,
        env: env(),
        stdio: ['ignore', 'pipe', 'pipe'],
        signal,
        killSignal: 'SIGKILL',
      });
      let stdout = '';
      let stderr = '';
      let partial = '';
      child.stdout.on('data', (chunk) => {
        stdout += chunk;
        if (onLine === undefined) return;
        const lines = (partial + chunk).split('\n');
        partial = lines.pop()!;
        for (const text of lines) if (text !== '') onLine(text);
      });
      child.stderr.on('data', (chunk) => (stderr += chunk));
      child.on('error', reject);
      child.on('close', (code) => {
        if (onLine !== undefined && partial !== '') onLine(partial);
        resolve({ code, stdout, stderr });
      });
    });
  }

  /** `npm start` as the README gives it, on this run's ports; resolves once the banner says "Press Ctrl-C to stop." */
  function npmStart(): Promise<{ child: ChildProcess; exited: Promise<Run> }> {
    return new Promise((resolve, reject) => {
      const child = spawn(
        'npm',
        ['start', '--', '--port', String(ports.worlds), '--broker-port', String(ports.broker)],
        {
          cwd: copy,
          env: env(),
          stdio: ['ignore', 'pipe', 'pipe'],
          detached: true,
        },
      );
      let stdout = '';
      let stderr = '';
      const exited = new Promise<Run>((done) => child.on('close', (code) => done({ code, stdout, stderr })));
      const timer = setTimeout(
        () => reject(new Error(`npm start did not finish starting:\n${stdout}\n${stderr}`)),
        120_000,
      );
      child.stdout!.on('data', (chunk) => {
        stdout += chunk;
        if (stdout.includes('Press Ctrl-C to stop.')) {
          clearTimeout(timer);
          resolve({ child, exited });
        }
      });
      child.stderr!.on('data', (chunk) => (stderr += chunk));
      void exited.then((run) => {
        clearTimeout(timer);
        reject(Object.assign(new Error(`npm start exited with ${run.code}:\n${run.stdout}\n${run.stderr}`), { run }));
      });
      banner = '';
      child.stdout!.on('data', (chunk) => (banner += chunk));
      child.stderr!.on('data', (chunk) => (stackLog += chunk));
    });
  }

  async function mcpClient(token: string): Promise<Client> {
    const client = new Client({ name: 'first-ten-minutes', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${ports.broker + 1}/mcp`), {
        requestInit: { headers: { Authorization: `Bearer ${token}` } },
      }),
    );
    clients.push(client);
    return client;
  }

  const text = (result: unknown) =>
    ((result as { content?: Array<{ text?: string }> }).content ?? []).map((c) => c.text ?? '').join('');

  before(async () => {
    copy = await mkdtemp(join(tmpdir(), 'demarkus-fresh-'));
    home = await mkdtemp(join(tmpdir(), 'demarkus-home-'));
    // A fresh clone: the tracked tree, without state, build output or installed packages.
    const skipped = new Set(['node_modules', 'data', 'dist', '.git']);
    await cp(repo, copy, {
      recursive: true,
      filter: (source) => !skipped.has(relative(repo, source).split('/')[0]!),
    });
    await symlink(join(repo, 'node_modules'), join(copy, 'node_modules'));
    await mkdir(join(home, 'demarkus-broker'), { recursive: true, mode: 0o700 });
    // The ports may be taken between the check and the start: try again on other ones.
    for (let attempt = 0; ; attempt += 1) {
      ports = await freeRuns();
      try {
        const started = await npmStart();
        stack = started.child;
        break;
      } catch (error) {
        const run = (error as { run?: Run }).run;
        if (attempt < 4 && run !== undefined && /port is in use/.test(run.stderr + run.stdout)) continue;
        throw error;
      }
    }
  });

  after(async () => {
    for (const client of clients) await client.close().catch(() => undefined);
    if (stack?.pid !== undefined) {
      const closed = new Promise((resolve) => stack!.once('close', resolve));
      process.kill(-stack.pid, 'SIGINT');
      await closed;
    }
    await rm(copy, { recursive: true, force: true });
    await rm(home, { recursive: true, force: true });
  });

  it('Set-up: the README starts with npm install && npm start, and npm start prints the addresses and ready-to-paste commands', async () => {
    assert.match(sectionCommands('Set-up')[0]!, /^npm install && npm start\b/);
    for (const world of ['root', 'team-a', 'team-b'])
      assert.match(banner, new RegExp(`world ${world} +mark://localhost:\\d+ +\\(seeded \\d+ documents\\)`));
    assert.match(banner, new RegExp(`broker MCP: +http://127\\.0\\.0\\.1:${ports.broker + 1}/mcp`));
    assert.match(banner, /development token for dev@example\.com, valid 12 hours/);
    const claude = /claude mcp add --transport http demarkus (\S+) --header "Authorization: Bearer (\S+)"/.exec(banner);
    assert.ok(claude, 'the exact command to add it to a client');
    assert.equal(claude[1], `http://127.0.0.1:${ports.broker + 1}/mcp`);
    devToken = claude[2]!;
    assert.match(banner, new RegExp(`npx demarkus-broker login --issuer http://127\\.0\\.0\\.1:${ports.broker}\\n`));
    for (const [, path] of readme.matchAll(/`(data\/[^`]+)`/g)) await stat(join(copy, path!));
  });

  it('a second npm start says the ports are taken and which flags move it', async (t) => {
    const second = spawn(
      'npm',
      ['start', '--', '--port', String(ports.worlds), '--broker-port', String(ports.broker)],
      {
        cwd: copy,
        env: env(),
        stdio: ['ignore', 'pipe', 'pipe'],
        signal: t.signal,
        killSignal: 'SIGKILL',
      },
    );
    let output = '';
    second.stdout.on('data', (chunk) => (output += chunk));
    second.stderr.on('data', (chunk) => (output += chunk));
    const code = await new Promise((resolve) => second.on('close', resolve));
    assert.notEqual(code, 0);
    assert.match(output, /the port is in use: is another npm start \(or demarkus-broker dev\) running\?/);
    assert.match(output, /npm start -- --port \d+ --broker-port \d+/);
  });

  it('Connecting an MCP client: without a bearer the broker answers 401 pointing at its protected-resource metadata', async () => {
    const response = await fetch(`http://127.0.0.1:${ports.broker + 1}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    });
    assert.equal(response.status, 401);
    // "Metadata is at http://127.0.0.1:8080/.well-known/oauth-authorization-server".
    const metadataUrl = /Metadata is at `([^`]+)`/.exec(readme)?.[1];
    assert.ok(metadataUrl, 'the README names the metadata URL');
    const metadata = (await (await fetch(local(metadataUrl))).json()) as Record<string, unknown>;
    assert.equal(metadata.issuer, `http://127.0.0.1:${ports.broker}`);
    assert.equal(typeof metadata.device_authorization_endpoint, 'string');
    assert.match(
      response.headers.get('www-authenticate') ?? '',
      /resource_metadata="http:\/\/127\.0\.0\.1:\d+\/\.well-known\/oauth-protected-resource[^"]*"/,
    );
  });

  it('Connecting an MCP client: with the printed token an agent has the mark_* tools, mark:// resources and the four prompts', async () => {
    const client = await mcpClient(devToken);
    const tools = (await client.listTools()).tools.map((tool) => tool.name);
    assert.ok(tools.includes('mark_worlds') && tools.every((name) => name.startsWith('mark_')), tools.join(', '));
    const prompts = (await client.listPrompts()).prompts.map((prompt) => prompt.name).sort();
    assert.deepEqual(prompts, ['orient', 'publish', 'recall', 'whats-new']);
    const templates = (await client.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate);
    assert.ok(
      templates.some((uri) => uri.startsWith('mark://{world}')),
      templates.join(', '),
    );
    const worlds = text(await client.callTool({ name: 'mark_worlds', arguments: {} }));
    for (const world of ['root', 'team-a', 'team-b']) assert.match(worlds, new RegExp(`\\b${world}\\b`));
    const index = await client.callTool({ name: 'mark_fetch', arguments: { url: 'mark://root/index.md' } });
    assert.notEqual(index.isError, true, text(index));
    assert.match(text(index), /^# /m);
  });

  it('Connecting an MCP client: "Mint another development token" gives a token the broker accepts', async (t) => {
    const line = /`(npx demarkus-broker token [^`]+)`/.exec(readme)?.[1];
    assert.ok(line, 'the README gives the token command');
    const minted = await shell(t.signal, local(line));
    assert.equal(minted.code, 0, minted.stderr);
    const token = minted.stdout.trim();
    assert.match(token, /^ey[\w-]+\.[\w-]+\.[\w-]+$/);
    const worlds = text(await (await mcpClient(token)).callTool({ name: 'mark_worlds', arguments: {} }));
    assert.match(worlds, /team-a/);
  });

  it('Signing in: login prints a URL and a code, the browser confirms it at the development IdP, whoami names you', async (t) => {
    const [login, whoami, accessToken] = sectionCommands('Signing in').map(withoutComment);
    assert.match(login!, /^npx demarkus-broker login --issuer http:\/\/127\.0\.0\.1:8080$/);
    let approved: Promise<unknown> | undefined;
    const signedIn = await shell(t.signal, local(login!), (line) => {
      const complete = /\(or open (\S+)\)/.exec(line);
      if (complete === null) return;
      approved = (async () => {
        const agent = new UserAgent();
        const device = await agent.go(complete[1]!);
        assert.match(device.html, /demarkus-broker CLI/, 'the device page names the program');
        const idp = await agent.submit(device, {}, 'action=approve');
        const done = await agent.submit(idp, { email: 'newcomer@example.com' });
        assert.match(done.html, /Signed in as newcomer@example\.com/);
      })();
    });
    await approved;
    assert.equal(signedIn.code, 0, signedIn.stderr);
    assert.match(
      signedIn.stdout,
      /^To sign in, open http:\/\/127\.0\.0\.1:\d+\/device and enter the code [A-Z]{4}-[A-Z]{4}$/m,
    );
    assert.match(signedIn.stdout, /Signed in as newcomer@example\.com\. Tokens saved to /);
    const kept = join(home, 'demarkus-broker', 'credentials.json');
    assert.equal((await stat(kept)).mode & 0o777, 0o600, 'kept with mode 0600');

    const who = await shell(t.signal, whoami!);
    assert.equal(who.code, 0, who.stderr);
    assert.match(who.stdout, /newcomer@example\.com/);
    const fresh = await shell(t.signal, withoutComment(accessToken!));
    assert.equal(fresh.code, 0, fresh.stderr);
    signedInToken = fresh.stdout.trim();
    const worlds = text(await (await mcpClient(signedInToken)).callTool({ name: 'mark_worlds', arguments: {} }));
    assert.match(worlds, /root/);
  });

  it('Signing in: a code denied in the browser ends login with what happened and how to retry', async (t) => {
    const [login] = sectionCommands('Signing in').map(withoutComment);
    let denied: Promise<unknown> | undefined;
    const run = await shell(t.signal, local(login!), (line) => {
      const complete = /\(or open (\S+)\)/.exec(line);
      if (complete !== null)
        denied = (async () => {
          const agent = new UserAgent();
          const page = await agent.submit(await agent.go(complete[1]!), {}, 'action=deny');
          assert.match(page.html, /Request denied/);
        })();
    });
    await denied;
    assert.equal(run.code, 1);
    assert.match(
      run.stderr,
      /^demarkus-broker login: sign-in was denied in the browser \(someone chose "Deny"\); run demarkus-broker login --issuer http:\/\/127\.0\.0\.1:\d+ again to retry\n$/,
    );
  });

  it('Talking to a world: each mark command prints the status and metadata, a blank line and the body', async (t) => {
    const [fetchIndex, fetchSection, list, lookup, publish] = sectionCommands('Talking to a world');
    const index = await shell(t.signal, local(fetchIndex!));
    assert.equal(index.code, 0, index.stderr);
    assert.match(index.stdout, /^status: ok\n(?:[\w-]+: .*\n)*\n# /);
    const section = await shell(t.signal, local(fetchSection!));
    assert.equal(section.code, 0, section.stderr);
    assert.match(section.stdout, /\n\n## Decision\b/, 'the #anchor selects one section');
    assert.ok(section.stdout.length < index.stdout.length + 10_000);
    const listed = await shell(t.signal, local(list!));
    assert.equal(listed.code, 0, listed.stderr);
    assert.match(listed.stdout, /^status: ok\n[\s\S]*0001-quic\.md/);
    const found = await shell(t.signal, local(lookup!));
    assert.equal(found.code, 0, found.stderr);
    assert.match(found.stdout, /^status: ok\n/);
    assert.match(found.stdout, /auth/i);
    // Without --ca the self-signed certificate is refused, and the message says which flag to add.
    const untrusted = await shell(t.signal, local(fetchIndex!.replace(/ --ca \S+/, '')));
    assert.equal(untrusted.code, 1);
    assert.match(untrusted.stderr, /not trusted here\. For the worlds of npm start pass --ca data\/tls\/cert\.pem/);
    assert.match(untrusted.stderr, /--insecure/);
    const published = await shell(t.signal, local(publish!));
    assert.equal(published.code, 0, published.stderr);
    assert.match(published.stdout, /^status: created\n[\s\S]*version: 1\b/);
    // Run twice, --expected-version 0 refuses to overwrite what the first run made.
    const again = await shell(t.signal, local(publish!));
    assert.match(again.stdout, /^status: conflict\n/);
  });

  it('Running a world server: world token prints the raw token once and the tokens.toml entry', async (t) => {
    const mint = sectionCommands('Running a world server').find((line) => line.includes('world token'));
    assert.ok(mint);
    const minted = await shell(t.signal, mint);
    assert.equal(minted.code, 0, minted.stderr);
    assert.match(minted.stdout, /\[tokens\.[^\]]+\]|\[\[tokens\]\]|^\[/m);
    assert.match(minted.stdout, /alice/);
    assert.match(minted.stdout, /\/docs\/\*\*/);
  });

  it('Other commands: search, crawl and doctor answer as the README says', async (t) => {
    const others = sectionCommands('Other commands').map(withoutComment);
    const search = others.find((line) => line.includes(' search '))!;
    const results = await shell(t.signal, local(search.replace('<mcp token>', signedInToken)));
    assert.equal(results.code, 0, results.stderr);
    assert.match(results.stdout, /mark:\/\/\S+\.md/, 'ranked results name documents by mark:// URL');
    assert.match(results.stdout, /refresh/i);
    // Without --token, search uses the sign-in that login kept.
    const unsigned = await shell(t.signal, local(search.replace(/ --token <mcp token>/, '')));
    assert.equal(unsigned.code, 0, unsigned.stderr);
    assert.match(unsigned.stdout, /mark:\/\/\S+\.md/);
    // A wrong token: the broker's own reason, not a bare status.
    const wrong = await shell(t.signal, local(search.replace('<mcp token>', 'not-a-token')));
    assert.equal(wrong.code, 1);
    assert.match(
      wrong.stderr,
      /^demarkus-broker search: the broker refused the token \(HTTP 401: [^)]+\); sign in again \(demarkus-broker login\) or pass a fresh token with --token\n$/,
    );
    // An expired token (signed with npm start's key ten minutes ago, beyond the clock tolerance):
    // the broker's "bearer token expired" reaches the person.
    const claims = decodeJwt(devToken);
    const stale = await mintBrokerToken({
      key: loadSigningKey(await readFile(join(copy, 'data', 'broker', 'signing-key.pem'), 'utf8')),
      issuer: String(claims.iss),
      audience: claims.aud as string,
      email: 'newcomer@example.com',
      ttlSeconds: 60,
      now: () => new Date(Date.now() - 10 * 60_000),
    });
    const expired = await shell(t.signal, local(search.replace('<mcp token>', stale)));
    assert.equal(expired.code, 1);
    assert.match(expired.stderr, /the broker refused the token \(HTTP 401: bearer token expired\)/);

    const crawl = others.find((line) => line.includes(' crawl '))!;
    const crawled = await shell(t.signal, local(crawl));
    assert.equal(crawled.code, 0, `${crawled.stdout}\n${crawled.stderr}`);
    assert.match(crawled.stdout, /graph\.md/);
    // From the copy's root, crawl finds npm start's configuration by itself.
    const again = await shell(t.signal, local(crawl.replace(/ --config \S+/, '')));
    assert.equal(again.code, 0, `${again.stdout}\n${again.stderr}`);

    // Without --token, as the README shows it: doctor uses the sign-in login kept.
    const doctor = others.find((line) => / doctor( |$)/.test(line))!;
    const report = await shell(t.signal, local(doctor));
    assert.equal(report.code === 0 || report.code === 1, true, report.stderr);
    assert.match(report.stdout, /duplicate|orphan|broken/i);
  });

  it('Signing in, later: logout revokes and forgets the tokens, and whoami then says to run login', async (t) => {
    const out = await shell(t.signal, 'npx demarkus-broker logout');
    assert.equal(out.code, 0, out.stderr);
    assert.match(out.stdout, /^Signed out of http:\/\/127\.0\.0\.1:\d+: /);
    const who = await shell(t.signal, 'npx demarkus-broker whoami --access-token');
    assert.equal(who.code, 1);
    assert.equal(who.stdout, '', 'nothing a $(...) could take for a token');
    assert.match(
      who.stderr,
      /^demarkus-broker whoami: not signed in to http:\/\/127\.0\.0\.1:\d+; run demarkus-broker login/,
    );
  });

  it('npm start logged its activity as one JSON format, with no EBADENGINE noise', () => {
    assert.doesNotMatch(stackLog + banner, /EBADENGINE/);
    const lines = stackLog.split('\n').filter((line) => line.startsWith('{'));
    assert.ok(lines.length > 0, stackLog);
    for (const line of lines) assert.equal(typeof (JSON.parse(line) as { level: unknown }).level, 'string', line);
  });
});
