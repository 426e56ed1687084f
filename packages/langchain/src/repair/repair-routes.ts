/**
 * The contract's repair hooks and GET /capabilities for a LangChain.js RAG: POST /repair/reindex
 * (a full rebuild behind the alias), POST /repair/generator/pin and POST /repair/knowledge-source,
 * each served only when its part is given, each validated and answered with a RepairResult, and the
 * optional freshness lookup GET /knowledge/{id}. /repair/* and /knowledge/* need the bearer token when
 * one is set (the contract's bearerAuth: the lookup reveals what the index holds, as the reference RAG guards it).
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import type { z } from 'zod';
import {
  CONTRACT_VERSION,
  GeneratorPinRequest,
  KnowledgeFreshness,
  KnowledgeSourceRequest,
  ReindexRequest,
  contractIssues,
  describeIssues,
  type Capabilities,
  type RepairHook,
  type RepairResult,
} from '@rag-immune/rag-contract';
import { TargetCollectionError, type AliasReindex } from './alias-reindex.ts';
import type { PinnedGenerator } from './pinned-generator.ts';

/**
 * The knowledge_source hook's part: the sources, each one's active feed, and the repair itself
 * (KnowledgeSourceSwitch over two vector stores, or a RAG's own feeds re-synced into one index).
 * `apply` throws a RangeError for a request it refuses (unknown source, no backup): a 400.
 */
export interface KnowledgeSourceRepairs {
  readonly names: string[];
  activeFeeds(): Record<string, string>;
  apply(action: KnowledgeSourceRequest['action'], name: string): Promise<number>;
}

/** The freshness lookup: the active feed's and the index's newest version of one knowledge id (null: unknown id). */
export interface KnowledgeFreshnessLookup {
  freshness(knowledgeId: string): Promise<KnowledgeFreshness | null>;
}

export interface RepairParts {
  reindex?: AliasReindex;
  generator?: PinnedGenerator<never, unknown>;
  knowledgeSources?: KnowledgeSourceRepairs;
  /** Serves GET /knowledge/{id} (the contract's optional freshness lookup). */
  knowledge?: KnowledgeFreshnessLookup;
  /** Required as `Authorization: Bearer <token>` on /repair/* when set. */
  bearerToken?: string;
  instance?: string;
  /** The reranker in force, for active_versions. */
  reranker?: () => string;
}

const sameToken = (a: string, b: string) =>
  timingSafeEqual(createHash('sha256').update(a).digest(), createHash('sha256').update(b).digest());

function parse<T>(schema: z.ZodType<T>, body: unknown): { ok: true; value: T } | { ok: false; body: object } {
  const parsed = schema.safeParse(body ?? {});
  return parsed.success
    ? { ok: true, value: parsed.data }
    : { ok: false, body: { error: `invalid request: ${describeIssues(parsed.error)}`, issues: contractIssues(parsed.error) } };
}

export function servedHooks(parts: RepairParts): RepairHook[] {
  return [
    ...(parts.reindex ? (['reindex'] as const) : []),
    ...(parts.generator ? (['generator_pin'] as const) : []),
    ...(parts.knowledgeSources ? (['knowledge_source'] as const) : []),
  ];
}

/**
 * GET /capabilities: the hooks served, what is in force, that traces go to the OTLP intake, and
 * (with the reindex hook, once the alias exists) the alias and its collection with blue/green reindex,
 * so that the effector builds into a new collection and switches the alias itself, with a way back.
 */
export async function capabilities(parts: RepairParts): Promise<Capabilities> {
  const layout = parts.reindex ? await parts.reindex.layout() : null;
  return {
    contract_version: CONTRACT_VERSION,
    ...(parts.instance ? { instance: parts.instance } : {}),
    repair_hooks: servedHooks(parts),
    ...(parts.generator ? { generator_versions: parts.generator.availableVersions } : {}),
    ...(parts.knowledgeSources ? { knowledge_sources: parts.knowledgeSources.names } : {}),
    active_versions: {
      ...(parts.generator ? { generator: parts.generator.version } : {}),
      ...(parts.reranker ? { reranker: parts.reranker() } : {}),
      ...(parts.knowledgeSources ? { knowledge_sources: parts.knowledgeSources.activeFeeds() } : {}),
    },
    ...(layout?.collection ? { vector_store: { collection: layout.collection, alias: layout.alias, blue_green_reindex: true } } : {}),
    traces: 'otlp',
  };
}

