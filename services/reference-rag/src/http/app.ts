import express, { type NextFunction, type Request, type Response } from 'express';
import type { Logger } from 'pino';
import type { z } from 'zod';
import {
  AnswerValidationRequest,
  Capabilities,
  CONTRACT_VERSION,
  GeneratorPinRequest,
  KnowledgeFreshness,
  KnowledgeSourceRequest,
  ParserRepairRequest,
  QueryRequest,
  QueryResponse,
  QueryRewriteRules,
  ReindexRequest,
  RepairResult,
  RerankerPinRequest,
  Trace,
  contractIssues,
  describeIssues,
} from '@rag-immune/rag-contract';
import { bearerAuth, bodyParserRefusal, sendInternalError } from '@rag-immune/worker-runtime';
import { RequestRefusedError } from '../errors.ts';
import { FaultKind, InjectRequest, type FaultInjector } from '../faults/fault-injector.ts';
import type { FaultJournal } from '../faults/fault-journal.ts';
import type { RagMetrics } from '../metrics.ts';
import type { RagService } from '../rag-service.ts';
import type { RepairHooks } from '../repair-hooks.ts';
import type { VectorStoreLayout } from '../index/vector-index.ts';

export interface AppDeps {
  service: RagService;
  repair: RepairHooks;
  faults: FaultInjector;
  journal: FaultJournal;
  metrics: RagMetrics;
  logger: Logger;
  knowledgeSources: string[];
  /** Each knowledge source's active feed (primary or backup), for capabilities. */
  activeFeeds: () => Record<string, string>;
  /** The freshness lookup of GET /knowledge/{id}: the feed's and the index's newest version of an id. */
  knowledge: { freshness(knowledgeId: string): Promise<KnowledgeFreshness | null> };
  /** Where the vectors live now (alias and physical collection), for capabilities. */
  vectorStore: () => Promise<VectorStoreLayout>;
  /** The parser builds (a parser-bug fault is a defective build) for capabilities. */
  parser: { parserVersion: string; parserVersions: string[] };
  /** Baselines refuse fault injection: they are the reference the online answers are judged against. */
  faultsAllowed: boolean;
  /** RAG_FAULT_INJECTION=enabled: without it POST /admin/faults/* answers 403 (production instances). */
  faultInjectionEnabled: boolean;
  /** RAG_API_TOKEN: guards /repair, /traces and /admin; none means open on loopback only. */
  apiToken: string | undefined;
  /** The bound address, to refuse an unguarded non-loopback binding. */
  host: string;
}

class BadRequest extends Error {
  constructor(
    message: string,
    readonly issues: { path: string; message: string }[],
  ) {
    super(message);
  }
}

function parseBody<T>(schema: z.ZodType<T>, body: unknown): T {
  const parsed = schema.safeParse(body ?? {});
  if (!parsed.success) throw new BadRequest(`invalid request: ${describeIssues(parsed.error)}`, contractIssues(parsed.error));
  return parsed.data;
}

/** Responses are checked against the contract too: a bug here must not reach the sentinel as data. */
function sendChecked<T>(res: Response, schema: z.ZodType<T>, payload: T): void {
  const parsed = schema.safeParse(payload);
  if (!parsed.success) throw new Error(`response violates the RAG health contract: ${describeIssues(parsed.error)}`);
  res.json(parsed.data);
}

