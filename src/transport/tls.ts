/**
 * Certificates for the listener. Mark SPEC §3.1, §3.3: QUIC with TLS 1.3 only, no plaintext mode;
 * without configured files the server runs on a self-signed development certificate.
 */
import { readFile } from 'node:fs/promises';
import { X509Certificate, createPrivateKey, type KeyObject } from 'node:crypto';
import { isIP } from 'node:net';
import { generate } from 'selfsigned';
import { TlsConfigError } from './errors.ts';
import { loopbackNames } from './loopback.ts';

/** A PEM private key and the PEM certificate chain that goes with it. */
export interface TlsKeyPair {
  key: string;
  cert: string;
}

export interface DevCertificateOptions {
  /** Extra DNS names or IP addresses, on top of localhost, 127.0.0.1 and ::1. */
  hostNames?: readonly string[];
  /** Validity from now; default 365 days. */
  validDays?: number;
}

const dnsNameType = 2;
const ipAddressType = 7;

/**
 * Makes a self-signed EC P-256 certificate (the curve quiche accepts everywhere)
 * whose subject alternative names cover loopback and the given host names.
 */
export async function generateDevCertificate(options: DevCertificateOptions = {}): Promise<TlsKeyPair> {
  const names = [...new Set([...loopbackNames, ...(options.hostNames ?? [])].map(normaliseName))];
  const notBeforeDate = new Date(Date.now() - 60_000);
  const notAfterDate = new Date(notBeforeDate.getTime() + (options.validDays ?? 365) * 86_400_000);
  const pems = await generate([{ name: 'commonName', value: names.find((n) => isIP(n) === 0) ?? 'localhost' }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    notBeforeDate,
    notAfterDate,
    // No keyUsage: a self-signed certificate trusted as its own anchor needs
    // keyCertSign in it, or BoringSSL (inside quiche) rejects it (TLS alert unknown_ca).
    extensions: [
      { name: 'extKeyUsage', serverAuth: true },
      { name: 'subjectAltName', altNames: names.map(altNameOf) },
    ],
  });
  return { key: pems.private, cert: pems.cert };
}

function normaliseName(name: string): string {
  const trimmed = name.trim().toLowerCase();
  // `[::1]` is how an IPv6 host appears in an authority; the SAN holds the bare address.
  return trimmed.startsWith('[') && trimmed.endsWith(']') ? trimmed.slice(1, -1) : trimmed;
}

function altNameOf(name: string): { type: 2 | 7; value?: string; ip?: string } {
  return isIP(name) === 0 ? { type: dnsNameType, value: name } : { type: ipAddressType, ip: name };
}

export interface TlsFiles {
  certFile: string;
  keyFile: string;
}

/**
 * Reads a PEM certificate chain and key, and refuses a pair that does not match,
 * so a bad deployment fails at startup rather than at the first handshake.
 */
export async function loadTlsFiles(files: TlsFiles): Promise<TlsKeyPair> {
  // One after the other: with both missing, the error always names the certificate.
  const cert = await readPem(files.certFile, 'certificate');
  const key = await readPem(files.keyFile, 'key');
  checkKeyPair({ key, cert });
  return { key, cert };
}

async function readPem(path: string, part: 'certificate' | 'key'): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (cause) {
    const code = (cause as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new TlsConfigError(`cannot read TLS ${part} file ${path} (${code})`, { part, cause });
  }
}

/** Throws TlsConfigError unless `cert` is a PEM certificate whose public key matches `key`. */
export function checkKeyPair(pair: TlsKeyPair): void {
  let certificate: X509Certificate;
  try {
    certificate = new X509Certificate(pair.cert);
  } catch (cause) {
    throw new TlsConfigError('TLS certificate is not a PEM certificate', { part: 'certificate', cause });
  }
  let privateKey: KeyObject;
  try {
    privateKey = createPrivateKey(pair.key);
  } catch (cause) {
    throw new TlsConfigError('TLS key is not a PEM private key', { part: 'key', cause });
  }
  if (!certificate.checkPrivateKey(privateKey)) {
    throw new TlsConfigError('TLS key does not match the certificate', { part: 'key' });
  }
}
