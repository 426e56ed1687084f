/**
 * One RAG product in the rag-products bench (issue 42 item 5): what run.ts needs of a RAG nobody here
 * wrote, so that its loop (knowledge, baseline, workers, clean phase, faults, RESULTS) stays one loop.
 * Each product installs itself with the project's script, serves an online and a baseline instance
 * over the given collections and model endpoints, exports its own traces to the intake, and takes a
 * prompt change where its users make one.
 */
import { PROMPTS, type PromptVersion } from '@rag-immune/langchain-rag';

export type ProductName = 'flowise' | 'langserve';

export interface ProductSetup {
  runDir: string;
  namespace: string;
  qdrantUrl: string;
  qdrantApiKey: string | undefined;
  /** The RAG's own collection (the platform team's ingestion writes it). */
  onlineCollection: string;
  /** The baseline `immune baseline create` made: its alias (follows a refresh) and the pinned copy's own name. */
  baselineAlias: string;
  baselineCollection: string;
  /** OpenAI-compatible endpoints (./llm-server.ts, ./embeddings-server.ts), each ending in /v1. */
  embeddingsBaseUrl: string;
  llmBaseUrl: string;
  llmModel: string;
  /** The intake's OTLP/HTTP traces URL and its Bearer token for this RAG. */
  tracesUrl: string;
  intakeToken: string;
}

export interface RunningProduct {
  /** The URLs the adapter file's ${base_url} names (sentinel and effector verification). */
  onlineUrl: string;
  baselineUrl: string;
  /** Seconds from start to the online instance answering its health check. */
  startSeconds: number;
  /** Where a user POSTs a question to each instance, and the body (the recorded answer is asked so). */
  askUrl: { online: string; baseline: string };
  requestBody(query: string): unknown;
  /** The prompt-regressed fault, made where the product's users change a prompt (and put back with few-shot-v1). */
  setOnlinePrompt(version: PromptVersion): Promise<void>;
  stop(): Promise<void>;
}

export interface RagProduct {
  readonly name: ProductName;
  /** One line for RESULTS: the product, its version and how it was installed. */
  readonly description: string;
  /** packages/rag-adapter/examples/<file>.yaml (absolute). */
  readonly adapterFile: string;
  /** The intake's name for this RAG's spans (TRACE_INTAKE_API_TOKEN_RAG). */
  readonly traceRagName: string;
  /** Runs the project's install script (idempotent). */
  install(): void;
  start(setup: ProductSetup): Promise<RunningProduct>;
  /** Lines for RESULTS' "The RAG" section, after the start (what it serves, how it was configured). */
  describe(running: RunningProduct): string[];
}

/**
 * A prompt version as a product's system prompt: the few-shot prompt up to its context (the question is
 * the chat's user message, which the LLM server's completion pattern appends); the regressed versions
 * whole, `{question}` left for the product to fill.
 */
export function responsePrompt(version: PromptVersion): string {
  const template = PROMPTS[version].template as string;
  if (version !== 'few-shot-v1') return template;
  const end = template.indexOf('\nQuestion: {question}');
  if (end < 0) throw new Error('few-shot-v1 no longer ends with its question line');
  return template.slice(0, end);
}
