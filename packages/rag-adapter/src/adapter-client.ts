import {
  ContractViolationError,
  DEFAULT_MAX_RESPONSE_BYTES,
  QueryRequest,
  RagHttpError,
  RagResponseTooLargeError,
  RagUnreachableError,
  ResponseTooLargeError,
  describeIssues,
  jsonOrUndefined,
  readTextCapped,
  type PartialQueryResponse,
} from '@rag-immune/rag-contract';
import { AdapterFileError, loadAdapterFile, type RagAdapterFile } from './adapter-file.ts';
import { extractResponse } from './extract.ts';
import { fill, fillBody, readEnvironment, stringsOf, type Vars } from './template.ts';

export interface AdapterRagClientOptions {
  adapter: RagAdapterFile;
  /** The side's RAG URL, `${base_url}` in the adapter (e.g. SENTINEL_ONLINE_RAG_URL). */
  baseUrl: string;
  /** Where `${env:NAME}` is read (default process.env), once, here. */
  env?: Readonly<Record<string, string | undefined>>;
  /** Headers on every call under the adapter's own (e.g. the service's User-Agent). */
  headers?: Readonly<Record<string, string>>;
  timeoutMs?: number;
  maxResponseBytes?: number;
  fetch?: typeof fetch;
}

export interface AdapterCallOptions {
  signal?: AbortSignal;
  timeoutMs?: number;
  headers?: Readonly<Record<string, string>>;
}

/**
 * Asks a RAG that does not serve the health contract, as its adapter file says, and reads its answer
 * into a PartialQueryResponse. It fails as the contract client does (RagUnreachableError,
 * RagHttpError, ContractViolationError), so the probe runner's retries and call statuses apply
 * unchanged. Secrets from `${env:…}` go on the wire only: error messages and `describe()` show the
 * templates, never the values.
 */
export class AdapterRagClient {
  readonly adapter: RagAdapterFile;
  private readonly baseUrl: string;
  /** A true private field: not enumerable, so logging or serialising the client cannot show a secret. */
  readonly #secrets: Readonly<Record<string, string>>;
  private readonly extraHeaders: Readonly<Record<string, string>>;
  private readonly timeoutMs: number;
  private readonly maxResponseBytes: number;
  private readonly fetchImpl: typeof fetch;

  constructor(options: AdapterRagClientOptions) {
    this.adapter = options.adapter;
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    const request = options.adapter.request;
    this.#secrets = readEnvironment(
      [
        { key: 'request.url', value: request.url },
        ...Object.entries(request.headers).map(([name, value]) => ({ key: `request.headers.${name}`, value })),
        ...stringsOf(request.body, 'request.body'),
      ],
      options.env ?? process.env,
    );
    this.extraHeaders = options.headers ?? {};
    this.timeoutMs = options.timeoutMs ?? 10_000;
    this.maxResponseBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
    this.fetchImpl = options.fetch ?? fetch;
  }

  /** The adapter as it may be logged: the URL template with the base URL in, header names only. */
  describe(): { adapter: string; method: string; url: string; headers: string[] } {
    const { method, url, headers } = this.adapter.request;
    return { adapter: this.adapter.metadata.name, method, url: this.loggableUrl(url), headers: Object.keys(headers).sort() };
  }

  async query(request: QueryRequest, options: AdapterCallOptions = {}): Promise<PartialQueryResponse> {
    const checked = QueryRequest.safeParse(request);
    if (!checked.success) throw new ContractViolationError('query', 'request', describeIssues(checked.error));
    const template = this.adapter.request;
    const vars: Vars = { ...this.#secrets, base_url: this.baseUrl, ...checked.data };
    const url = fill(template.url, vars, (value, name) => (name === 'base_url' ? value : encodeURIComponent(value)));
    const loggable = this.loggableUrl(template.url);
    const headers: Record<string, string> = { ...this.extraHeaders, ...options.headers };
    for (const [name, value] of Object.entries(template.headers)) headers[name] = fill(value, vars);
    let body: string | undefined;
    if (template.body !== undefined) {
      body = JSON.stringify(fillBody(template.body, vars));
      headers['content-type'] ??= 'application/json';
    }
    const timeout = AbortSignal.timeout(options.timeoutMs ?? this.timeoutMs);
    const signal = options.signal === undefined ? timeout : AbortSignal.any([timeout, options.signal]);
    let response: Response;
    let text: string;
    try {
      response = await this.fetchImpl(url, { method: template.method, signal, headers, ...(body === undefined ? {} : { body }) });
      text = await readTextCapped(response, this.maxResponseBytes, loggable);
    } catch (error) {
      if (error instanceof ResponseTooLargeError) throw new RagResponseTooLargeError('query', loggable, error.limitBytes);
      if (options.signal?.aborted) throw error;
      const timedOut = timeout.aborted || (error instanceof Error && error.name === 'TimeoutError');
      // The cause is left out: a fetch error can quote the URL, and the URL may carry a secret.
      throw new RagUnreachableError('query', loggable, timedOut ? 'timeout' : 'network');
    }
    const json = jsonOrUndefined(text);
    if (!response.ok) {
      const safe = this.redact(text);
      throw new RagHttpError(response.status, 'query', safe.slice(0, 200), json === undefined ? safe : parseOrText(safe));
    }
    if (json === undefined) throw new ContractViolationError('query', 'response', 'the body is not JSON');
    return extractResponse(json, this.adapter.response);
  }

  /** The URL with the base URL filled in and every `${env:…}` left as written. */
  private loggableUrl(template: string): string {
    return template.replaceAll('${base_url}', () => this.baseUrl);
  }

  /** A RAG error body may echo a header or a URL back: secret values are cut out of what is kept. */
  private redact(text: string): string {
    let out = text;
    for (const [name, value] of Object.entries(this.#secrets)) if (value.length >= 4) out = out.split(value).join(`\${${name}}`);
    return out;
  }
}

/** Reads the adapter file and binds it to a side's URL; a bad file or a missing variable throws AdapterFileError naming the key. */
export function adapterClientFromFile(file: string, options: Omit<AdapterRagClientOptions, 'adapter'>): AdapterRagClient {
  const adapter = loadAdapterFile(file);
  try {
    return new AdapterRagClient({ ...options, adapter });
  } catch (error) {
    if (error instanceof AdapterFileError) throw new AdapterFileError(file, error.issues);
    throw error;
  }
}

function parseOrText(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