/** The HTTP surface: the health contract (query, traces, repair hooks), /healthz, /metrics and the fault admin API. */
export function createApp(deps: AppDeps): express.Express {
  const { service, repair, faults, journal, metrics, logger } = deps;
  const app = express();
  app.disable('x-powered-by');
  // Repairs and faults mutate the service; traces reveal queries and retrieved knowledge. /query,
  // /capabilities, /healthz and /metrics stay open: they are the RAG's public face and its probes.
  app.use(
    ['/repair', '/traces', '/knowledge', '/admin'],
    bearerAuth({ worker: `reference-rag (${service.instance})`, host: deps.host, token: deps.apiToken, tokenEnv: 'RAG_API_TOKEN', logger }),
  );
  // After auth: an unauthenticated caller of a guarded route gets its 401 before its body is parsed.
  app.use(express.json({ limit: '1mb' }));

  app.post('/query', async (req, res) => {
    const stop = metrics.queryDuration.startTimer();
    const request = parseBody(QueryRequest, req.body);
    const { traceparent, tracestate } = req.headers;
    // The caller's W3C context, tracestate included: the sentinel's `rag-immune=probe` mark rides on it.
    const response = await service.query(request, {
      ...(typeof traceparent === 'string' ? { traceparent } : {}),
      ...(typeof tracestate === 'string' ? { tracestate } : {}),
    });
    sendChecked(res, QueryResponse, response);
    metrics.queries.inc({ outcome: response.abstained ? 'abstained' : 'answered' });
    stop();
  });

  app.get('/traces/:id', (req, res) => {
    if (!service.servesTraces) {
      res.status(404).json({ error: 'this RAG serves no /traces (RAG_TRACES_ENDPOINT=disabled): its traces go to the OTLP trace intake' });
      return;
    }
    const trace = service.trace(req.params.id);
    if (trace === undefined) {
      res.status(404).json({ error: `unknown or evicted trace id: ${req.params.id}` });
      return;
    }
    sendChecked(res, Trace, trace);
  });

  app.get('/knowledge/:id', async (req, res) => {
    const freshness = await deps.knowledge.freshness(req.params.id);
    if (freshness === null) {
      res.status(404).json({ error: `no source publishes and the index holds no knowledge id ${req.params.id}` });
      return;
    }
    sendChecked(res, KnowledgeFreshness, freshness);
  });

  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok', instance: service.instance });
  });

  app.get('/metrics', async (_req, res) => {
    res.type(metrics.registry.contentType).send(await metrics.registry.metrics());
  });

  app.get('/capabilities', async (_req, res) => {
    const layout = await deps.vectorStore();
    sendChecked(res, Capabilities, {
      contract_version: CONTRACT_VERSION,
      instance: service.instance,
      repair_hooks: ['reindex', 'reranker_pin', 'knowledge_source', 'answer_validation', 'query_rewrite_rules', 'parser', 'generator_pin'],
      reranker_versions: service.reranker.availableVersions,
      knowledge_sources: deps.knowledgeSources,
      parser_versions: deps.parser.parserVersions,
      generator_versions: service.generator.availableVersions,
      active_versions: {
        reranker: service.reranker.version,
        generator: service.generator.version,
        parser: deps.parser.parserVersion,
        knowledge_sources: deps.activeFeeds(),
      },
      answer_validation: service.generator.validateAnswers,
      vector_store: { collection: layout.collection, alias: layout.alias, blue_green_reindex: layout.alias !== null },
      traces: service.servesTraces ? 'endpoint' : 'otlp',
    });
  });

  app.post('/repair/reindex', async (req, res) =>
    sendChecked(res, RepairResult, await repair.reindex(parseBody(ReindexRequest, req.body))),
  );
  app.post('/repair/reranker/pin', (req, res) =>
    sendChecked(res, RepairResult, repair.pinReranker(parseBody(RerankerPinRequest, req.body))),
  );
  app.post('/repair/knowledge-source', async (req, res) =>
    sendChecked(res, RepairResult, await repair.knowledgeSource(parseBody(KnowledgeSourceRequest, req.body))),
  );
  app.post('/repair/answer-validation', (req, res) =>
    sendChecked(res, RepairResult, repair.answerValidation(parseBody(AnswerValidationRequest, req.body).enabled)),
  );
  app.put('/repair/query-rewrite-rules', (req, res) =>
    sendChecked(res, RepairResult, repair.queryRewriteRules(parseBody(QueryRewriteRules, req.body))),
  );
  app.post('/repair/parser', async (req, res) =>
    sendChecked(res, RepairResult, await repair.parser(parseBody(ParserRepairRequest, req.body))),
  );
  app.post('/repair/generator/pin', (req, res) =>
    sendChecked(res, RepairResult, repair.pinGenerator(parseBody(GeneratorPinRequest, req.body))),
  );
  app.get('/repair/query-rewrite-rules', (_req, res) => {
    res.json({ rules: service.normalizer.currentRules });
  });

  // Fault admin API: not part of the contract; the demo, tests and benchmarks drive it.
  app.get('/admin/faults', (_req, res) => {
    res.json({ kinds: FaultKind.options, active: faults.list() });
  });
  app.get('/admin/faults/journal', (_req, res) => {
    res.json({ entries: journal.list() });
  });
  app.post('/admin/faults/:kind', async (req, res) => {
    if (!deps.faultInjectionEnabled)
      throw new RequestRefusedError('fault injection is disabled on this instance (start it with RAG_FAULT_INJECTION=enabled)', 403);
    if (!deps.faultsAllowed) throw new RequestRefusedError('this baseline instance refuses fault injection', 409);
    const kind = parseBody(FaultKind, req.params.kind);
    const result = await faults.inject(kind, parseBody(InjectRequest, req.body));
    metrics.activeFaults.set({ kind }, 1);
    logger.warn(
      { fault: result.fault.kind, mode: result.fault.mode, affected: result.fault.affected_knowledge_ids?.length },
      'fault injected',
    );
    res.json(result);
  });
  app.delete('/admin/faults/:kind', async (req, res) => {
    const kind = parseBody(FaultKind, req.params.kind);
    const result = await faults.undo(kind);
    metrics.activeFaults.set({ kind }, 0);
    logger.warn({ fault: kind }, 'fault undone');
    res.json(result);
  });

  app.use((req: Request, res: Response) => {
    res.status(404).json({ error: `no route ${req.method} ${req.path}` });
  });

  // Express 5 forwards rejected promises here.
  app.use((error: unknown, req: Request, res: Response, _next: NextFunction) => {
    if (error instanceof BadRequest) {
      res.status(400).json({ error: error.message, issues: error.issues });
      return;
    }
    if (error instanceof RequestRefusedError) {
      res.status(error.status).json({ error: error.message });
      return;
    }
    // Too large (413), unsupported encoding or charset (415), malformed JSON (400): a message, not a 500.
    const refusal = bodyParserRefusal(error);
    if (refusal !== null) {
      res.status(refusal.status).json({ error: refusal.message });
      return;
    }
    sendInternalError(logger, 'reference-rag', error, req, res);
  });
  return app;
}
