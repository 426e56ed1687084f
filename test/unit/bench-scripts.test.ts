/**
 * `npm run bench:<name>` with no flags reproduces what bench/<name>/RESULTS.md records: every
 * recorded `bench/<name>/run.ts` invocation is one of the script's commands, and no recorded
 * command passes flags through `npm run bench:<name> -- ...`.
 *
 * A matrix longer than one session is accumulated run by run (bench/traffic): its RESULTS.md is
 * rendered by `npm run bench:<name>:merge` from the runs kept under bench/<name>/runs/, says so,
 * and then every run.ts invocation it records must be one of those kept runs' own commands (their
 * run.json), so each figure still traces to a real invocation.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));
const scripts = (JSON.parse(readFileSync(`${root}package.json`, 'utf8')) as { scripts: Record<string, string> }).scripts;
const normalise = (command: string) => command.replace(/\s+/g, ' ').trim();

for (const name of readdirSync(`${root}bench`)) {
  const results = `${root}bench/${name}/RESULTS.md`;
  if (!existsSync(results) || scripts[`bench:${name}`] === undefined) continue;
  test(`npm run bench:${name} reproduces bench/${name}/RESULTS.md`, () => {
    const text = readFileSync(results, 'utf8');
    const merge = scripts[`bench:${name}:merge`];
    const merged = merge !== undefined && merge.split('&&').some((part) => text.includes(normalise(part.replace(/^\s*(npx )?tsx /, ''))));
    const script = merged ? merge : scripts[`bench:${name}`]!;
    const commands = new Set(
      merged
        ? keptRunCommands(`${root}bench/${name}/runs`)
        : script.split('&&').map((part) => normalise(part.replace(/^\s*(npx )?tsx /, ''))),
    );
    assert.doesNotMatch(text, new RegExp(`npm run bench:${name} -- -`), 'RESULTS.md records flags passed through npm run');
    const recorded = [...text.matchAll(new RegExp(`bench/${name}/run\\.ts[^\\n\`#|)]*`, 'g'))]
      .map((match) => normalise(match[0]))
      // A bare mention of the file in prose is not an invocation.
      .filter((command) => command !== `bench/${name}/run.ts`);
    for (const command of recorded)
      assert.ok(
        commands.has(command),
        merged
          ? `"${command}" is no kept run's command under bench/${name}/runs/`
          : `"${command}" is not one of bench:${name}'s commands: ${script}`,
      );
  });
}

/** The commands of the runs kept under `dir` (each `<stamp>/run.json`'s `command`, without `npx tsx`). */
function keptRunCommands(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(join(dir, entry.name, 'run.json')))
    .map((entry) => (JSON.parse(readFileSync(join(dir, entry.name, 'run.json'), 'utf8')) as { command: string }).command)
    .map((command) => normalise(command.replace(/^\s*(npx )?tsx /, '')));
}
