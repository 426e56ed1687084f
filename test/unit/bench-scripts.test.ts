/**
 * `npm run bench:<name>` with no flags reproduces what bench/<name>/RESULTS.md records: every
 * recorded `bench/<name>/run.ts` invocation is one of the script's commands, and no recorded
 * command passes flags through `npm run bench:<name> -- ...`.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));
const scripts = (JSON.parse(readFileSync(`${root}package.json`, 'utf8')) as { scripts: Record<string, string> }).scripts;
const normalise = (command: string) => command.replace(/\s+/g, ' ').trim();

for (const name of readdirSync(`${root}bench`)) {
  const results = `${root}bench/${name}/RESULTS.md`;
  if (!existsSync(results) || scripts[`bench:${name}`] === undefined) continue;
  test(`npm run bench:${name} reproduces bench/${name}/RESULTS.md`, () => {
    const text = readFileSync(results, 'utf8');
    const script = scripts[`bench:${name}`]!;
    const commands = new Set(script.split('&&').map((part) => normalise(part.replace(/^\s*(npx )?tsx /, ''))));
    assert.doesNotMatch(text, new RegExp(`npm run bench:${name} -- -`), 'RESULTS.md records flags passed through npm run');
    const recorded = [...text.matchAll(new RegExp(`bench/${name}/run\\.ts[^\\n\`#|)]*`, 'g'))]
      .map((match) => normalise(match[0]))
      // A bare mention of the file in prose is not an invocation.
      .filter((command) => command !== `bench/${name}/run.ts`);
    for (const command of recorded) assert.ok(commands.has(command), `"${command}" is not one of bench:${name}'s commands: ${script}`);
  });
}
