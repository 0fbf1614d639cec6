import { generateKeyPairSync } from 'node:crypto';

/** One P-256 key per test process, PKCS#8 PEM. */
export const signingKey = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({
  type: 'pkcs8',
  format: 'pem',
}) as string;

export const sec1SigningKey = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({
  type: 'sec1',
  format: 'pem',
}) as string;

export const p384Key = generateKeyPairSync('ec', { namedCurve: 'P-384' }).privateKey.export({
  type: 'pkcs8',
  format: 'pem',
}) as string;

/** Environment that supplies the signing key, as the chart does. */
export const env = { BROKER_SIGNING_KEY: signingKey };

/** A minimal valid file-backend config; tests splice lines into it. */
export const fileConfig = `
server:
  addr: ":8080"
  publicURL: https://broker.example.com
storage:
  backend: file
  dir: /var/lib/demarkus-broker
worlds:
  - name: team-a
    tokensFile: /srv/team-a/tokens.toml
    internalAddress: 127.0.0.1:7001
    defaultToken:
      paths: ["/**"]
  - name: team-b
    tokensFile: /srv/team-b/tokens.toml
    internalAddress: 127.0.0.1:7002
    defaultToken:
      paths: ["/**"]
`;

/** A minimal valid kubernetes-backend config (the Go default backend). */
export const kubernetesConfig = `
server:
  addr: ":8080"
  publicURL: https://broker.example.com
  brokerNamespace: demarkus
worlds:
  - name: root
    namespace: root
    tokensSecret: root-tokens
    defaultToken:
      paths: ["/**"]
`;
