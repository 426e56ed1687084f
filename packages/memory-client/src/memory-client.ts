import { errorBodyMessage, jsonOrUndefined } from '@rag-immune/contracts';
import { Recommendation, RecommendRequest } from './recommendation.ts';

/** Memory could not be asked (unreachable, timed out, 5xx, or an answer off-contract). */
export class MemoryUnavailableError extends Error {
  constructor(
    message: string,
    override readonly cause?: unknown,
  ) {
    super(message);
    this.name = 'MemoryUnavailableError';
  }
}

export interface MemoryClientOptions {
  baseUrl: string;
  /** Short by default: a caller falls back to its own policy rather than wait for memory. */
  timeoutMs?: number;
  /** Bearer token of the memory worker's API, if it requires one. */
  token?: string;
  fetch?: typeof fetch;
}

/** Typed client of the memory worker's /recommend (and the case lookups the CLI reads). */
export class MemoryClient {
  private readonly baseUrl: string;
  private readonly timeoutMs: number;
  private readonly fetchImpl: typeof fetch;

  constructor(private readonly options: MemoryClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.timeoutMs = options.timeoutMs ?? 1500;
    this.fetchImpl = options.fetch ?? fetch;
  }

  async recommend(request: RecommendRequest, timeoutMs = this.timeoutMs): Promise<Recommendation> {
    const body = RecommendRequest.parse(request);
    const json = await this.call('POST', '/recommend', body, timeoutMs);
    const checked = Recommendation.safeParse(json);
    if (!checked.success) throw new MemoryUnavailableError(`memory answered off-contract: ${checked.error.issues[0]?.message ?? ''}`);
    return checked.data;
  }

  /** GET a memory API path (e.g. /cases, /cases/{id}); the JSON as served. */
  get(path: string, timeoutMs = this.timeoutMs * 4): Promise<unknown> {
    return this.call('GET', path, undefined, timeoutMs);
  }

  private async call(method: string, path: string, body: unknown, timeoutMs: number): Promise<unknown> {
    const headers: Record<string, string> = {};
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (this.options.token) headers.authorization = `Bearer ${this.options.token}`;
    let response: Response;
    try {
      response = await this.fetchImpl(`${this.baseUrl}${path}`, {
        method,
        headers,
        signal: AbortSignal.timeout(timeoutMs),
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    } catch (error) {
      throw new MemoryUnavailableError(
        `memory unreachable at ${this.baseUrl}: ${error instanceof Error ? error.message : String(error)}`,
        error,
      );
    }
    const text = await response.text();
    const json = jsonOrUndefined(text);
    if (!response.ok) {
      const message = errorBodyMessage(json, text);
      throw new MemoryUnavailableError(`memory answered ${response.status} to ${method} ${path}: ${message}`);
    }
    return json;
  }
}
