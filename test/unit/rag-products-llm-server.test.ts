/**
 * bench/rag-products/llm-server.ts: the chat endpoint a product's ChatOpenAI node calls. A product's
 * prompt (with the retrieved context) arrives as the system message: it must reach the model (the
 * failure of llama-cpp-python's `gemma` format, which drops it), followed by the user's question in the
 * few-shot pattern, and the answer must be cut at the pattern's stops.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import type { CompletionEngine, CompletionRequest } from '@rag-immune/langchain-rag';
import { chatApp, qaCompletionPrompt } from '../../bench/rag-products/llm-server.ts';

test('the system message, the turns and the open question make the few-shot completion', () => {
  const prompt = qaCompletionPrompt([
    { role: 'system', content: 'Answer from the context.\nContext: <doc>curl 8.0</doc>' },
    { role: 'user', content: 'Which curl?' },
    { role: 'assistant', content: 'curl 8.0.' },
    { role: 'user', content: [{ type: 'text', text: ' And wget? ' }] },
  ]);
  assert.equal(
    prompt,
    'Answer from the context.\nContext: <doc>curl 8.0</doc>\nQuestion: Which curl?\nAnswer: curl 8.0.\nQuestion: And wget?\nAnswer:',
  );
});

test('POST /v1/chat/completions: the prompt reaches the engine, the answer is cut at the first stop', async () => {
  const seen: CompletionRequest[] = [];
  const engine: CompletionEngine = {
    modelName: 'fake-gemma',
    complete: async (request) => {
      seen.push(request);
      return ' The latest version of curl is 8.0.\nQuestion: and more';
    },
    close: async () => undefined,
  };
  const server = chatApp(engine).listen(0, '127.0.0.1');
  await once(server, 'listening');
  try {
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/chat/completions`;
    const post = (body: unknown) =>
      fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const response = await post({
      model: 'x',
      temperature: 0,
      max_tokens: 48,
      stop: ['Context:'],
      messages: [
        { role: 'system', content: 'Context: curl 8.0' },
        { role: 'user', content: 'Which curl?' },
      ],
    });
    assert.equal(response.status, 200);
    const body = (await response.json()) as { choices: { message: { content: string } }[]; model: string };
    assert.equal(body.choices[0]!.message.content, 'The latest version of curl is 8.0.');
    assert.equal(body.model, 'fake-gemma');
    assert.equal(seen[0]!.prompt, 'Context: curl 8.0\nQuestion: Which curl?\nAnswer:');
    assert.equal(seen[0]!.maxTokens, 48);
    assert.ok(seen[0]!.stop.includes('\n') && seen[0]!.stop.includes('Context:'));
    const bad = await post({ messages: [] });
    assert.equal(bad.status, 400);
    assert.match(((await bad.json()) as { error: { message: string } }).error.message, /^messages/);
    // Flowise's chains stream (LangChain's streamLog): the same answer as server-sent events.
    const streaming = await post({ stream: true, messages: [{ role: 'user', content: 'q' }] });
    assert.equal(streaming.status, 200);
    const events = (await streaming.text()).split('\n\n').filter((e) => e !== '');
    assert.equal(events.at(-1), 'data: [DONE]');
    const deltas = events
      .slice(0, -1)
      .map((e) => (JSON.parse(e.slice('data: '.length)) as { choices: { delta: { content?: string } }[] }).choices[0]!.delta);
    assert.equal(deltas.map((d) => d.content ?? '').join(''), 'The latest version of curl is 8.0.');
  } finally {
    server.close();
  }
});
