import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { CommanderError } from 'commander';
import type { FcsInput, FcsResult } from '@rag-immune/fcs';
import { DEFAULT_MODEL_PATH } from '@rag-immune/fcs';
import type { FcsCommandDeps, FcsScorerLike } from '../../src/commands/fcs.ts';
import { fcsCommand } from '../../src/commands/fcs.ts';
import { CliError, ExitCode } from '../../src/exit-codes.ts';

const dir = mkdtempSync(join(tmpdir(), 'fcs-cli-'));
const fakeModel = join(dir, 'model.onnx');
writeFileSync(fakeModel, 'not a real model; the fake scorer never opens it');

/** Scores "yes" answers 0.9 and anything else 0.1; no_evidence when evidence is empty. */
class FakeScorer implements FcsScorerLike {
  readonly executionProvider = 'fake';
  batches: number[] = [];
  async scoreMany(inputs: readonly FcsInput[]): Promise<FcsResult[]> {
    this.batches.push(inputs.length);
    return inputs.map((input) => {
      const empty = Array.isArray(input.evidence) ? input.evidence.length === 0 : input.evidence.trim() === '';
      const score = empty ? null : input.answer.startsWith('yes') ? 0.9 : 0.1;
      return {
        status: empty ? 'no_evidence' : 'scored',
        score,
        model_probability: score,
        label: score === null ? null : score >= 0.5 ? 'consistent' : 'inconsistent',
        threshold: 0.5,
        evidence_snippets: empty
          ? []
          : [{ passage_id: 'p0', text: 'evidence', stance: score! >= 0.5 ? 'supports' : 'contradicts', probability: score! }],
        key_fact_findings: [],
        truncated: false,
        latency_ms: 1.234,
        execution_provider: 'fake',
        cached: false,
        windows: empty ? 0 : 1,
      } satisfies FcsResult;
    });
  }
}

function sink(): { stream: Writable & { isTTY?: boolean }; text: () => string } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      chunks.push(chunk.toString());
      done();
    },
  });
  return { stream, text: () => chunks.join('') };
}

async function run(args: string[], stdinText?: string, scorer = new FakeScorer()) {
  const stdout = sink();
  const stderr = sink();
  const stdin = new PassThrough();
  stdin.end(stdinText ?? '');
  const deps: FcsCommandDeps = { createScorer: async () => scorer, stdin, stdout: stdout.stream, stderr: stderr.stream };
  const command = fcsCommand(deps);
  // As main.ts does: every level throws instead of exiting.
  for (const c of [command, ...command.commands])
    c.exitOverride().configureOutput({ writeErr: () => undefined, writeOut: () => undefined });
  await command.parseAsync(['score', ...args], { from: 'user' });
  return {
    stdout: stdout.text(),
    stderr: stderr.text(),
    lines: stdout
      .text()
      .trim()
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, unknown>),
  };
}

const triple = (answer: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ question: 'q?', evidence: ['some evidence'], answer, ...extra });

