import { readFileSync } from 'node:fs';
import { createServer as createHttpServer, type RequestListener, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { z } from 'zod';
import { parseWorkerEnv } from './worker-config.ts';

/**
 * HTTPS for every worker's HTTP server, one set of names for all of them (each worker is its own
 * process): HTTP_TLS_CERT_FILE + HTTP_TLS_KEY_FILE (PEM) switch the server to node:https;
 * HTTP_TLS_CLIENT_CA_FILE (PEM) also requires a client certificate signed by that CA (mutual TLS).
 * Unset: plain HTTP, as before.
 */
export const HttpTlsEnv = z.object({
  HTTP_TLS_CERT_FILE: z.string().min(1).optional(),
  HTTP_TLS_KEY_FILE: z.string().min(1).optional(),
  HTTP_TLS_CLIENT_CA_FILE: z.string().min(1).optional(),
});
export type HttpTlsConfig = z.infer<typeof HttpTlsEnv>;

/** The TLS settings of the environment; a certificate without its key (or the reverse) is refused, naming what is missing. */
export function httpTlsConfig(worker: string, env: NodeJS.ProcessEnv = process.env): HttpTlsConfig {
  return parseWorkerEnv(worker, HttpTlsEnv, env, [
    (c) =>
      c.HTTP_TLS_CERT_FILE !== undefined && c.HTTP_TLS_KEY_FILE === undefined
        ? { key: 'HTTP_TLS_KEY_FILE', message: 'is required with HTTP_TLS_CERT_FILE (the PEM private key of the server certificate)' }
        : null,
    (c) =>
      c.HTTP_TLS_KEY_FILE !== undefined && c.HTTP_TLS_CERT_FILE === undefined
        ? { key: 'HTTP_TLS_CERT_FILE', message: 'is required with HTTP_TLS_KEY_FILE (the PEM server certificate)' }
        : null,
    (c) =>
      c.HTTP_TLS_CLIENT_CA_FILE !== undefined && c.HTTP_TLS_CERT_FILE === undefined
        ? { key: 'HTTP_TLS_CERT_FILE', message: 'is required with HTTP_TLS_CLIENT_CA_FILE (mutual TLS needs a server certificate)' }
        : null,
  ]);
}

export interface ListenOptions {
  /** Names the worker in configuration errors. */
  worker: string;
  port: number;
  host: string;
  /** Where HTTP_TLS_* are read; process.env by default. */
  env?: NodeJS.ProcessEnv;
  /** Called once listening, or with the error (EADDRINUSE, …), like express's app.listen. */
  callback?: (error?: Error) => void;
}

/**
 * `app.listen(port, host, callback)` with the HTTPS option: plain HTTP without HTTP_TLS_* (exactly
 * what express does), node:https with them. Throws a WorkerConfigError for half a pair, and the
 * read error for a file it cannot read, before anything is bound.
 */
export function listen(app: RequestListener, options: ListenOptions): Server {
  const tls = httpTlsConfig(options.worker, options.env ?? process.env);
  let server: Server;
  if (tls.HTTP_TLS_CERT_FILE !== undefined && tls.HTTP_TLS_KEY_FILE !== undefined) {
    const mutual = tls.HTTP_TLS_CLIENT_CA_FILE !== undefined;
    server = createHttpsServer(
      {
        cert: readFileSync(tls.HTTP_TLS_CERT_FILE),
        key: readFileSync(tls.HTTP_TLS_KEY_FILE),
        ...(mutual ? { ca: readFileSync(tls.HTTP_TLS_CLIENT_CA_FILE!), requestCert: true, rejectUnauthorized: true } : {}),
      },
      app,
    );
  } else {
    server = createHttpServer(app);
  }
  const { callback } = options;
  if (callback !== undefined) {
    let called = false;
    const done = (error?: Error): void => {
      if (called) return;
      called = true;
      callback(error);
    };
    server.once('error', done);
    return server.listen(options.port, options.host, () => done());
  }
  return server.listen(options.port, options.host);
}

/** `listen` as a promise: the server once it is listening; rejected with the error (EADDRINUSE, …) when it cannot. */
export function listening(app: RequestListener, options: Omit<ListenOptions, 'callback'>): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = listen(app, { ...options, callback: (error) => (error ? reject(error) : resolve(server)) });
  });
}
