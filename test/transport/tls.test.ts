import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MarkTransportClient } from '../../src/transport/client.ts';
import { TlsConfigError, TlsHandshakeError } from '../../src/transport/errors.ts';
import type { MarkPeer } from '../../src/transport/peer.ts';
import type { MarkListener } from '../../src/transport/server.ts';
import { generateDevCertificate, loadTlsFiles } from '../../src/transport/tls.ts';
import { authorityOf, devCertificate, echoListener, encoder, text, trustingClient } from './helpers.ts';

describe('server certificate verification (Mark SPEC §3.3: TLS 1.3, verified unless told otherwise)', () => {
  let listener: MarkListener;
  const peers: MarkPeer[] = [];

  before(async () => {
    listener = await echoListener({
      handler: async (_request, peer) => {
        peers.push(peer);
        return encoder.encode('hello');
      },
    });
  });

  after(async () => {
    await listener.close();
  });

  async function ask(client: MarkTransportClient, authority = authorityOf(listener)): Promise<string> {
    try {
      return text(await client.request(authority, encoder.encode('FETCH /\n'), { idempotent: true }));
    } finally {
      await client.close();
    }
  }

  const isHandshakeFailure = (error: unknown): boolean =>
    error instanceof TlsHandshakeError && error.code === 'ERR_TLS_HANDSHAKE';

  it('connects when the CA bundle holds the server certificate', async () => {
    assert.equal(await ask(await trustingClient()), 'hello');
  });

  it('refuses a server whose certificate the CA bundle does not vouch for', async () => {
    const stranger = await generateDevCertificate();
    await assert.rejects(ask(new MarkTransportClient({ ca: stranger.cert })), isHandshakeFailure);
  });

  it('refuses a self-signed server against the system store when no CA is given', async () => {
    await assert.rejects(ask(new MarkTransportClient()), isHandshakeFailure);
  });

  it('refuses a certificate that does not name the server', async () => {
    await assert.rejects(ask(await trustingClient(), authorityOf(listener, 'elsewhere.test')), isHandshakeFailure);
  });

  it('accepts any certificate with insecureSkipVerify', async () => {
    const stranger = await generateDevCertificate();
    const client = new MarkTransportClient({ insecureSkipVerify: true, ca: stranger.cert });
    assert.equal(await ask(client, authorityOf(listener, 'elsewhere.test')), 'hello');
  });
});

describe('TLS SNI (SPEC §3.4: serverName, else the authority host)', () => {
  let listener: MarkListener;
  const names: Array<string | undefined> = [];

  before(async () => {
    listener = await echoListener({
      handler: async (_request, peer) => {
        names.push(peer.serverName);
        return encoder.encode('ok');
      },
    });
  });

  after(async () => {
    await listener.close();
  });

  it('sends the authority host as SNI when the dial address is overridden', async () => {
    names.length = 0;
    const client = await trustingClient();
    try {
      await client.request(
        { host: 'world.test', port: listener.port, dialHost: '127.0.0.1' },
        encoder.encode('FETCH /\n'),
        {
          idempotent: true,
        },
      );
    } finally {
      await client.close();
    }
    assert.deepEqual(names, ['world.test']);
  });

  it('sends the configured serverName instead of the authority host', async () => {
    names.length = 0;
    const client = await trustingClient();
    try {
      await client.request(
        { host: '127.0.0.1', port: listener.port, serverName: 'world.test' },
        encoder.encode('FETCH /\n'),
        { idempotent: true },
      );
    } finally {
      await client.close();
    }
    assert.deepEqual(names, ['world.test']);
  });
});

describe('development certificate', () => {
  it('names loopback and the extra host names in its subject alternative names', async () => {
    const pair = await generateDevCertificate({ hostNames: ['World.Test', '10.1.2.3', '[fd00::1]'] });
    const sans = new X509Certificate(pair.cert).subjectAltName?.split(', ') ?? [];
    assert.deepEqual(
      new Set(sans),
      new Set([
        'DNS:localhost',
        'IP Address:127.0.0.1',
        'IP Address:0:0:0:0:0:0:0:1',
        'DNS:world.test',
        'IP Address:10.1.2.3',
        'IP Address:FD00:0:0:0:0:0:0:1',
      ]),
    );
  });
});

describe('loading certificate files', () => {
  let dir: string;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'mark-tls-'));
  });

  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('loads a matching PEM certificate and key', async () => {
    const pair = await devCertificate();
    await writeFile(join(dir, 'cert.pem'), pair.cert);
    await writeFile(join(dir, 'key.pem'), pair.key);
    assert.deepEqual(await loadTlsFiles({ certFile: join(dir, 'cert.pem'), keyFile: join(dir, 'key.pem') }), pair);
  });

  it('refuses a key that belongs to another certificate', async () => {
    const other = await generateDevCertificate();
    await writeFile(join(dir, 'cert.pem'), (await devCertificate()).cert);
    await writeFile(join(dir, 'other-key.pem'), other.key);
    await assert.rejects(loadTlsFiles({ certFile: join(dir, 'cert.pem'), keyFile: join(dir, 'other-key.pem') }), {
      name: 'TlsConfigError',
      code: 'ERR_TLS_CONFIG',
      message: 'TLS key does not match the certificate',
    });
  });

  it('refuses a file that is not a certificate', async () => {
    await writeFile(join(dir, 'junk.pem'), 'not a certificate');
    await writeFile(join(dir, 'key.pem'), (await devCertificate()).key);
    await assert.rejects(
      loadTlsFiles({ certFile: join(dir, 'junk.pem'), keyFile: join(dir, 'key.pem') }),
      TlsConfigError,
    );
  });

  it('refuses a missing file, naming it', async () => {
    const missing = join(dir, 'missing.pem');
    await assert.rejects(loadTlsFiles({ certFile: missing, keyFile: missing }), (error: unknown) => {
      assert.ok(error instanceof TlsConfigError);
      assert.match(error.message, /missing\.pem/);
      return true;
    });
  });
});