test('scores a JSONL file: one line per triple, in order, with the contract fields, and a labelled summary', async () => {
  const file = join(dir, 'in.jsonl');
  writeFileSync(
    file,
    [triple('yes it is', { id: 'a', label: 1 }), '', triple('no', { label: 'inconsistent' }), triple('yes', { label: 0 })].join('\n'),
  );
  const scorer = new FakeScorer();
  const out = await run([file, '--model', fakeModel, '--batch-size', '2'], undefined, scorer);
  assert.deepEqual(
    out.lines.map((l) => [l.line, l.score, l.label]),
    [
      [1, 0.9, 'consistent'],
      [3, 0.1, 'inconsistent'],
      [4, 0.9, 'consistent'],
    ],
  );
  assert.equal(out.lines[0]!.id, 'a');
  for (const key of ['status', 'score', 'label', 'evidence_snippets', 'truncated', 'latency_ms']) assert.ok(key in out.lines[0]!, key);
  assert.ok(!('key_fact_findings' in out.lines[0]!), 'compact unless --json');
  assert.deepEqual(scorer.batches, [2, 1]);
  assert.match(out.stderr, /3 scored \(2 consistent, 1 inconsistent/);
  assert.match(out.stderr, /labelled 3: accuracy 0\.6667/);
});

test('reads stdin when the file is omitted or "-"; --json adds the findings', async () => {
  for (const args of [[], ['-']]) {
    const out = await run([...args, '--model', fakeModel, '--json'], `${triple('yes')}\n`);
    assert.equal(out.lines.length, 1);
    assert.ok('key_fact_findings' in out.lines[0]!);
    assert.equal(out.lines[0]!.execution_provider, 'fake');
  }
});

test('a triple without evidence is reported as no_evidence, with no score', async () => {
  const out = await run(['--model', fakeModel], JSON.stringify({ question: 'q', evidence: [], answer: 'yes' }));
  assert.equal(out.lines[0]!.status, 'no_evidence');
  assert.equal(out.lines[0]!.score, null);
  assert.match(out.stderr, /1 no_evidence/);
});

test('a bad line stops with exit 65 naming the line number', async () => {
  await assert.rejects(
    run(['--model', fakeModel], `${triple('yes')}\n{not json\n`),
    (e: unknown) => e instanceof CliError && e.exitCode === ExitCode.dataError && /line 2: invalid JSON/.test(e.message),
  );
  await assert.rejects(
    run(['--model', fakeModel], `${JSON.stringify({ question: 'q', answer: 'x' })}\n`),
    (e: unknown) => e instanceof CliError && e.exitCode === 65 && /line 1: .*evidence/.test(e.message),
  );
});

test('--skip-invalid reports bad lines on stderr and carries on', async () => {
  const out = await run(['--model', fakeModel, '--skip-invalid'], `${triple('yes')}\n{not json\n${triple('no')}\n`);
  assert.deepEqual(
    out.lines.map((l) => l.line),
    [1, 3],
  );
  assert.match(out.stderr, /skipped line 2: invalid JSON/);
  assert.match(out.stderr, /1 skipped/);
});

test('a missing input file or model is exit 66; a bad threshold is a usage error', async () => {
  await assert.rejects(
    run([join(dir, 'absent.jsonl'), '--model', fakeModel]),
    (e: unknown) => e instanceof CliError && e.exitCode === ExitCode.noInput,
  );
  await assert.rejects(
    run(['--model', join(dir, 'absent.onnx')], ''),
    (e: unknown) => e instanceof CliError && e.exitCode === 66 && /model not found/.test(e.message),
  );
  for (const threshold of ['1.5', 'abc', '-0.1']) {
    await assert.rejects(
      run(['--threshold', threshold, '--model', fakeModel], ''),
      (e: unknown) => e instanceof CommanderError && e.code === 'commander.invalidArgument',
    );
  }
});

// End to end through bin/immune.js with the real model: runs once the lead has wired `fcs` into main.ts
// and the model has been exported.
const bin = fileURLToPath(new URL('../../bin/immune.js', import.meta.url));
const wired = readFileSync(fileURLToPath(new URL('../../src/main.ts', import.meta.url)), 'utf8').includes('fcsCommand');
const e2eSkip = !wired
  ? 'fcs is not wired into apps/cli/src/main.ts yet'
  : !existsSync(DEFAULT_MODEL_PATH)
    ? `no model at ${DEFAULT_MODEL_PATH}`
    : false;
test('immune fcs score end to end with the INT8 model', { skip: e2eSkip, timeout: 60_000 }, () => {
  const file = join(dir, 'e2e.jsonl');
  const evidence = ['xcb-util (0.3.3-2) was uploaded to unstable with low urgency by Julien Danjou on 15 February 2009.'];
  writeFileSync(
    file,
    [
      JSON.stringify({
        question: 'Who uploaded xcb-util 0.3.3-2?',
        evidence,
        answer: 'Julien Danjou uploaded xcb-util 0.3.3-2 on 15 February 2009.',
      }),
      JSON.stringify({
        question: 'Who uploaded xcb-util 0.3.3-2?',
        evidence,
        answer: 'Julien Danjou uploaded xcb-util 0.3.3-2 on 15 February 2019.',
      }),
    ].join('\n'),
  );
  const result = spawnSync(process.execPath, [bin, 'fcs', 'score', file], { encoding: 'utf8', timeout: 60_000 });
  assert.equal(result.status, 0, result.stderr);
  const lines = result.stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { label: string });
  assert.deepEqual(
    lines.map((l) => l.label),
    ['consistent', 'inconsistent'],
  );
});

test('a triple without a question is scored with a warning naming its line; --no-question silences it', async () => {
  const input = [triple('yes'), JSON.stringify({ evidence: ['some evidence'], answer: 'yes' }), triple('no', { question: '  ' })].join(
    '\n',
  );
  const warned = await run(['--model', fakeModel], input);
  assert.equal(warned.lines.length, 3);
  assert.match(warned.stderr, /warning: line 2: no question/);
  assert.match(warned.stderr, /warning: line 3: no question/);
  assert.doesNotMatch(warned.stderr, /line 1: no question/);
  assert.match(warned.stderr, /2 without a question/);
  const quiet = await run(['--model', fakeModel, '--no-question'], input);
  assert.equal(quiet.lines.length, 3);
  assert.doesNotMatch(quiet.stderr, /no question/);
});

test('a triple without evidence is refused with "evidence: required"', async () => {
  await assert.rejects(
    run(['--model', fakeModel], `${JSON.stringify({ question: 'q', answer: 'x' })}\n`),
    (e: unknown) => e instanceof CliError && /line 1: .*evidence: required/.test(e.message),
  );
});