export function repairRoutes(parts: RepairParts): Router {
  const router = express.Router();
  router.get('/capabilities', async (_req, res) => void res.json(await capabilities(parts)));
  router.use(['/repair', '/knowledge'], (req, res, next) => {
    if (parts.bearerToken === undefined) return next();
    const header = req.headers.authorization ?? '';
    if (header.startsWith('Bearer ') && sameToken(header.slice(7), parts.bearerToken)) return next();
    res.status(401).set('www-authenticate', 'Bearer').json({ error: 'unauthorized: a valid bearer token is required' });
  });
  // After auth: an unauthenticated caller gets its 401 before any byte of its body is read.
  router.use('/repair', express.json({ limit: REPAIR_BODY_LIMIT }));
  const result = (hook: RepairHook, changed: number, detail: Record<string, unknown>): RepairResult => ({
    hook,
    applied_at: new Date().toISOString(),
    changed,
    detail,
  });

  if (parts.reindex) {
    const reindex = parts.reindex;
    router.post('/repair/reindex', async (req, res) => {
      const request = parse(ReindexRequest, req.body);
      if (!request.ok) return void res.status(400).json(request.body);
      const target = request.value.target_collection;
      if (target !== undefined) {
        // Blue/green for the caller: build only; the caller checks the build and switches the alias.
        const live = await reindex.layout();
        try {
          const built = await reindex.reindexInto(target);
          return void res.json(
            result('reindex', built.points, { ...built, alias: live.alias, live_collection: live.collection, scope: request.value }),
          );
        } catch (error) {
          if (!(error instanceof TargetCollectionError)) throw error;
          return void res.status(409).json({ error: `target_collection ${target}: ${error.message}` });
        }
      }
      // A full rebuild behind the alias covers any `since` or knowledge_ids scope.
      const outcome = await reindex.reindex();
      res.json(result('reindex', outcome.points, { collection: outcome.collection, previous: outcome.previous, scope: request.value }));
    });
  }
  if (parts.generator) {
    const generator = parts.generator;
    router.post('/repair/generator/pin', (req, res) => {
      const request = parse(GeneratorPinRequest, req.body);
      if (!request.ok) return void res.status(400).json(request.body);
      if (!generator.availableVersions.includes(request.value.version))
        return void res
          .status(400)
          .json({ error: `unknown generator version ${request.value.version}: have ${generator.availableVersions.join(', ')}` });
      const previous = generator.pin(request.value.version);
      res.json(result('generator_pin', previous === request.value.version ? 0 : 1, { previous, version: request.value.version }));
    });
  }
  if (parts.knowledgeSources) {
    const sources = parts.knowledgeSources;
    router.post('/repair/knowledge-source', async (req, res) => {
      const request = parse(KnowledgeSourceRequest, req.body);
      if (!request.ok) return void res.status(400).json(request.body);
      try {
        const changed = await sources.apply(request.value.action, request.value.source);
        res.json(
          result('knowledge_source', changed, { action: request.value.action, source: request.value.source, feeds: sources.activeFeeds() }),
        );
      } catch (error) {
        if (!(error instanceof RangeError)) throw error;
        res.status(400).json({ error: error.message });
      }
    });
  }
  if (parts.knowledge) {
    const knowledge = parts.knowledge;
    router.get('/knowledge/:id', async (req, res) => {
      const freshness = await knowledge.freshness(req.params.id);
      if (freshness === null)
        return void res.status(404).json({ error: `no source publishes and the index holds no knowledge id ${req.params.id}` });
      // Checked against the contract before it leaves: the sentinel and identifier parse it strictly.
      res.json(KnowledgeFreshness.parse(freshness));
    });
  }
  router.use('/repair', bodyRefusal);
  return router;
}

/** The largest repair request body: the contract's requests are a few ids and names. */
export const REPAIR_BODY_LIMIT = '64kb';

/**
 * body-parser's refusals (too large, malformed JSON, unsupported encoding or charset) carry a 4xx
 * `status`: the caller gets that status and a message, never the host app's 500.
 */
function bodyRefusal(error: unknown, _req: Request, res: Response, next: NextFunction): void {
  const status = (error as { status?: unknown } | null)?.status;
  if (typeof status !== 'number' || status < 400 || status >= 500) return next(error);
  const type = (error as { type?: unknown }).type;
  const message =
    type === 'entity.too.large'
      ? `request body too large: the limit is ${REPAIR_BODY_LIMIT}`
      : type === 'entity.parse.failed'
        ? 'invalid request: body is not valid JSON'
        : `invalid request body: ${(error as Error).message}`;
  res.status(status).json({ error: message });
}
