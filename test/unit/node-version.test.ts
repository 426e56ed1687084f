/**
 * The pinned Node version (.nvmrc, the root package.json's engines) is one every installed
 * dependency supports: a dependency upgrade that needs a newer Node fails here, not on a user's
 * machine with an engine warning buried in `npm ci` output.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));
const semver = createRequire(import.meta.url)('semver') as {
  satisfies(version: string, range: string): boolean;
  minVersion(range: string): { version: string } | null;
};

const manifest = JSON.parse(readFileSync(`${root}package.json`, 'utf8')) as { engines: { node: string } };
const lock = JSON.parse(readFileSync(`${root}package-lock.json`, 'utf8')) as {
  packages: Record<string, { version?: string; engines?: { node?: string } | string[] }>;
};
const nvmrc = readFileSync(`${root}.nvmrc`, 'utf8').trim();

test('.nvmrc pins the Node line of the oldest version the engines allow', () => {
  assert.match(nvmrc, /^\d+$/);
  assert.ok(
    semver.satisfies(semver.minVersion(manifest.engines.node)!.version, `${nvmrc}.x`),
    `engines ${manifest.engines.node} vs .nvmrc ${nvmrc}`,
  );
});

test('every locked dependency supports the oldest Node the engines allow', () => {
  const oldest = semver.minVersion(manifest.engines.node)!.version;
  const unsupported = Object.entries(lock.packages)
    .filter(([path, entry]) => path !== '' && entry.engines !== undefined && !Array.isArray(entry.engines) && entry.engines.node)
    .filter(([, entry]) => !semver.satisfies(oldest, (entry.engines as { node: string }).node))
    .map(
      ([path, entry]) => `${path.replace(/^.*node_modules\//, '')}@${entry.version} needs node ${(entry.engines as { node: string }).node}`,
    );
  assert.deepEqual(unsupported, [], `Node ${oldest} (engines ${manifest.engines.node}) is not supported by every dependency`);
});
