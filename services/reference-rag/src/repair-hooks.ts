import type {
  GeneratorPinRequest,
  KnowledgeSourceRequest,
  ParserRepairRequest,
  QueryRewriteRules,
  ReindexRequest,
  RepairResult,
  RerankerPinRequest,
} from '@rag-immune/rag-contract';
import { RequestRefusedError } from './errors.ts';
import type { VectorIndex } from './index/vector-index.ts';
import type { KnowledgeIndexer } from './ingest/knowledge-indexer.ts';
import type { RagService } from './rag-service.ts';

/**
 * The contract's optional repair hooks. A baseline refuses the ones that would change its frozen
 * knowledge (409); a reindex is allowed there because it rebuilds the same frozen knowledge.
 */
export class RepairHooks {
  constructor(
    private readonly service: RagService,
    private readonly indexer: KnowledgeIndexer,
    private readonly index: VectorIndex,
    private readonly knowledge: { clock: () => Date; advanceToNow: () => Date; frozen: boolean },
  ) {}

  async reindex(request: ReindexRequest): Promise<RepairResult> {
    if (request.target_collection !== undefined) return this.reindexInto(request.target_collection);
    const ids = request.knowledge_ids === undefined ? undefined : new Set(request.knowledge_ids);
    const options =
      request.since === undefined
        ? { force: true, ...(ids ? { knowledgeIds: ids } : {}) }
        : { since: new Date(request.since), ...(ids ? { knowledgeIds: ids } : {}) };
    const result = await this.indexer.sync(this.knowledge.clock(), options);
    return done('reindex', result.upserted + result.deleted, { ...result });
  }

  /**
   * Blue/green: every chunk the sources publish now, re-embedded into a new collection beside the live
   * one, which is not touched. The caller (the effector) checks it and switches the alias; until then
   * queries keep reading the old generation. Only an aliased index can be switched, so a plain one refuses.
   */
  private async reindexInto(target: string): Promise<RepairResult> {
    const layout = await this.index.layout();
    if (layout.alias === null)
      throw new RequestRefusedError(
        `this RAG queries collection ${layout.collection} directly (no alias): a new collection could never be switched to`,
        409,
      );
    let into;
    try {
      into = await this.index.createSibling(target);
    } catch (error) {
      throw new RequestRefusedError(`target_collection ${target}: ${error instanceof Error ? error.message : String(error)}`, 409);
    }
    const result = await this.indexer.sync(this.knowledge.clock(), { force: true, into });
    return done('reindex', result.upserted, {
      ...result,
      collection: target,
      points: await into.count(),
      alias: layout.alias,
      live_collection: layout.collection,
    });
  }

  pinReranker(request: RerankerPinRequest): RepairResult {
    if (!this.service.reranker.availableVersions.includes(request.version)) {
      throw new RequestRefusedError(
        `unknown reranker version ${request.version} (have ${this.service.reranker.availableVersions.join(', ')})`,
        400,
      );
    }
    const from = this.service.reranker.version;
    this.service.reranker.use(request.version);
    return done('reranker_pin', from === request.version ? 0 : 1, { from, to: request.version });
  }

  async knowledgeSource(request: KnowledgeSourceRequest): Promise<RepairResult> {
    if (this.knowledge.frozen)
      throw new RequestRefusedError('this baseline instance has frozen knowledge and refuses knowledge mutation', 409);
    const source = this.indexer.sources.find((candidate) => candidate.name === request.source);
    if (source === undefined) throw new RequestRefusedError(`unknown knowledge source ${request.source}`, 400);
    if (request.action === 'switch_to_backup') source.use('backup');
    if (request.action === 'switch_to_primary') source.use('primary');
    const result = await this.indexer.sync(this.knowledge.advanceToNow());
    return done('knowledge_source', result.upserted + result.deleted, { ...result, source: source.name, provider: source.activeProvider });
  }

  /** Pins the parser build and re-parses (re-chunks, re-embeds) the named knowledge with it. */
  async parser(request: ParserRepairRequest): Promise<RepairResult> {
    if (!this.indexer.parserVersions.includes(request.version)) {
      throw new RequestRefusedError(`unknown parser version ${request.version} (have ${this.indexer.parserVersions.join(', ')})`, 400);
    }
    const from = this.indexer.parserVersion;
    this.indexer.useParser(request.version);
    const ids = request.knowledge_ids === undefined ? undefined : new Set(request.knowledge_ids);
    const result = ids === undefined ? undefined : await this.indexer.sync(this.knowledge.clock(), { knowledgeIds: ids });
    const changed = (from === request.version ? 0 : 1) + (result ? result.upserted + result.deleted : 0);
    return done('parser', changed, { from, to: request.version, ...(result ? { ...result } : {}) });
  }

  pinGenerator(request: GeneratorPinRequest): RepairResult {
    const generator = this.service.generator;
    if (!generator.availableVersions.includes(request.version)) {
      throw new RequestRefusedError(`unknown generator version ${request.version} (have ${generator.availableVersions.join(', ')})`, 400);
    }
    const from = generator.version;
    generator.use(request.version);
    return done('generator_pin', from === request.version ? 0 : 1, { from, to: request.version });
  }

  answerValidation(enabled: boolean): RepairResult {
    const changed = this.service.generator.validateAnswers !== enabled;
    this.service.generator.validateAnswers = enabled;
    return done('answer_validation', changed ? 1 : 0, { enabled });
  }

  queryRewriteRules(request: QueryRewriteRules): RepairResult {
    try {
      this.service.normalizer.setRules(request.rules);
    } catch (error) {
      throw new RequestRefusedError(`invalid rewrite rule: ${error instanceof Error ? error.message : String(error)}`, 400);
    }
    return done('query_rewrite_rules', request.rules.length, { rules: request.rules.length });
  }
}

function done(hook: RepairResult['hook'], changed: number, detail: Record<string, unknown>): RepairResult {
  return { hook, applied_at: new Date().toISOString(), changed, detail };
}
