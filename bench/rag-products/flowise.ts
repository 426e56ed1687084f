/**
 * Flowise 2.2.8 as its users run it: `flowise start` (installed by tools/rag-products/install-flowise.sh),
 * configured only through its own REST API, as a platform team's provisioning script would: an API key
 * from its api.json, credentials (Qdrant key, a placeholder OpenAI key for the local OpenAI-compatible
 * servers), and a Conversational Retrieval QA Chain chatflow: Qdrant retriever (OpenAIEmbeddings pointed at
 * the project's embedder) and ChatOpenAI pointed at the local LLM server, "Return Source Documents" on.
 * The node definitions come from the running Flowise (GET /api/v1/nodes/{name}), as its UI builds them.
 */
import { readFileSync, existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

export interface FlowSettings {
  name: string;
  qdrantUrl: string;
  collection: string;
  embeddingsBaseUrl: string;
  embeddingsModel: string;
  llmBaseUrl: string;
  llmModel: string;
  /** Flowise's responsePrompt: the system message, `{context}` is the retrieved documents. */
  responsePrompt: string;
  topK: number;
  /** Comma-separated, as Flowise's ChatOpenAI node takes them (each trimmed: a bare newline cannot be one). */
  stopSequence: string;
  maxTokens: number;
  temperature: number;
  credentials: { qdrant: string; openai: string };
  /** OpenInference spans over OTLP through Flowise's Phoenix analytics provider (a phoenixApi credential). */
  phoenix?: { credential: string; projectName: string };
}

interface NodeDefinition {
  label: string;
  name: string;
  version: number;
  type: string;
  category: string;
  baseClasses: string[];
  inputs?: { name: string; type: string; label: string; optional?: boolean; list?: boolean; default?: unknown }[];
  outputs?: { name: string; label: string; baseClasses?: string[] }[];
  credential?: unknown;
}

const PRIMITIVE = new Set([
  'asyncOptions',
  'asyncMultiOptions',
  'options',
  'multiOptions',
  'datagrid',
  'string',
  'number',
  'boolean',
  'password',
  'json',
  'code',
  'date',
  'file',
  'folder',
  'tabs',
]);

export class FlowiseApi {
  constructor(
    readonly baseUrl: string,
    private readonly apiKey: string,
  ) {}

  /** The DefaultKey Flowise writes to `<APIKEY_PATH>/api.json` on first start. */
  static fromApiKeyFile(baseUrl: string, apiKeyDir: string): FlowiseApi {
    const file = join(apiKeyDir, 'api.json');
    if (!existsSync(file)) throw new Error(`Flowise wrote no ${file}`);
    const keys = JSON.parse(readFileSync(file, 'utf8')) as { apiKey: string }[];
    if (keys[0] === undefined) throw new Error(`${file} holds no API key`);
    return new FlowiseApi(baseUrl, keys[0].apiKey);
  }

  async call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const response = await fetch(`${this.baseUrl}/api/v1${path}`, {
      method,
      headers: { authorization: `Bearer ${this.apiKey}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(180_000),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`Flowise ${method} ${path}: ${response.status} ${text.slice(0, 500)}`);
    return (text === '' ? undefined : JSON.parse(text)) as T;
  }

  async createCredential(name: string, credentialName: string, plainDataObj: Record<string, string>): Promise<string> {
    const created = await this.call<{ id: string }>('POST', '/credentials', { name, credentialName, plainDataObj });
    return created.id;
  }

  node(name: string): Promise<NodeDefinition> {
    return this.call<NodeDefinition>('GET', `/nodes/${name}`);
  }

  async createChatflow(settings: FlowSettings): Promise<string> {
    const created = await this.call<{ id: string }>('POST', '/chatflows', {
      name: settings.name,
      deployed: false,
      isPublic: false,
      type: 'CHATFLOW',
      flowData: JSON.stringify(await this.flowData(settings)),
      ...(settings.phoenix ? { analytic: phoenixAnalytic(settings.phoenix) } : {}),
    });
    return created.id;
  }

  /** Replaces the chatflow's graph (as the UI's save does): a prompt change is a redeploy of the flow. */
  async updateChatflow(id: string, settings: FlowSettings): Promise<void> {
    await this.call('PUT', `/chatflows/${id}`, { flowData: JSON.stringify(await this.flowData(settings)) });
  }

  predictionUrl(id: string): string {
    return `${this.baseUrl}/api/v1/prediction/${id}`;
  }

  private async flowData(s: FlowSettings): Promise<{ nodes: unknown[]; edges: unknown[] }> {
    const [embeddings, qdrant, chat, chain] = await Promise.all(
      ['openAIEmbeddings', 'qdrant', 'chatOpenAI', 'conversationalRetrievalQAChain'].map((n) => this.node(n)),
    );
    const nodes = [
      nodeData(embeddings!, 'openAIEmbeddings_0', s.credentials.openai, {
        modelName: s.embeddingsModel,
        basepath: s.embeddingsBaseUrl,
        stripNewLines: false,
        batchSize: '',
        timeout: '',
        dimensions: '',
      }),
      nodeData(
        qdrant!,
        'qdrant_0',
        s.credentials.qdrant,
        {
          embeddings: '{{openAIEmbeddings_0.data.instance}}',
          qdrantServerUrl: s.qdrantUrl,
          qdrantCollection: s.collection,
          contentPayloadKey: 'content',
          metadataPayloadKey: 'metadata',
          qdrantSimilarity: 'Cosine',
          topK: String(s.topK),
        },
        'retriever',
      ),
      nodeData(chat!, 'chatOpenAI_0', s.credentials.openai, {
        modelName: s.llmModel,
        temperature: s.temperature,
        maxTokens: String(s.maxTokens),
        stopSequence: s.stopSequence,
        basepath: s.llmBaseUrl,
        streaming: false,
        allowImageUploads: false,
      }),
      nodeData(chain!, 'conversationalRetrievalQAChain_0', undefined, {
        model: '{{chatOpenAI_0.data.instance}}',
        vectorStoreRetriever: '{{qdrant_0.data.instance}}',
        returnSourceDocuments: true,
        responsePrompt: s.responsePrompt,
      }),
    ];
    const edge = (source: NodeDefinition, sourceId: string, target: string, input: string, inputType: string, output?: string) => {
      const sourceHandle = `${sourceId}-output-${output ?? source.name}-${outputClasses(source, output).join('|')}`;
      const targetHandle = `${target}-input-${input}-${inputType}`;
      return {
        source: sourceId,
        sourceHandle,
        target,
        targetHandle,
        type: 'buttonedge',
        id: `${sourceId}-${sourceHandle}-${target}-${targetHandle}`,
      };
    };
    const edges = [
      edge(embeddings!, 'openAIEmbeddings_0', 'qdrant_0', 'embeddings', 'Embeddings'),
      edge(qdrant!, 'qdrant_0', 'conversationalRetrievalQAChain_0', 'vectorStoreRetriever', 'BaseRetriever', 'retriever'),
      edge(chat!, 'chatOpenAI_0', 'conversationalRetrievalQAChain_0', 'model', 'BaseChatModel'),
    ];
    return { nodes, edges };
  }
}

function outputClasses(node: NodeDefinition, output?: string): string[] {
  if (output === undefined) return [node.type, ...node.baseClasses.filter((c) => c !== node.type)];
  return node.outputs?.find((o) => o.name === output)?.baseClasses ?? node.baseClasses;
}

/** A React Flow node as Flowise's canvas saves it: the definition, its inputs split into params and anchors, the values. */
function nodeData(def: NodeDefinition, id: string, credential: string | undefined, values: Record<string, unknown>, output?: string) {
  const inputs = def.inputs ?? [];
  const defaults = Object.fromEntries(inputs.map((i) => [i.name, i.default ?? '']));
  return {
    id,
    position: { x: 0, y: 0 },
    type: 'customNode',
    data: {
      ...def,
      id,
      inputParams: inputs.filter((i) => PRIMITIVE.has(i.type)).map((i) => ({ ...i, id: `${id}-input-${i.name}-${i.type}` })),
      inputAnchors: inputs.filter((i) => !PRIMITIVE.has(i.type)).map((i) => ({ ...i, id: `${id}-input-${i.name}-${i.type}` })),
      inputs: { ...defaults, ...values },
      outputs: output === undefined ? {} : { output },
      outputAnchors: [],
      ...(credential === undefined ? {} : { credential }),
      selected: false,
    },
  };
}

function phoenixAnalytic(phoenix: NonNullable<FlowSettings['phoenix']>): string {
  return JSON.stringify({ phoenix: { status: true, credentialId: phoenix.credential, projectName: phoenix.projectName } });
}

/** Waits until Flowise answers its ping (it loads ~1000 node components first). */
export async function waitForFlowise(baseUrl: string, timeoutMs: number, alive: () => boolean): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (!alive()) throw new Error('Flowise exited before it answered');
    try {
      const response = await fetch(`${baseUrl}/api/v1/ping`, { signal: AbortSignal.timeout(5000) });
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
  throw new Error(`Flowise did not answer ${baseUrl}/api/v1/ping within ${timeoutMs / 1000} s`);
}

/**
 * Flowise's environment for tracing into the project's OTLP intake, configuration only. Its Phoenix
 * analytics provider (the chatflow's `analytic`, a `phoenixApi` credential whose endpoint is the
 * intake) exports OpenInference spans over OTLP/HTTP, but starts them in the active context, and
 * Flowise's HTTP server is not instrumented: each prediction would be a new trace, not the caller's,
 * and the identifier finds a probe's spans by the traceparent the sentinel sent. OpenTelemetry's
 * zero-code Node instrumentation, already in Flowise's dependency tree
 * (@opentelemetry/auto-instrumentations-node), loaded through NODE_OPTIONS with only its HTTP
 * instrumentation on, makes the server continue the caller's trace (traceparent and tracestate, so
 * the probe mark rides along); the LangChain spans then go through its exporter, to the same intake.
 * The intake's Bearer token: OTEL_EXPORTER_OTLP_TRACES_HEADERS, merged by both exporters.
 */
export function flowiseTracingEnv(flowiseBin: string, tracesUrl: string, token: string): Record<string, string> {
  // <install>/node_modules/.bin/flowise → <install>/node_modules
  const modules = dirname(dirname(flowiseBin));
  const register = join(modules, '@opentelemetry/auto-instrumentations-node/build/src/register.js');
  if (!existsSync(register)) throw new Error(`no ${register}: Flowise's install lacks OpenTelemetry's Node instrumentation`);
  return {
    NODE_OPTIONS: `--require ${register}`,
    OTEL_NODE_ENABLED_INSTRUMENTATIONS: 'http',
    OTEL_NODE_RESOURCE_DETECTORS: 'env,host',
    OTEL_SERVICE_NAME: 'flowise',
    OTEL_TRACES_EXPORTER: 'otlp',
    OTEL_METRICS_EXPORTER: 'none',
    OTEL_LOGS_EXPORTER: 'none',
    OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/protobuf',
    OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: tracesUrl,
    OTEL_EXPORTER_OTLP_TRACES_HEADERS: `Authorization=Bearer%20${token}`,
    OTEL_BSP_SCHEDULE_DELAY: '1000',
  };
}
