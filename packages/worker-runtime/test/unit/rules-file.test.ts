import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { loadRulesFile, parseRulesText, type RulesFileIssue } from '../../src/index.ts';

const Schema = z
  .object({ version: z.string().regex(/^v\d+$/), rules: z.array(z.object({ id: z.string(), weight: z.number() }).strict()).min(1) })
  .strict();
class Refused extends Error {
  constructor(readonly issues: RulesFileIssue[]) {
    super(issues.map((i) => `line ${i.line} (${i.path}): ${i.message}`).join('; '));
  }
}
const refuse = (issues: RulesFileIssue[]) => new Refused(issues);
const issuesOf = (run: () => unknown): RulesFileIssue[] => {
  try {
    run();
  } catch (error) {
    assert.ok(error instanceof Refused, String(error));
    return error.issues;
  }
  throw new Error('accepted');
};

test('a valid file parses to the schema’s value, YAML or JSON', () => {
  assert.deepEqual(parseRulesText('version: v1\nrules:\n  - { id: a, weight: 1 }\n', Schema, refuse), {
    version: 'v1',
    rules: [{ id: 'a', weight: 1 }],
  });
  assert.deepEqual(parseRulesText('{"version":"v2","rules":[{"id":"b","weight":2}]}', Schema, refuse, 'json').version, 'v2');
});

test('an off-schema value is refused at its own line, with its key path', () => {
  const yaml = ['version: v1', 'rules:', '  - id: a', '    weight: 1', '  - id: b', "    weight: 'heavy'"].join('\n');
  assert.deepEqual(
    issuesOf(() => parseRulesText(yaml, Schema, refuse)).map((i) => [i.line, i.path]),
    [[6, 'rules.1.weight']],
  );
  const json = JSON.stringify({ version: 'one', rules: [{ id: 'a', weight: 1 }] }, null, 2);
  assert.deepEqual(
    issuesOf(() => parseRulesText(json, Schema, refuse, 'json')).map((i) => [i.line, i.path]),
    [[2, 'version']],
  );
});

test('a syntax error, a JSON file that is only YAML, and an unreadable file are refused too', () => {
  assert.ok(issuesOf(() => parseRulesText('version: v1\nrules: [\n', Schema, refuse))[0]!.line > 0);
  assert.match(issuesOf(() => parseRulesText('version: v1\nrules: []\n', Schema, refuse, 'json'))[0]!.message, /^not JSON/);
  const missing = join(mkdtempSync(join(tmpdir(), 'rules-file-')), 'absent.yaml');
  assert.deepEqual(
    issuesOf(() => loadRulesFile(missing, Schema, refuse)).map((i) => [i.line, /^cannot read/.test(i.message)]),
    [[0, true]],
  );
  const present = join(mkdtempSync(join(tmpdir(), 'rules-file-')), 'rules.yaml');
  writeFileSync(present, 'version: v3\nrules:\n  - { id: c, weight: 3 }\n');
  assert.equal(loadRulesFile(present, Schema, refuse).version, 'v3');
});
