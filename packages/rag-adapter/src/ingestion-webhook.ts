/**
 * The user's own ingestion job behind a webhook (`repair.ingestion` in the adapter file): what the
 * effector calls when a repair of a RAG without repair hooks needs the RAG to re-read its knowledge.
 * Secrets from `${env:…}` are read once, when bound (a missing one refuses to start naming the key),
 * and go on the wire only: errors name the URL template, never a value.
 */
import { DEFAULT_MAX_RESPONSE_BYTES, readTextCapped } from '@rag-immune/rag-contract';
import type { IngestionWebhook } from './adapter-file.ts';
import { fill, fillBody, readEnvironment, stringsOf, type Vars } from './template.ts';

/** The placeholders a webhook template may use besides `${env:NAME}`. */
export const WEBHOOK_VARS: ReadonlySet<string> = new Set(['knowledge_ids', 'sources', 'incident_id', 'action_id', 'root_cause']);

/** What one repair asks the job to re-ingest. */
export interface IngestionRequest {
  knowledge_ids: readonly string[];
  sources: readonly string[];
  incident_id: string;
  action_id: string;
  root_cause: string;
}

export interface IngestionCallOptions {
  signal?: AbortSignal;
  timeoutMs?: number;
  /** Sent as `Idempotency-Key`: the job can tell a retry of the same repair. */
  idempotencyKey?: string;
}

/** The job's answer: its HTTP status and the first bytes of its body (for the action's record). */
export interface IngestionResult {
  status: number;
  body: string;
}

/** The job did not answer, or answered other than 2xx: `status` null when it never answered. */
export class IngestionWebhookError extends Error {
  constructor(
    message: string,
    readonly status: number | null,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'IngestionWebhookError';
  }
}

export class IngestionWebhookClient {
  readonly #secrets: Readonly<Record<string, string>>;

  constructor(
    readonly webhook: IngestionWebhook,
    env: Readonly<Record<string, string | undefined>> = process.env,
    private readonly fetchImpl: typeof fetch = fetch,
  ) {
    this.#secrets = readEnvironment(
      [
        { key: 'repair.ingestion.url', value: webhook.url },
        ...Object.entries(webhook.headers).map(([name, value]) => ({ key: `repair.ingestion.headers.${name}`, value })),
        ...stringsOf(webhook.body, 'repair.ingestion.body'),
      ],
      env,
      WEBHOOK_VARS,
    );
  }

  /** The webhook as it may be logged: method, URL template, header names. */
  describe(): { method: string; url: string; headers: string[] } {
    return { method: this.webhook.method, url: this.webhook.url, headers: Object.keys(this.webhook.headers).sort() };
  }

  /** Calls the job; a non-2xx answer or no answer throws IngestionWebhookError. */
  async call(request: IngestionRequest, options: IngestionCallOptions = {}): Promise<IngestionResult> {
    const vars: Vars = { ...this.#secrets, ...request };
    const url = fill(this.webhook.url, vars, (value, name) => (name.startsWith('env:') ? value : encodeURIComponent(value)));
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    for (const [name, value] of Object.entries(this.webhook.headers)) headers[name.toLowerCase()] = fill(value, vars);
    if (options.idempotencyKey !== undefined) headers['idempotency-key'] = options.idempotencyKey;
    const timeout = AbortSignal.timeout(options.timeoutMs ?? 30_000);
    const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
    let response: Response;
    try {
      response = await this.fetchImpl(url, {
        method: this.webhook.method,
        headers,
        ...(this.webhook.body !== undefined ? { body: JSON.stringify(fillBody(this.webhook.body, vars)) } : {}),
        signal,
      });
    } catch (error) {
      const why = signal.aborted ? (timeout.aborted ? 'timed out' : 'aborted') : 'unreachable';
      throw new IngestionWebhookError(`ingestion webhook ${this.webhook.method} ${this.webhook.url}: ${why}`, null, { cause: error });
    }
    const body = this.redact(await readTextCapped(response, DEFAULT_MAX_RESPONSE_BYTES).catch(() => ''));
    if (!response.ok)
      throw new IngestionWebhookError(
        `ingestion webhook ${this.webhook.method} ${this.webhook.url}: HTTP ${response.status}: ${body.slice(0, 300)}`,
        response.status,
      );
    return { status: response.status, body: body.slice(0, 2_000) };
  }

  /** A job that echoes its request could echo a secret: cut out before the body is recorded. */
  private redact(text: string): string {
    let out = text;
    for (const secret of Object.values(this.#secrets)) if (secret.length >= 4) out = out.split(secret).join('[redacted]');
    return out;
  }
}
