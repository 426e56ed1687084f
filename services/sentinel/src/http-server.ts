import express, { type Express } from 'express';
import type { Registry } from 'prom-client';
import type { Sentinel } from './sentinel.ts';

/** /healthz for the orchestrator, /metrics for Prometheus, /probes for the on-call engineer. */
export function sentinelHttpApp(sentinel: Sentinel, registry: Registry): Express {
  const app = express();
  app.disable('x-powered-by');
  app.get('/healthz', (_req, res) => {
    if (!sentinel.isStarted) {
      res.status(503).json({ status: 'starting' });
      return;
    }
    res.json({ status: 'ok', probes: sentinel.probeStatus().length });
  });
  app.get('/metrics', async (_req, res) => {
    res.set('content-type', registry.contentType);
    res.send(await registry.metrics());
  });
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
  app.use((_req, res) => {
    res.status(404).json({ error: 'not found: the sentinel serves /healthz, /metrics and /probes' });
  });
  return app;
}
