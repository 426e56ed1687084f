import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { CompletionEngine, CompletionRequest } from '../../src/generation/completion-engine.ts';
import { SamplingLlm, SeedSequence } from '../../src/generation/sampling-llm.ts';

/** An engine that records what it was asked and writes past the answer, as the real model does. */
class RecordingEngine implements CompletionEngine {
  readonly modelName = 'fake-gguf';
  readonly requests: CompletionRequest[] = [];
  constructor(private readonly written: string) {}
  async complete(request: CompletionRequest): Promise<string> {
    this.requests.push(request);
    return this.written;
  }
  async close(): Promise<void> {}
}

const llmOver = (engine: CompletionEngine, seeds = new SeedSequence(41)) =>
  new SamplingLlm({ engine, temperature: 0.7, topP: 0.9, maxTokens: 32, seeds });

test('every call samples with a new seed at the configured temperature', async () => {
  const engine = new RecordingEngine(' acl 2.3.1-3.');
  const llm = llmOver(engine);
  await llm.invoke('prompt one');
  await llm.invoke('prompt one');
  await llm.invoke('prompt two');
  assert.deepEqual(
    engine.requests.map((r) => r.seed),
    [41, 42, 43],
  );
  assert.ok(engine.requests.every((r) => r.temperature === 0.7 && r.topP === 0.9 && r.maxTokens === 32));
});

test('the engine gets the stop sequences, and the answer is cut at them even when the engine ran on', async () => {
  const engine = new RecordingEngine(' The latest version of acl is 2.3.1-3.\nQuestion: Who uploaded acl?\nAnswer:');
  const answer = await llmOver(engine).invoke('prompt', { stop: ['###'] });
  assert.equal(answer, 'The latest version of acl is 2.3.1-3.');
  assert.ok(engine.requests[0]!.stop.includes('\n') && engine.requests[0]!.stop.includes('Question:'));
  assert.ok(engine.requests[0]!.stop.includes('###'));
});

test('a generator that does not sample is refused', () => {
  assert.throws(
    () => new SamplingLlm({ engine: new RecordingEngine(''), temperature: 0, topP: 1, maxTokens: 8, seeds: new SeedSequence(1) }),
    /temperature must be > 0/,
  );
});

test('seeds wrap within 31 bits and two sequences with random starts differ', () => {
  const seeds = new SeedSequence(2 ** 31 - 1);
  assert.deepEqual([seeds.next(), seeds.next()], [2 ** 31 - 1, 0]);
  assert.notEqual(new SeedSequence().next(), new SeedSequence().next());
});

test('the invocation parameters name the model and its sampling settings (they go on the LLM span)', () => {
  assert.deepEqual(llmOver(new RecordingEngine('')).invocationParams(), {
    model: 'fake-gguf',
    temperature: 0.7,
    top_p: 0.9,
    max_tokens: 32,
  });
});
