/**
 * What redacting one traced answer costs the trace intake: the span set the reference RAG exports
 * for one query (CHAIN, EMBEDDING, RETRIEVER with 30 candidates, RERANKER with 30 in and 30 out,
 * LLM), its documents Debian-record-shaped text with a maintainer address each, the query carrying
 * an e-mail address. Prints ms per answer and answers per second on one core.
 *
 *   npx tsx packages/redaction/scripts/answer-redaction-cost.ts [--answers 1000]
 */
import { parseArgs } from 'node:util';
import { redactSpanText, type Attributes, type SpanRecord } from '@rag-immune/traces';
import { defaultRedactor } from '../src/index.ts';

const { values } = parseArgs({ options: { answers: { type: 'string', default: '1000' } } });
const answers = Number(values.answers);

const record = (i: number) =>
  [
    `Package: libexample${i}`,
    `Version: 1.${i}.3-2+deb12u1`,
    `Maintainer: Debian Example Team <pkg-example${i}@lists.debian.org>`,
    `Installed-Size: ${1000 + i * 37}`,
    'Released: 2024-01-30T00:00:00Z',
    `Uploaded by: Jane Maintainer <jane${i}@debian.org>`,
    ` * Fix CVE-2024-${1000 + i}: a NULL dereference in the parser. Closes: #10615${i % 10}`,
  ].join('\n');

function documents(prefix: string, count: number): Attributes {
  const out: Attributes = {};
  for (let i = 0; i < count; i += 1) {
    out[`${prefix}.${i}.document.id`] = `chunk-${i}`;
    out[`${prefix}.${i}.document.score`] = 0.9 - i / 100;
    out[`${prefix}.${i}.document.content`] = record(i);
    out[`${prefix}.${i}.document.metadata`] = JSON.stringify({
      chunk_id: `chunk-${i}`,
      version: `1.${i}.3`,
      updated_at: '2024-01-30T00:00:00Z',
    });
  }
  return out;
}

const query = 'Who maintains libexample3? Reply to someone@example.org please.';
const answer = 'libexample3 is maintained by Debian Example Team <pkg-example3@lists.debian.org>.';
const span = (name: string, attributes: Attributes): SpanRecord => ({
  trace_id: 'ab'.repeat(16),
  span_id: 'cd'.repeat(8),
  parent_span_id: null,
  name,
  kind: 'internal',
  start_ms: 0,
  end_ms: 1,
  status: 'ok',
  attributes,
  dropped_attributes_count: 0,
  events: [],
  resource: { 'service.name': 'reference-rag-online' },
  scope: { name: 'rag', version: '1' },
});
const oneAnswer = [
  span('query', { 'openinference.span.kind': 'CHAIN', 'input.value': query, 'output.value': answer }),
  span('embed', { 'openinference.span.kind': 'EMBEDDING', 'embedding.model_name': 'all-MiniLM-L6-v2' }),
  span('retrieve', { 'openinference.span.kind': 'RETRIEVER', 'input.value': query, ...documents('retrieval.documents', 30) }),
  span('rerank', {
    'openinference.span.kind': 'RERANKER',
    'reranker.query': query,
    ...documents('reranker.input_documents', 30),
    ...documents('reranker.output_documents', 30),
  }),
  span('generate', {
    'openinference.span.kind': 'LLM',
    'llm.input_messages.0.message.content': query,
    'llm.output_messages.0.message.content': answer,
  }),
];

const redactor = defaultRedactor();
const redactAnswer = () => oneAnswer.map((s) => redactSpanText(s, redactor.redactText));
for (let i = 0; i < Math.min(100, answers); i += 1) redactAnswer();
const started = performance.now();
for (let i = 0; i < answers; i += 1) redactAnswer();
const ms = (performance.now() - started) / answers;
const text = JSON.stringify(oneAnswer).length;
console.log(
  JSON.stringify({
    answers,
    spans_per_answer: oneAnswer.length,
    answer_json_bytes: text,
    ms_per_answer: Number(ms.toFixed(3)),
    answers_per_s: Math.round(1000 / ms),
  }),
);
