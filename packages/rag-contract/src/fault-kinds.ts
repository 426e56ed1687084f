/**
 * Every fault the test kit, the benches and the reference RAG know, defined once: its kind (by how it
 * is put in) and, in FAULT_CATALOGUE, the modes it takes (the reference RAG's fault injector accepts
 * these), the modes a loop trial and an identifier scenario run, the root cause and components a
 * correct RootCauseReport names, the repair intents whose verified success is a right repair, and
 * whether it is scoped by knowledge ids. Adding a fault is its kind and one entry here; the injector,
 * the test kit's loop expectations and identifier scenarios, and the benches read them.
 */
import type { CatalogueCause, RagComponent, RepairIntent } from '@rag-immune/contracts';

/**
 * The production faults a RAG with a fault admin API (the reference RAG) can have injected: named
 * here, beside the client of that API, so the CLI, the test kit and the RAG share one list.
 */
export const FAULT_KINDS = [
  'vector-index-corruption',
  'reranker-drift',
  'knowledge-source-failure',
  'parser-bug',
  'generator-inconsistency',
  'tokenizer-anomaly',
] as const;

/**
 * Faults injected only to evaluate the identifier: no detector was designed for them, so the right
 * answer is `unknown` (or the right component), never one of the six causes. Not offered by the CLI.
 */
export const EVALUATION_FAULT_KINDS = ['embedding-model-swap'] as const;

/** Operator mistakes written straight into the online RAG's Qdrant collection (no fault API; the test kit's operator-faults.ts). */
export const QDRANT_FAULT_KINDS = ['unpublished-knowledge', 'attribution-swap', 'vectors-overwritten'] as const;

/** A worse build of the online RAG deployed (no fault API; the test kit's deploy-faults.ts). */
export const DEPLOY_FAULT_KINDS = ['prompt-regressed'] as const;

export type FaultApiKind = (typeof FAULT_KINDS)[number] | (typeof EVALUATION_FAULT_KINDS)[number];
export type CatalogueFaultKind = FaultApiKind | (typeof QDRANT_FAULT_KINDS)[number] | (typeof DEPLOY_FAULT_KINDS)[number];

export interface FaultSpec {
  /** Every mode the fault takes; the first is the fault API's default when none is named. */
  modes: readonly [string, ...string[]];
  /** The modes a loop trial runs (first: its default); a mode that shows only later, like `frozen`, is left out. */
  trialModes: readonly [string, ...string[]];
  /** The modes of the identifier's labelled scenarios (recorded trace pairs, bench/identifier); empty: none. */
  scenarioModes: readonly string[];
  /** The cause a correct report names; null for an evaluation kind (only `unknown` or the components are right). */
  cause: CatalogueCause | null;
  /** Components that count as correctly localised. */
  components: readonly RagComponent[];
  /** Intents whose verified success is a right repair. Empty: no verified repair can be right. */
  healingIntents: readonly RepairIntent[];
  /** Scoped by knowledge ids (false: global or by query). */
  scoped: boolean;
  /**
   * A fault-API kind's rows in the fault table of services/reference-rag/README.md, which `npm run
   * codegen` writes from this catalogue (one row per group of modes that breaks and heals alike).
   */
  readme?: readonly FaultReadmeRow[];
}

/** One row of the reference RAG's fault table: the modes, what breaks, what it touches, its undo, the hook that heals it. */
export interface FaultReadmeRow {
  modes: string;
  breaks: string;
  touches: string;
  undo: string;
  heals: string;
}

