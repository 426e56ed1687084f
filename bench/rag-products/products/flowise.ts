/**
 * Flowise 2.2.8 in the rag-products bench: installed by tools/rag-products/install-flowise.sh, `flowise
 * start` with its state in the run directory, configured only through its REST API (../flowise.ts): a
 * Conversational Retrieval QA chatflow on the RAG's collection and a second one on the baseline copy.
 * Its traces: its Phoenix analytics provider (OpenInference spans) plus OpenTelemetry's Node HTTP
 * instrumentation continuing the caller's trace (flowiseTracingEnv).
 */
import { spawn, execFileSync } from 'node:child_process';
import { createWriteStream, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '@rag-immune/stack';
import { freePort } from '@rag-immune/test-kit';
import { FlowiseApi, flowiseTracingEnv, waitForFlowise, type FlowSettings } from '../flowise.ts';
import { responsePrompt, type RagProduct, type RunningProduct, type ProductSetup } from './product.ts';

const root = repoRoot();
let flowiseBin: string | undefined;

export const flowise: RagProduct = {
  name: 'flowise',
  description: 'Flowise 2.2.8 from npm (tools/rag-products/install-flowise.sh), `flowise start`',
  adapterFile: join(root, 'packages/rag-adapter/examples/flowise.yaml'),
  // The spans are Flowise's whatever service.name they claim (Phoenix sets the project name).
  traceRagName: 'flowise',
  install() {
    flowiseBin = execFileSync('bash', [join(root, 'tools/rag-products/install-flowise.sh')], { encoding: 'utf8' }).trim();
  },
  async start(setup: ProductSetup): Promise<RunningProduct> {
    if (flowiseBin === undefined) throw new Error('flowise: install() first');
    const home = join(setup.runDir, 'flowise');
    mkdirSync(home, { recursive: true });
    const port = await freePort();
    const baseUrl = `http://127.0.0.1:${port}`;
    const log = createWriteStream(join(setup.runDir, 'flowise.log'));
    const child = spawn(flowiseBin, ['start'], {
      env: {
        ...process.env,
        PORT: String(port),
        HOST: '127.0.0.1',
        DATABASE_PATH: home,
        APIKEY_PATH: home,
        SECRETKEY_PATH: home,
        LOG_PATH: join(home, 'logs'),
        BLOB_STORAGE_PATH: join(home, 'storage'),
        DISABLE_FLOWISE_TELEMETRY: 'true',
        LOG_LEVEL: 'info',
        ...flowiseTracingEnv(flowiseBin, setup.tracesUrl, setup.intakeToken),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout.pipe(log);
    child.stderr.pipe(log);
    const stop = async () => {
      child.kill('SIGTERM');
    };
    try {
      const started = performance.now();
      await waitForFlowise(baseUrl, 600_000, () => child.exitCode === null);
      const startSeconds = (performance.now() - started) / 1000;
      const api = FlowiseApi.fromApiKeyFile(baseUrl, home);
      const credentials = {
        qdrant: await api.createCredential('qdrant', 'qdrantApi', { qdrantApiKey: setup.qdrantApiKey ?? '' }),
        // The local endpoints ask for no key; the OpenAI nodes need a credential to start.
        openai: await api.createCredential('local-openai-compatible', 'openAIApi', { openAIApiKey: 'sk-local-no-key' }),
      };
      // Flowise's Phoenix analytics provider, its endpoint the intake: OpenInference spans over OTLP/HTTP.
      // Its exporter sends the key as an `api_key` header; the intake's Bearer token comes from the
      // standard OTEL_EXPORTER_OTLP_TRACES_HEADERS in Flowise's environment (merged by the exporter).
      const phoenix = {
        credential: await api.createCredential('rag-immune-trace-intake', 'phoenixApi', {
          phoenixApiKey: 'unused-see-otlp-headers',
          phoenixEndpoint: setup.tracesUrl.replace(/\/v1\/traces$/, ''),
        }),
        projectName: 'flowise',
      };
      const settings = (name: string, target: string, version: Parameters<typeof responsePrompt>[0] = 'few-shot-v1'): FlowSettings => ({
        name,
        qdrantUrl: setup.qdrantUrl,
        collection: target,
        embeddingsBaseUrl: setup.embeddingsBaseUrl,
        embeddingsModel: 'all-MiniLM-L6-v2',
        llmBaseUrl: setup.llmBaseUrl,
        llmModel: setup.llmModel,
        responsePrompt: responsePrompt(version),
        topK: 4,
        stopSequence: 'Question:,Context:',
        maxTokens: 48,
        temperature: 0,
        credentials,
        phoenix,
      });
      const onlineSettings = settings(`${setup.namespace} online`, setup.onlineCollection);
      const onlineFlow = await api.createChatflow(onlineSettings);
      // The pinned copy's own name, not the alias: Flowise's Qdrant node (LangChain's ensureCollection)
      // looks the name up among the collections, misses an alias and tries to create a collection of that
      // name, which Qdrant refuses (Bad Request): every baseline answer failed (seen in the first trial).
      const baselineFlow = await api.createChatflow(settings(`${setup.namespace} baseline`, setup.baselineCollection));
      return {
        onlineUrl: api.predictionUrl(onlineFlow),
        baselineUrl: api.predictionUrl(baselineFlow),
        startSeconds,
        askUrl: { online: api.predictionUrl(onlineFlow), baseline: api.predictionUrl(baselineFlow) },
        requestBody: (query) => ({ question: query, streaming: false }),
        // A prompt change is made where a Flowise user makes it: the chatflow saved with another prompt.
        setOnlinePrompt: (version) => api.updateChatflow(onlineFlow, { ...onlineSettings, responsePrompt: responsePrompt(version) }),
        stop,
      };
    } catch (error) {
      await stop();
      throw error;
    }
  },
  describe(running) {
    return [
      `- ${this.description}, ${running.startSeconds.toFixed(0)} s to answer its ping;`,
      '  a Conversational Retrieval QA Chain chatflow (Qdrant retriever top 4, OpenAIEmbeddings, ChatOpenAI, Return Source Documents),',
      '  made through its REST API (bench/rag-products/flowise.ts); a second chatflow on the baseline copy (by its collection name: Flowise cannot read through an alias).',
      "  Its traces: its Phoenix analytics provider's OpenInference spans, its HTTP server continuing the caller's trace (OpenTelemetry's Node instrumentation).",
    ];
  },
};
