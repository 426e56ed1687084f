/**
 * Simulated users from the command line, for benches and the demo:
 *
 *   npx tsx packages/test-kit/src/traffic/run-traffic.ts --url http://127.0.0.1:18400 \
 *     --packages 25 --rate 2 --count 600 --duration-s 300 [--zipf 1] [--paraphrase 0.5] \
 *     [--out-of-knowledge 0.1] [--personal-data 0] [--seed 1] [--in-flight 4]
 *
 * Questions are the reference bank's about the knowledge of the first `--packages` packages (what
 * a reference RAG pair started with that many serves). `RAG_API_TOKEN` is sent as the bearer token
 * when set. Prints one JSON summary line: sent, answered, failed, late, duration, asks per knowledge id.
 */
import { parseArgs } from 'node:util';
import { loadDebianKnowledge, loadQuestions } from '@rag-immune/reference-rag/testing';
import { TrafficGenerator } from './traffic-generator.ts';
import { UserQueryMix } from './user-queries.ts';

const { values } = parseArgs({
  options: {
    url: { type: 'string' },
    packages: { type: 'string', default: '25' },
    rate: { type: 'string', default: '1' },
    count: { type: 'string', default: '100' },
    'duration-s': { type: 'string', default: '300' },
    zipf: { type: 'string', default: '1' },
    paraphrase: { type: 'string', default: '0.5' },
    'out-of-knowledge': { type: 'string', default: '0.1' },
    'personal-data': { type: 'string', default: '0' },
    seed: { type: 'string', default: '1' },
    'in-flight': { type: 'string', default: '4' },
  },
});

function number(name: keyof typeof values): number {
  const value = Number(values[name]);
  if (!Number.isFinite(value)) {
    console.error(`--${name} must be a number, not ${String(values[name])}`);
    process.exit(64);
  }
  return value;
}

if (values.url === undefined) {
  console.error('--url is required: the RAG whose POST /query the simulated users call');
  process.exit(64);
}

const { sources } = loadDebianKnowledge({ packages: number('packages') });
const knowledgeIds = new Set(sources.flatMap((source) => source.recordsPublishedBy(new Date()).map((record) => record.knowledgeId)));
const questions = loadQuestions().filter((q) => knowledgeIds.has(q.knowledge_id));
const token = process.env.RAG_API_TOKEN;
const controller = new AbortController();
process.once('SIGINT', () => controller.abort());
process.once('SIGTERM', () => controller.abort());

try {
  const report = await new TrafficGenerator({
    mix: new UserQueryMix(questions, {
      zipfExponent: number('zipf'),
      paraphraseShare: number('paraphrase'),
      outOfKnowledgeShare: number('out-of-knowledge'),
      personalDataShare: number('personal-data'),
      seed: number('seed'),
    }),
    url: values.url,
    rate: number('rate'),
    maxRequests: number('count'),
    maxDurationMs: number('duration-s') * 1000,
    maxInFlight: number('in-flight'),
    ...(token ? { headers: { authorization: `Bearer ${token}` } } : {}),
    signal: controller.signal,
  }).run();
  console.log(
    JSON.stringify({
      questions: questions.length,
      sent: report.requests.length,
      answered: report.answered,
      failed: report.failed,
      late: report.late,
      duration_ms: report.duration_ms,
      asked: Object.fromEntries([...report.asked.entries()].sort((a, b) => b[1] - a[1])),
    }),
  );
} catch (error) {
  console.error((error as Error).message);
  process.exit(64);
}
