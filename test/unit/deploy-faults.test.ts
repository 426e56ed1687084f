/**
 * The prompt-regressed fault (issue 27) as the trial injects it: no fault API, the online RAG
 * redeployed with a regressed prompt version the LangChain RAG really has, global (every probe goes
 * through the generator), and refused where the pair cannot redeploy.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PROMPTS } from '@rag-immune/langchain-rag';
import { REGRESSED_PROMPTS, deployedSettings } from '@rag-immune/test-kit/loop/deploy-faults';
import { expectationOf } from '@rag-immune/test-kit/loop/faults';
import { OPERATOR_FAULT_KINDS, QDRANT_FAULT_KINDS, isOperatorFault } from '@rag-immune/test-kit/loop/operator-faults';
import { injectFault, type TrialContext } from '@rag-immune/test-kit/loop/trial';
import type { LoopProbes } from '@rag-immune/test-kit/loop/probes';
import type { LoopRecorder } from '@rag-immune/test-kit/loop/timeline';

const probes = {
  probes: [
    { id: 'p1', expected_sources: ['changelog/acl'] },
    { id: 'p2', expected_sources: ['apt/curl'] },
  ],
  changedSinceStale: new Set<string>(),
  tokenizerTouched: new Set<string>(),
} as unknown as LoopProbes;

function context(redeployOnline?: TrialContext['redeployOnline']): TrialContext {
  return {
    onlineUrl: 'http://127.0.0.1:1',
    recorder: {} as LoopRecorder,
    probes,
    probeIntervalMs: 1000,
    ...(redeployOnline ? { redeployOnline } : {}),
  };
}

test('prompt-regressed is an operator fault, not a Qdrant write; its modes are regressed prompts the LangChain RAG has', () => {
  assert.ok(isOperatorFault('prompt-regressed'));
  assert.ok(OPERATOR_FAULT_KINDS.includes('prompt-regressed'));
  assert.ok(!(QDRANT_FAULT_KINDS as readonly string[]).includes('prompt-regressed'));
  const expectation = expectationOf('prompt-regressed');
  assert.deepEqual(expectation.modes, [...REGRESSED_PROMPTS]);
  assert.equal(expectation.cause, 'generator_inconsistency');
  for (const mode of expectation.modes) assert.ok(mode in PROMPTS, mode);
  assert.ok(!(expectation.modes as string[]).includes('few-shot-v1'));
});

test('injecting it redeploys the online RAG with the regressed prompt, and touches every probe', async () => {
  const deployed: Record<string, string>[] = [];
  const injected = await injectFault(
    context(async (env) => void deployed.push(env)),
    { kind: 'prompt-regressed', mode: 'zero-shot-v2' },
  );
  assert.deepEqual(deployed, [{ LLM_PROMPT_VERSION: 'zero-shot-v2' }]);
  assert.equal(injected.affectedKnowledgeIds, null);
  assert.deepEqual(injected.touched.sort(), ['p1', 'p2']);
  assert.equal(injected.body.mode, 'zero-shot-v2');
});

test('without a redeploy hook, or with a mode that is no regressed prompt, it refuses', async () => {
  await assert.rejects(injectFault(context(), { kind: 'prompt-regressed' }), /needs redeployOnline/);
  assert.throws(() => deployedSettings('prompt-regressed', 'few-shot-v1'), /not a regressed prompt/);
});
