/**
 * A LangServe route in the rag-products bench: ../langserve/app.py (a retrieval chain over Qdrant, as a
 * LangChain user writes one), in the venv tools/rag-products/install-langserve.sh makes, run twice with
 * uvicorn: online on the RAG's collection, baseline on the baseline alias. Configured by its environment
 * only, as its users deploy it; a prompt change is a redeploy of the online instance with another
 * RAG_PROMPT (same port). Its traces: LangChain's OpenInference instrumentation, the FastAPI
 * instrumentation continuing the caller's trace, exported over OTLP/HTTP to the intake (standard OTEL_* env).
 */
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { join } from 'node:path';
import type { PromptVersion } from '@rag-immune/langchain-rag';
import { repoRoot } from '@rag-immune/stack';
import { freePort } from '@rag-immune/test-kit';
import { responsePrompt, type ProductSetup, type RagProduct, type RunningProduct } from './product.ts';

const root = repoRoot();
const app = join(root, 'bench/rag-products/langserve/app.py');
let python: string | undefined;

/** The route's system prompt for a prompt version: the chain's human message is `{input}`, not `{question}`. */
export function langservePrompt(version: PromptVersion): string {
  return responsePrompt(version).replaceAll('{question}', '{input}');
}

export const langserve: RagProduct = {
  name: 'langserve',
  description: 'LangServe 0.3.3 from PyPI (tools/rag-products/install-langserve.sh), bench/rag-products/langserve/app.py under uvicorn',
  adapterFile: join(root, 'packages/rag-adapter/examples/langserve.yaml'),
  traceRagName: 'langserve',
  install() {
    const out = execFileSync('bash', [join(root, 'tools/rag-products/install-langserve.sh')], { encoding: 'utf8' }).trim();
    python = out.split('\n').at(-1);
  },
  async start(setup: ProductSetup): Promise<RunningProduct> {
    if (python === undefined) throw new Error('langserve: install() first');
    const bin = python;
    const env = (collection: string, port: number, version: PromptVersion, service: string): NodeJS.ProcessEnv => ({
      ...process.env,
      QDRANT_URL: setup.qdrantUrl,
      QDRANT_API_KEY: setup.qdrantApiKey ?? '',
      QDRANT_COLLECTION: collection,
      OPENAI_BASE_URL_LLM: setup.llmBaseUrl,
      OPENAI_BASE_URL_EMBEDDINGS: setup.embeddingsBaseUrl,
      LLM_MODEL: setup.llmModel,
      PORT: String(port),
      RAG_PROMPT: langservePrompt(version),
      OTEL_SERVICE_NAME: service,
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: setup.tracesUrl,
      OTEL_EXPORTER_OTLP_TRACES_HEADERS: `Authorization=Bearer%20${setup.intakeToken}`,
      OTEL_BSP_SCHEDULE_DELAY: '1000',
      PYTHONUNBUFFERED: '1',
    });
    const log = createWriteStream(join(setup.runDir, 'langserve.log'));
    const launch = async (collection: string, port: number, version: PromptVersion, service: string): Promise<ChildProcess> => {
      const child = spawn(bin, [app], { env: env(collection, port, version, service), stdio: ['ignore', 'pipe', 'pipe'] });
      child.stdout!.pipe(log, { end: false });
      child.stderr!.pipe(log, { end: false });
      await waitForRoute(`http://127.0.0.1:${port}/rag`, 300_000, () => child.exitCode === null);
      return child;
    };
    const stopChild = async (child: ChildProcess) => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM'); // uvicorn shuts down; the tracer provider flushes its batch at exit
      await Promise.race([once(child, 'exit'), new Promise((resolve) => setTimeout(resolve, 15_000))]);
    };
    const onlinePort = await freePort();
    const baselinePort = await freePort();
    const started = performance.now();
    let prompt: PromptVersion = 'few-shot-v1';
    let online = await launch(setup.onlineCollection, onlinePort, prompt, 'langserve');
    const startSeconds = (performance.now() - started) / 1000;
    let baseline: ChildProcess | undefined;
    try {
      // The alias, as `immune baseline create` tells LangChain users: langchain-qdrant's
      // from_existing_collection checks the collection by name (collection_exists, get_collection),
      // which Qdrant answers for an alias too (1.18.3, seen), unlike Flowise's node's list lookup.
      baseline = await launch(setup.baselineAlias, baselinePort, 'few-shot-v1', 'langserve-baseline');
    } catch (error) {
      await stopChild(online);
      throw error;
    }
    return {
      onlineUrl: `http://127.0.0.1:${onlinePort}/rag`,
      baselineUrl: `http://127.0.0.1:${baselinePort}/rag`,
      startSeconds,
      askUrl: { online: `http://127.0.0.1:${onlinePort}/rag/invoke`, baseline: `http://127.0.0.1:${baselinePort}/rag/invoke` },
      requestBody: (query) => ({ input: { input: query }, config: {}, kwargs: {} }),
      async setOnlinePrompt(version) {
        if (version === prompt) return; // nothing to redeploy (between faults, after a fault that changed no prompt)
        await stopChild(online);
        online = await launch(setup.onlineCollection, onlinePort, version, 'langserve');
        prompt = version;
      },
      async stop() {
        await Promise.all([stopChild(online), baseline === undefined ? undefined : stopChild(baseline)]);
        log.end();
      },
    };
  },
  describe(running) {
    return [
      `- ${this.description}, ${running.startSeconds.toFixed(0)} s to serve its route;`,
      "  a retrieval chain (langchain-qdrant retriever top 4, OpenAIEmbeddings, ChatOpenAI, create_retrieval_chain's output shape) at /rag,",
      '  a second instance on the baseline alias; a prompt change is a redeploy of the online instance with another RAG_PROMPT.',
      "  Its traces: LangChain's OpenInference instrumentation, the FastAPI instrumentation continuing the caller's trace, OTLP/HTTP to the intake.",
    ];
  },
};

/** Waits until the route serves its input schema (LangServe's GET <path>/input_schema). */
async function waitForRoute(routeUrl: string, timeoutMs: number, alive: () => boolean): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (!alive()) throw new Error(`the LangServe app for ${routeUrl} exited before it answered (see langserve.log)`);
    try {
      const response = await fetch(`${routeUrl}/input_schema`, { signal: AbortSignal.timeout(5000) });
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  throw new Error(`${routeUrl}/input_schema did not answer within ${timeoutMs / 1000} s`);
}