export const FAULT_CATALOGUE: Readonly<Record<CatalogueFaultKind, FaultSpec>> = {
  'vector-index-corruption': {
    modes: ['perturb', 'zero', 'drop'],
    trialModes: ['zero', 'perturb', 'drop'],
    scenarioModes: ['zero', 'perturb', 'drop'],
    cause: 'vector_index_corruption',
    components: ['vector_index'],
    healingIntents: ['rebuild_index_incremental'],
    scoped: true,
    readme: [
      {
        modes: '`perturb` (noise), `zero`, `drop`',
        breaks: "the scoped points' vectors in Qdrant",
        touches: 'questions on scoped knowledge',
        undo: 'writes the saved vectors/points back',
        heals: '`POST /repair/reindex` (`force`)',
      },
    ],
  },
  'reranker-drift': {
    modes: ['v2.2-drift'],
    trialModes: ['v2.2-drift'],
    scenarioModes: ['v2.2-drift'],
    cause: 'reranker_drift',
    components: ['reranker'],
    healingIntents: ['rollback_reranker'],
    scoped: false,
    readme: [
      {
        modes: '`v2.2-drift`',
        breaks: 'active reranker weights',
        touches: 'every question',
        undo: 'previous version',
        heals: '`POST /repair/reranker/pin {version: v2.1}`',
      },
    ],
  },
  'knowledge-source-failure': {
    // stale: the feed serves old versions (a backup feed heals); ingest-stalled: the feed is current
    // and the index stopped ingesting (only re-ingesting heals). Same cause, different repair.
    // 'frozen' stops updates from now on: invisible until the knowledge moves, so not a loop trial.
    modes: ['stale', 'frozen', 'ingest-stalled'],
    trialModes: ['stale', 'ingest-stalled'],
    scenarioModes: ['stale'],
    cause: 'knowledge_source_failure',
    components: ['knowledge_source'],
    healingIntents: ['switch_backup_source', 'refresh_knowledge_source', 'rebuild_index_incremental'],
    scoped: true,
    readme: [
      {
        modes: '`stale` (serves versions as of `stale_as_of`), `frozen` (stops updating now)',
        breaks: "the source's primary feed for scoped ids; index re-synced from it",
        touches: 'scoped questions whose answer changed since',
        undo: 'primary restored, re-sync',
        heals: '`POST /repair/knowledge-source {action: switch_to_backup}`',
      },
      {
        modes: '`ingest-stalled` (the index stopped ingesting the scoped ids at `stale_as_of`; the feeds stay current)',
        breaks: "the index's chunks of scoped ids, and a dead ingestion lease that makes routine syncs (backup switch, refresh) skip them",
        touches: 'scoped questions whose answer changed since',
        undo: 'lease released, re-sync',
        heals:
          '`POST /repair/reindex {knowledge_ids}` (forced re-ingest); a backup switch or refresh does **not** heal it. `GET /knowledge/{id}` shows `feed` newer than `indexed`',
      },
    ],
  },
  'parser-bug': {
    modes: ['merge-sections', 'boilerplate'],
    trialModes: ['merge-sections', 'boilerplate'],
    scenarioModes: ['merge-sections', 'boilerplate'],
    cause: 'parser_bug',
    components: ['parser'],
    healingIntents: ['reparse_documents', 'rebuild_index_incremental'],
    scoped: true,
    readme: [
      {
        modes: '`merge-sections`, `boilerplate`',
        breaks:
          'installs parser build `deb822-chunker-1.0+<mode>` (shown in `/capabilities` `active_versions.parser`) that mis-chunks scoped ids; those chunks re-parsed and re-embedded',
        touches: 'scoped questions',
        undo: 'previous parser build, re-sync',
        heals: '`POST /repair/parser {version: deb822-chunker-1.0, knowledge_ids}` (pin + re-parse)',
      },
    ],
  },
  'generator-inconsistency': {
    modes: ['swap'],
    trialModes: ['swap'],
    scenarioModes: ['swap'],
    cause: 'generator_inconsistency',
    components: ['generator'],
    healingIntents: ['enable_answer_validation_fallback'],
    scoped: true,
    readme: [
      {
        modes: '`swap`',
        breaks:
          "installs generator build `extractive-template-1.0+swap` (in answers' `models.generator`): answers about scoped ids state another chunk's value",
        touches: 'scoped questions',
        undo: 'previous build',
        heals:
          '`POST /repair/generator/pin {version: extractive-template-1.0}`; `POST /repair/answer-validation {enabled: true}` only withholds them',
      },
    ],
  },
  'tokenizer-anomaly': {
    modes: ['lookalike-unicode'],
    trialModes: ['lookalike-unicode'],
    scenarioModes: ['lookalike-unicode'],
    cause: 'tokenizer_anomaly',
    components: ['tokenizer'],
    healingIntents: ['add_query_rewrite_rule'],
    scoped: false,
    readme: [
      {
        modes: '`lookalike-unicode`',
        breaks: '`-` `.` `+` inside words arrive as U+2010 / U+2024 / U+2795 with zero-width joiners',
        touches: 'questions with such names',
        undo: 'normaliser fixed',
        heals: '`PUT /repair/query-rewrite-rules`',
      },
    ],
  },
  // A silent query-embedder swap: retrieval breaks, no repair hook of the reference RAG undoes it.
  'embedding-model-swap': {
    modes: ['permute-dimensions'],
    trialModes: ['permute-dimensions'],
    scenarioModes: ['permute-dimensions'],
    cause: null,
    components: ['unknown', 'retriever'],
    healingIntents: [],
    scoped: false,
  },
  // Operator mistakes made straight in Qdrant, no fault API: a version no feed published, and two
  // documents' ids swapped in the chunk metadata. Re-ingesting from the feed heals both.
  'unpublished-knowledge': {
    modes: ['leaked-test-record'],
    trialModes: ['leaked-test-record'],
    scenarioModes: [],
    cause: 'unpublished_knowledge',
    components: ['vector_index'],
    healingIntents: ['rebuild_index_incremental'],
    scoped: true,
  },
  'attribution-swap': {
    modes: ['swap-ids'],
    trialModes: ['swap-ids'],
    scenarioModes: [],
    cause: 'wrong_attribution',
    components: ['vector_index'],
    healingIntents: ['rebuild_index_incremental'],
    scoped: true,
  },
  // Issue 27: some knowledge's vectors overwritten in place with garbage, or its points deleted, by a
  // script run straight on Qdrant. Rebuilding the index heals it.
  'vectors-overwritten': {
    modes: ['garbage', 'deleted'],
    trialModes: ['garbage', 'deleted'],
    scenarioModes: [],
    cause: 'vector_index_corruption',
    components: ['vector_index'],
    healingIntents: ['rebuild_index_incremental'],
    scoped: true,
  },
  // Issue 27: the online RAG redeployed with a regressed prompt template (the LangChain RAG only; the
  // modes are its regressed prompt versions). The generator's input is unchanged, its build is not:
  // pinning the generator back to the baseline's build heals it (the generator-side repair intent).
  'prompt-regressed': {
    modes: ['instruct-v2', 'zero-shot-v2'],
    trialModes: ['instruct-v2', 'zero-shot-v2'],
    scenarioModes: [],
    cause: 'generator_inconsistency',
    components: ['generator'],
    healingIntents: ['enable_answer_validation_fallback'],
    scoped: false,
  },
};
