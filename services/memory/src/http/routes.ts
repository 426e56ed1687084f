import type { Express } from 'express';
import { z } from 'zod';
import { HttpRequestError } from '@rag-immune/worker-runtime';
import { caseIdOf } from '../cases/healing-case.ts';
import type { CaseStore } from '../cases/case-store.ts';
import type { Recommender } from '../recommend/recommender.ts';

const ListQuery = z
  .object({
    status: z.enum(['active', 'superseded', 'archived']).optional(),
    root_cause: z.string().min(1).max(100).optional(),
    outcome: z.enum(['recovered', 'failed', 'escalated', 'open']).optional(),
    limit: z.coerce.number().int().min(1).max(500).default(50),
    offset: z.coerce.number().int().min(0).max(10_000).default(0),
  })
  .strict();

const READ_BUDGET = { timeoutMs: 5000 };

/** POST /recommend and the case lookups (the CLI's `immune cases`). */
export function memoryRoutes(deps: { store: CaseStore; recommender: Recommender; environment: string }) {
  return (app: Express): void => {
    app.post('/recommend', async (req, res) => {
      res.json(await deps.recommender.recommend(req.body));
    });
    app.get('/cases', async (req, res) => {
      const query = ListQuery.parse(req.query);
      const page = await withStore(() => deps.store.list(query, READ_BUDGET));
      res.json({ total: page.total, offset: query.offset, cases: page.cases });
    });
    app.get('/cases/by-incident/:incident_id', async (req, res) => {
      const environment = z.string().min(1).max(100).default(deps.environment).parse(req.query.environment);
      // ?cause=: the case of one cause of an incident that had several (one case per cause).
      const cause = z
        .string()
        .min(1)
        .max(100)
        .nullable()
        .default(null)
        .parse(req.query.cause ?? null);
      const stored = await withStore(() => deps.store.get(caseIdOf(environment, req.params.incident_id, cause)));
      if (stored === null)
        throw new HttpRequestError(
          404,
          `no case for incident ${req.params.incident_id}${cause === null ? '' : ` and cause ${cause}`} in environment ${environment}`,
        );
      res.json(stored.healingCase);
    });
    app.get('/cases/:id', async (req, res) => {
      const stored = await withStore(() => deps.store.get(req.params.id));
      if (stored === null) throw new HttpRequestError(404, `no case ${req.params.id}`);
      res.json(stored.healingCase);
    });
  };
}

/** A store that cannot answer a read is a 503 the caller can retry, not a 500. */
async function withStore<T>(read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    if (error instanceof HttpRequestError) throw error;
    throw new HttpRequestError(503, `case store unavailable: ${error instanceof Error ? error.message : String(error)}`);
  }
}
