import type { Express } from 'express';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { bearerAuth, workerHttpApp } from '@rag-immune/worker-runtime';
import type { RagSignals } from '@rag-immune/rag-adapter';
import type { Sentinel } from '../sentinel.ts';

export interface SentinelHttpOptions {
  registry: Registry;
  logger: Logger;
  /** The bound address: without a token only loopback is allowed. */
  host: string;
  /** SENTINEL_API_TOKEN: guards /probes. */
  apiToken: string | undefined;
  /** Which signals the watched RAG's answers can feed (contract client: all), served at GET /capabilities. */
  ragSignals?: RagSignals;
  /** How newer online knowledge is judged without a freshness lookup (the adapter's knowledge.newer_than_baseline). */
  newerKnowledge?: 'update' | 'unverified';
  /** SENTINEL_API_TOKENS: one token per caller, whose name the routes' roles and records use. */
  tokens?: Readonly<Record<string, string>>;
  /** More routes behind the same guard (the probe-set rotation's proposals). */
  extraRoutes?: (app: Express) => void;
}

/**
 * /healthz for the orchestrator, /metrics for Prometheus, /probes for the on-call engineer (behind
 * the bearer token: it reveals the probe set and the last results), /capabilities (same guard): which
 * signals the watched RAG supports; 500s answer with an error id only.
 */
export function sentinelHttpApp(sentinel: Sentinel, options: SentinelHttpOptions): Express {
  return workerHttpApp({
    worker: 'sentinel',
    registry: options.registry,
    logger: options.logger,
    health: () => ({ ready: sentinel.isStarted, ...(sentinel.isStarted ? { detail: { probes: sentinel.probeStatus().length } } : {}) }),
    auth: bearerAuth({
      worker: 'sentinel',
      host: options.host,
      token: options.apiToken,
      tokens: options.tokens,
      tokenEnv: 'SENTINEL_API_TOKEN',
      logger: options.logger,
    }),
    routes: (app) => {
      if (options.ragSignals !== undefined) {
        const rag = options.ragSignals;
        const knowledge = options.newerKnowledge === undefined ? {} : { knowledge: { newer_than_baseline: options.newerKnowledge } };
        app.get('/capabilities', (_req, res) => {
          res.json({ rag, ...knowledge });
        });
      }
      app.get('/probes', (_req, res) => {
        res.json(
          sentinel.probeStatus().map((s) => ({
            id: s.probe.id,
            version: s.probe.version,
            query: s.probe.query,
            running: s.running,
            last_result: s.lastResult ?? null,
            last_error: s.lastError ?? null,
          })),
        );
      });
      options.extraRoutes?.(app);
    },
  });
}
