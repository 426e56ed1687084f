import { randomUUID, timingSafeEqual, createHash } from 'node:crypto';
import { BlockList, isIP } from 'node:net';
import express, { type Express, type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { ZodError } from 'zod';

/** A 4xx the caller can act on: the message is returned as is. */
export class HttpRequestError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly issues?: { path: string; message: string }[],
  ) {
    super(message);
    this.name = 'HttpRequestError';
  }
}

/** Constant-time comparison of a presented bearer token with the configured one. */
export function tokenMatches(presented: string, expected: string): boolean {
  // Hash both so the comparison length never depends on the secret's length.
  const a = createHash('sha256').update(presented).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

/**
 * Who called, as the bearer middleware established it (in `res.locals.principal`). `verified` is
 * true only when the presented token is bound to that one caller (one token per caller); the single
 * shared token and development mode say nothing about who calls.
 */
export interface Principal {
  /** The token's name (one token per caller), `shared-token` for the single shared token, `anonymous` in development mode. */
  name: string;
  verified: boolean;
}

export const SHARED_TOKEN_PRINCIPAL: Principal = Object.freeze({ name: 'shared-token', verified: false });
export const ANONYMOUS_PRINCIPAL: Principal = Object.freeze({ name: 'anonymous', verified: false });

/** The caller the auth middleware admitted; undefined on unguarded routes. */
export function principalOf(res: Response): Principal | undefined {
  return res.locals.principal as Principal | undefined;
}

/** The tokens a worker accepts: one shared token (legacy) and/or one named token per caller. */
export interface BearerTokens {
  shared?: string | undefined;
  /** Caller name → token; the name becomes the authenticated principal. */
  named?: Readonly<Record<string, string>> | undefined;
}

function hasTokens(tokens: BearerTokens): boolean {
  return (tokens.shared !== undefined && tokens.shared !== '') || Object.keys(tokens.named ?? {}).length > 0;
}

/**
 * Requires `Authorization: Bearer <token>`; 401 without it. The token is never logged. A named
 * token records its caller as a verified principal; the shared one an unverified `shared-token`.
 */
export function requireBearerToken(tokens: string | BearerTokens): RequestHandler {
  const { shared, named = {} } = typeof tokens === 'string' ? { shared: tokens } : tokens;
  const entries = Object.entries(named);
  return (req, res, next) => {
    const header = req.headers.authorization ?? '';
    const presented = /^bearer /i.test(header) ? header.slice('Bearer '.length).trim() : '';
    let principal: Principal | undefined;
    if (presented !== '') {
      // Every token is compared (no early exit), so timing does not reveal which one nearly matched.
      for (const [name, token] of entries)
        if (tokenMatches(presented, token) && principal === undefined) principal = { name, verified: true };
      if (shared !== undefined && shared !== '' && tokenMatches(presented, shared) && principal === undefined)
        principal = SHARED_TOKEN_PRINCIPAL;
    }
    if (principal === undefined) {
      res.status(401).set('www-authenticate', 'Bearer').json({ error: 'unauthorized: a valid bearer token is required' });
      return;
    }
    res.locals.principal = principal;
    next();
  };
}

// 127.0.0.0/8 and ::1; BlockList also matches IPv4-mapped IPv6 (::ffff:127.0.0.1) against the IPv4 rule.
const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

/**
 * True for addresses only this machine can reach, judged on the parsed address: 127.0.0.0/8, ::1,
 * ::ffff:127.x.x.x and `localhost` (a name like `127.evil.com` is not an address and does not count).
 */
export function isLoopback(host: string): boolean {
  const name = (host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host).toLowerCase();
  if (name === 'localhost' || name === 'localhost.') return true;
  const family = isIP(name);
  if (family === 0) return false;
  try {
    return LOOPBACK.check(name, family === 4 ? 'ipv4' : 'ipv6');
  } catch {
    // e.g. a zone id (fe80::1%eth0) BlockList does not parse: not loopback.
    return false;
  }
}

/** The host of a Host header (`[::1]:8080` → `::1`, `localhost:80` → `localhost`); null when malformed. */
export function hostOfHostHeader(header: string): string | null {
  const match = /^\[([0-9a-fA-F:.]+)\](?::\d{1,5})?$/.exec(header) ?? /^([^:[\]\s/@]+)(?::\d{1,5})?$/.exec(header);
  return match ? match[1]! : null;
}

/**
 * Development mode's guard against DNS rebinding: a browser tricked into calling 127.0.0.1 through
 * an attacker's name still sends that name as Host, so only loopback Hosts are served.
 */
function loopbackHostOnly(worker: string, tokenEnv: string): RequestHandler {
  return (req, res, next) => {
    const host = hostOfHostHeader(req.headers.host ?? '');
    if (host === null || !isLoopback(host)) {
      res.status(403).json({
        error: `forbidden: ${worker} runs without ${tokenEnv} (development mode) and serves only requests addressed to localhost, 127.0.0.1 or [::1]; Host ${JSON.stringify(req.headers.host ?? '')} is not`,
      });
      return;
    }
    res.locals.principal = ANONYMOUS_PRINCIPAL;
    next();
  };
}

/** Refuses to expose a worker beyond loopback without an API token. */
export function assertSafeBinding(worker: string, host: string, token: string | undefined): void {
  if (!isLoopback(host) && (token === undefined || token === '')) {
    throw new Error(`${worker}: refusing to bind ${host} without an API token (set the worker's *_API_TOKEN or bind 127.0.0.1)`);
  }
}

export interface BearerAuthOptions {
  /** Service name for messages and logs. */
  worker: string;
  /** The address the server binds. */
  host: string;
  /** The configured shared token; undefined or '' means none. */
  token: string | undefined;
  /** One token per caller (name → token): the caller's name becomes the authenticated principal. */
  tokens?: Readonly<Record<string, string>> | undefined;
  /** The environment variable holding the token, named in errors and warnings. */
  tokenEnv: string;
  logger: Pick<Logger, 'warn'>;
}

/**
 * The one authentication policy of every service: with a token, the guarded routes need
 * `Authorization: Bearer <token>`; without one, a loopback-bound service stays open (development)
 * to requests addressed to a loopback Host, and says so once in its log; a non-loopback binding
 * without a token refuses to start (throws).
 */
export function bearerAuth(options: BearerAuthOptions): RequestHandler {
  const tokens: BearerTokens = { shared: options.token, named: options.tokens };
  if (hasTokens(tokens)) return requireBearerToken(tokens);
  if (!isLoopback(options.host)) {
    throw new Error(`${options.worker}: refusing to bind ${options.host} without an API token (set ${options.tokenEnv} or bind 127.0.0.1)`);
  }
  options.logger.warn(
    { host: options.host, token_env: options.tokenEnv },
    `${options.worker}: no ${options.tokenEnv} set; protected routes are open on loopback only (development mode)`,
  );
  return loopbackHostOnly(options.worker, options.tokenEnv);
}

/**
 * Answers an unexpected failure with 500 and a fresh error id only; the message and stack go to
 * the log under that id, never to the caller (they may reveal internals).
 */
export function sendInternalError(
  logger: Pick<Logger, 'error'>,
  worker: string,
  error: unknown,
  req: Pick<Request, 'method' | 'path'>,
  res: Response,
): string {
  const errorId = randomUUID();
  logger.error({ err: error, error_id: errorId, method: req.method, path: req.path }, `${worker}: request failed`);
  if (!res.headersSent) res.status(500).json({ error: 'internal error', error_id: errorId });
  return errorId;
}

export interface WorkerHttpOptions {
  worker: string;
  registry: Registry;
  logger: Logger;
  /** 200 with the returned body when ready, 503 otherwise. */
  health: () => { ready: boolean; detail?: Record<string, unknown> };
  /** Routes under the worker's API; mounted after /healthz and /metrics, behind the token if given. */
  routes: (app: Express) => void;
  /** When set, every route except /healthz and /metrics requires this bearer token. */
  apiToken?: string;
  /** Guards the worker's routes instead of `apiToken`, e.g. `bearerAuth(...)` (open on loopback without a token). */
  auth?: RequestHandler;
  /** Largest JSON body accepted after decompression (default 1mb); larger ones get a 413. */
  jsonLimit?: number | string;
}

/** body-parser's own refusals (too large, bad encoding, aborted) carry a 4xx `status` and a `type`: a message for the caller, never a 500. */
export function bodyParserRefusal(error: unknown): { status: number; message: string } | null {
  if (typeof error !== 'object' || error === null) return null;
  const { status, type, limit } = error as { status?: unknown; type?: unknown; limit?: unknown };
  if (typeof status !== 'number' || status < 400 || status >= 500 || typeof type !== 'string') return null;
  if (type === 'entity.parse.failed') return { status: 400, message: 'invalid request: body is not valid JSON' };
  if (type === 'entity.too.large') return { status: 413, message: `request body too large: the limit is ${String(limit)} bytes` };
  if (type === 'encoding.unsupported') return { status: 415, message: 'unsupported content-encoding: send identity, gzip, deflate or br' };
  return { status, message: `invalid request body: ${(error as Error).message}` };
}

/**
 * The HTTP skeleton every worker serves: /healthz for the orchestrator, /metrics for Prometheus,
 * the worker's own routes behind a bearer token, JSON 404s, 4xx with a message for bad requests,
 * and 500s that return only an error id (the detail is in the log under that id).
 */
export function workerHttpApp(options: WorkerHttpOptions): Express {
  const app = express();
  app.disable('x-powered-by');
  app.get('/healthz', (_req, res) => {
    const health = options.health();
    res.status(health.ready ? 200 : 503).json({ status: health.ready ? 'ok' : 'starting', ...health.detail });
  });
  app.get('/metrics', async (_req, res) => {
    res.set('content-type', options.registry.contentType);
    res.send(await options.registry.metrics());
  });
  if (options.auth !== undefined) app.use(options.auth);
  else if (options.apiToken !== undefined && options.apiToken !== '') app.use(requireBearerToken(options.apiToken));
  // After auth: an unauthenticated caller gets its 401 before any byte of its body is parsed.
  app.use(express.json({ limit: options.jsonLimit ?? '1mb' }));
  options.routes(app);
  app.use((req, res) => {
    res.status(404).json({ error: `not found: ${req.method} ${req.path}` });
  });
  app.use((error: unknown, req: Request, res: Response, _next: NextFunction) => {
    if (error instanceof HttpRequestError) {
      res.status(error.status).json({ error: error.message, ...(error.issues ? { issues: error.issues } : {}) });
      return;
    }
    if (error instanceof ZodError) {
      const issues = error.issues.map((issue) => ({ path: issue.path.join('.') || '(body)', message: issue.message }));
      res.status(400).json({ error: `invalid request: ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`, issues });
      return;
    }
    const refusal = bodyParserRefusal(error);
    if (refusal !== null) {
      res.status(refusal.status).json({ error: refusal.message });
      return;
    }
    sendInternalError(options.logger, options.worker, error, req, res);
  });
  return app;
}
