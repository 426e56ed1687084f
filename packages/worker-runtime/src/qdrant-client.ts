import { QdrantClient } from '@qdrant/js-client-rest';
import { ExponentialBackoff, handleWhen, retry, type RetryPolicy } from 'cockatiel';
import { Agent } from 'undici';
import { isLoopback } from './http-app.ts';
import { workerLogger } from './logger.ts';
import { isRequestTimeout, isResendableFailure, mayResend, socketErrorCode } from './qdrant-retry-policy.ts';

/**
 * How long a pooled connection to Qdrant may sit idle before the client closes it itself. Qdrant
 * (actix-web) closes an idle keep-alive connection after 5 s and sends no `Keep-Alive` hint, while
 * the REST client's own pool keeps one 10 s: every reuse between 5 and 10 s raced the server's
 * close. 2 s leaves 3 s for a busy event loop to notice the timer before the server's close.
 */
export const QDRANT_KEEP_ALIVE_MS = 2_000;

/** Attempts per request that may be resent (the first and two resends), with a short jittered backoff. */
export const QDRANT_REQUEST_ATTEMPTS = 3;
const BACKOFF = { initialDelay: 50, maxDelay: 1_000 };

/** Where resends are logged: a pino logger fits. */
export interface QdrantRetryLogger {
  warn(fields: Record<string, unknown>, message: string): void;
}

export interface QdrantConnection {
  url: string;
  /** Qdrant's `api-key` (QDRANT_API_KEY); Qdrant Cloud and a secured self-hosted server require one. */
  apiKey?: string | undefined;
  timeoutMs?: number;
  /** Where a resent request is logged (one warning per resend); a `qdrant-client` logger when absent. */
  logger?: QdrantRetryLogger | undefined;
  /** Idle time before a pooled connection is closed by the client; QDRANT_KEEP_ALIVE_MS unless told (tests). */
  keepAliveMs?: number | undefined;
}

/** One call of the REST client's generated API: payload, then request init (merged over the client's). */
type ApiCall = ((payload: unknown, init?: Record<string, unknown>) => Promise<unknown>) & Record<string, unknown>;

let defaultLogger: QdrantRetryLogger | undefined;
const fallbackLogger = () => (defaultLogger ??= workerLogger('qdrant-client', 'worker-runtime'));

/**
 * The one way every worker, the RAGs, the test kit and the tools open a Qdrant client: the key sent
 * on every request, no version probe at construction (it logs to the console on a mismatch), a
 * keep-alive shorter than the server's, and a request whose socket dropped under it resent when a
 * repeat is safe (qdrant-retry-policy.ts; README "Qdrant client"). The client warns once per
 * instance about an API key over plain http; on loopback (the local stack) that is not a risk, so
 * the key goes in as a plain header there and the warning stays for real networks.
 */
export function createQdrantClient(connection: QdrantConnection): QdrantClient {
  const { url, apiKey, timeoutMs } = connection;
  const base = { url, checkCompatibility: false, ...(timeoutMs === undefined ? {} : { timeout: timeoutMs }) };
  let client: QdrantClient;
  if (apiKey === undefined || apiKey === '') client = new QdrantClient(base);
  else {
    const parsed = new URL(url);
    client =
      parsed.protocol === 'http:' && isLoopback(parsed.hostname.replace(/^\[|\]$/g, ''))
        ? new QdrantClient({ ...base, headers: { 'api-key': apiKey } })
        : new QdrantClient({ ...base, apiKey });
  }
  return withRequestPolicy(client, connection);
}

/**
 * Wraps each call of the client's generated API (which every QdrantClient method goes through, and
 * which `client.api()` returns): each request goes over our pool, and a request that may be resent
 * is, on a socket error. The REST client takes no dispatcher, but merges a per-call init over its
 * own, so the pool is passed there rather than patched into the library.
 */
function withRequestPolicy(client: QdrantClient, connection: QdrantConnection): QdrantClient {
  const holder = client as unknown as { _openApiClient?: Record<string, unknown> };
  const api = holder._openApiClient;
  if (typeof api !== 'object' || api === null || typeof api.getCollections !== 'function')
    throw new Error(
      '@qdrant/js-client-rest changed: QdrantClient has no _openApiClient, so the keep-alive and resend policy cannot be applied',
    );
  const keepAlive = connection.keepAliveMs ?? QDRANT_KEEP_ALIVE_MS;
  // As the library's own agent, with its timeouts left to the client's AbortSignal; a server's
  // Keep-Alive hint cannot stretch the idle time past ours.
  const dispatcher = new Agent({
    connections: 25,
    bodyTimeout: 0,
    headersTimeout: 0,
    keepAliveTimeout: keepAlive,
    keepAliveMaxTimeout: keepAlive,
  });
  const policies = new Map<string, RetryPolicy>();
  const policyFor = (operation: string): RetryPolicy => {
    let policy = policies.get(operation);
    if (policy === undefined) {
      policy = retry(handleWhen(isResendableFailure), {
        maxAttempts: QDRANT_REQUEST_ATTEMPTS - 1,
        backoff: new ExponentialBackoff(BACKOFF),
      });
      policy.onRetry((event) => {
        const error = 'error' in event ? event.error : undefined;
        (connection.logger ?? fallbackLogger()).warn(
          {
            qdrant_operation: operation,
            attempt: event.attempt,
            delay_ms: Math.round(event.delay),
            code: isRequestTimeout(error) ? 'HTTP_408' : socketErrorCode(error),
            err: error,
          },
          `qdrant ${operation}: ${isRequestTimeout(error) ? 'Qdrant answered 408 Request Timeout' : 'the connection dropped under the request'}; resending (attempt ${event.attempt + 1} of ${QDRANT_REQUEST_ATTEMPTS})`,
        );
      });
      policies.set(operation, policy);
    }
    return policy;
  };
  const wrapped: Record<string, unknown> = {};
  for (const [operation, value] of Object.entries(api)) {
    if (typeof value !== 'function') {
      wrapped[operation] = value;
      continue;
    }
    const call = value as ApiCall;
    const send = (payload: unknown, init?: Record<string, unknown>) => call(payload, { ...init, dispatcher });
    const policed = (payload: unknown, init?: Record<string, unknown>) =>
      mayResend(operation, payload) ? policyFor(operation).execute(() => send(payload, init)) : send(payload, init);
    // Keeps the call's typed `Error` class (openapi-typescript-fetch hangs it on the function).
    wrapped[operation] = Object.assign(policed, call);
  }
  holder._openApiClient = wrapped;
  return client;
}
