/**
 * Effector benchmark (real local stack; not run in CI):
 *  1. Per size (384-d float32, a chunk-like payload), on the stack's Qdrant (the real server): upsert
 *     throughput; snapshot and restore with the effector's own SnapshotStore (create + ES record;
 *     recover by file:// or upload + count check); a blue/green rebuild (a second collection loaded
 *     beside the first), the alias switch and its rollback; disk of a collection and its snapshot.
 *  2. kill -9 of the effector process at each step of an action (EFFECTOR_TEST_CRASH_AT), N times per
 *     RAG layout (plain: in-place reindex after a snapshot; alias: blue/green), restarted under a new
 *     instance id that takes over once the dead one's lease ran out: duplicate executions,
 *     unrecovered incidents, and whether Qdrant was at the before or the after state at the kill.
 *  3. `immune rollback` of a successful repair restores the pre-repair answers exactly (each layout).
 *
 *   npm run bench:effector -- [--points 100000,1000000] [--kills 20] [--packages 10] [--layouts plain,alias]
 *                             [--skip-snapshots] [--skip-kills]
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Presets, SingleBar } from 'cli-progress';
import { parseArgs } from 'node:util';
import { Client } from '@elastic/elasticsearch';
import { createQdrantClient } from '@rag-immune/worker-runtime';
import { pino } from 'pino';
import { EventBus, busDefaults, parseBusConfig } from '@rag-immune/bus';
import { exampleRootCauseReport, type RepairAction, type RootCauseReport } from '@rag-immune/contracts';
import { isExactAnswer, loadQuestions, startReferenceRagPair } from '@rag-immune/reference-rag/testing';
import { RagClient, callFaultAdmin } from '@rag-immune/rag-contract';
import { qdrantEnv } from '@rag-immune/stack';
import { sleep } from '@rag-immune/test-kit';
import { endpoints } from '@rag-immune/test-kit/stack';
import {
  ActionStore,
  CRASH_POINTS,
  CollectionAliases,
  QdrantSnapshotArchive,
  SnapshotStore,
  effectorIndices,
  type ActionDoc,
} from '@rag-immune/effector';
import { elasticsearchStores } from '@rag-immune/es-store';

const { values: args } = parseArgs({
  options: {
    points: { type: 'string', default: '100000,1000000' },
    kills: { type: 'string', default: '20' },
    packages: { type: 'string', default: '10' },
    'skip-snapshots': { type: 'boolean', default: false },
    'skip-kills': { type: 'boolean', default: false },
    layouts: { type: 'string', default: 'plain,alias' },
  },
});
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const logger = pino({ level: 'warn' });
const run = randomUUID().slice(0, 8);
const es = new Client({ node: endpoints.elasticsearchUrl });
const qdrant = createQdrantClient({ url: endpoints.qdrantUrl, apiKey: endpoints.qdrantApiKey, timeoutMs: 600_000 });
const prefix = `bench-eff-${run}`;

async function qdrantVersion(): Promise<string> {
  const root = (await (
    await fetch(`${endpoints.qdrantUrl}/`, { headers: endpoints.qdrantApiKey ? { 'api-key': endpoints.qdrantApiKey } : {} })
  ).json()) as { title: string; version: string };
  return `${root.title} ${root.version}`;
}
const results: Record<string, unknown> = {
  machine: '2 cores, 24 GiB, Debian 12',
  qdrant: await qdrantVersion(),
};

/** Bytes under a directory (the local server's storage or snapshots), or null when it is not on this machine. */
function diskBytes(path: string | undefined): number | null {
  if (path === undefined || !existsSync(path)) return null;
  const out = execFileSync('du', ['-sb', path], { encoding: 'utf8' });
  return Number(out.split('\t')[0]);
}

const mb = (bytes: number | null) => (bytes === null ? null : +(bytes / 1e6).toFixed(1));
const secondsSince = (t: number) => +((performance.now() - t) / 1000).toFixed(2);

/** Upserts n 384-d points with a chunk-like payload (batches of 500, two in flight); returns points per second. */
async function load(collection: string, n: number): Promise<number> {
  await qdrant.createCollection(collection, { vectors: { size: 384, distance: 'Cosine' } });
  await qdrant.createPayloadIndex(collection, { field_name: 'knowledge_id', field_schema: 'keyword', wait: true });
  let seed = 12345;
  const rnd = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 0x100000000 - 0.5;
  const text = 'Debian changelog entry: fixes CVE-2024-0001 in the parser, rebuilds against the new toolchain, ';
  const batch = (offset: number) =>
    Array.from({ length: Math.min(500, n - offset) }, (_, i) => ({
      id: offset + i + 1,
      vector: Array.from({ length: 384 }, () => rnd()),
      payload: {
        knowledge_id: `changelog/pkg-${(offset + i) % 4999}`,
        version: `1.${(offset + i) % 97}-${(offset + i) % 7}`,
        source: 'debian-changelog',
        valid_from: '2024-06-01T00:00:00Z',
        valid_until: null,
        text: `${text}${offset + i}`,
      },
    }));
  const started = performance.now();
  const bar = new SingleBar({ format: `load ${collection} {bar} {value}/{total} points`, hideCursor: true }, Presets.shades_classic);
  bar.start(n, 0);
  for (let offset = 0; offset < n; offset += 1000) {
    await Promise.all([offset, offset + 500].filter((o) => o < n).map((o) => qdrant.upsert(collection, { points: batch(o), wait: true })));
    bar.update(Math.min(n, offset + 1000));
  }
  bar.stop();
  return Math.round(n / ((performance.now() - started) / 1000));
}

/**
 * Per size: load (upsert throughput), snapshot and restore through the effector's SnapshotStore
 * (file:// recovery when the server's snapshots directory is known, upload otherwise), the blue/green
 * reindex (a second collection loaded beside the first: what a rebuild costs), the alias switch and
 * its rollback through CollectionAliases, and the disk each takes on a local server.
 */
async function snapshotFigures(): Promise<void> {
  const archive = new QdrantSnapshotArchive(qdrant, {
    connection: { url: endpoints.qdrantUrl, apiKey: endpoints.qdrantApiKey, timeoutMs: 3_600_000 },
    ...(endpoints.qdrantSnapshotsPath ? { serverSnapshotsPath: endpoints.qdrantSnapshotsPath } : {}),
  });
  const store = new SnapshotStore(archive, elasticsearchStores(es), `${prefix}-snapshots`);
  await store.init();
  const aliases = new CollectionAliases(qdrant, { keepLast: 1, keepWithinDays: 0 });
  const storage = endpoints.qdrantSnapshotsPath ? join(endpoints.qdrantSnapshotsPath, '..', 'storage', 'collections') : undefined;
  const rows = [];
  for (const n of args.points.split(',').map(Number)) {
    const blue = `${prefix}-${n}-blue`;
    const green = `${prefix}-${n}-green`;
    const alias = `${prefix}-${n}`;
    const upsertPerS = await load(blue, n);
    await qdrant.updateCollectionAliases({ actions: [{ create_alias: { collection_name: blue, alias_name: alias } }] });
    const blueDisk = diskBytes(storage && join(storage, blue));

    let t = performance.now();
    const record = await store.create(alias, `bench-${run}`, null);
    const snapshotS = secondsSince(t);
    // Damage a tenth of the points, then restore the collection from the snapshot.
    await qdrant.delete(blue, { points: Array.from({ length: Math.floor(n / 10) }, (_, i) => i + 1), wait: true });
    t = performance.now();
    const restored = await store.restore(record);
    const restoreS = secondsSince(t);

    t = performance.now();
    await load(green, n);
    const rebuildS = secondsSince(t);
    t = performance.now();
    await aliases.swap(alias, blue, green);
    const swapMs = Math.round(performance.now() - t);
    t = performance.now();
    await aliases.swap(alias, green, blue);
    const rollbackMs = Math.round(performance.now() - t);
    const servedBack = (await qdrant.count(alias, { exact: true })).count;

    rows.push({
      points: n,
      upsert_points_per_s: upsertPerS,
      snapshot_s: snapshotS,
      restore_s: restoreS,
      restore_via: store.recoveryMode,
      restored_points: restored.points_count,
      snapshot_mb: mb(record.size_bytes),
      collection_disk_mb: mb(blueDisk),
      blue_green_rebuild_s: rebuildS,
      alias_switch_ms: swapMs,
      alias_rollback_ms: rollbackMs,
      served_after_rollback: servedBack,
    });
    console.log(JSON.stringify(rows.at(-1)));
    await store.delete(record);
    await qdrant.deleteCollection(green);
    await qdrant.deleteCollection(blue);
  }
  results.snapshots = rows;
}

function spawnAsync(
  command: string,
  argv: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; encoding: 'utf8' },
): Promise<{ status: number | null; stdout: string }> {
  return new Promise((resolve) => {
    const child = spawn(command, argv, { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'inherit'] });
    let stdout = '';
    child.stdout.on('data', (c: Buffer) => void (stdout += c.toString()));
    child.once('exit', (status) => resolve({ status, stdout }));
  });
}

async function waitListening(proc: { output: () => string; exited: Promise<number | null> }, timeoutMs = 300_000): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const line = proc
      .output()
      .split('\n')
      .find((l) => l.includes('"msg":"effector listening"'));
    if (line) return (JSON.parse(line) as { port: number }).port;
    await sleep(200);
  }
  throw new Error(`effector did not start: ${proc.output().slice(-2000)}`);
}

function startEffector(env: NodeJS.ProcessEnv): { child: ChildProcess; exited: Promise<number | null>; output: () => string } {
  const child = spawn(process.execPath, ['--import', 'tsx', 'services/effector/src/main.ts'], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (c: Buffer) => void (out += c.toString()));
  child.stderr?.on('data', (c: Buffer) => void (out += c.toString()));
  return { child, exited: new Promise((r) => child.once('exit', (code) => r(code))), output: () => out };
}

/**
 * The kill -9 matrix and the CLI rollback on one RAG layout: `plain` (the RAG queries a collection
 * directly; the index repair rewrites it in place after a snapshot) or `alias` (blue/green: a new
 * collection and an alias switch; no snapshot step to be killed at).
 */
async function killFigures(layout: 'plain' | 'alias'): Promise<void> {
  const tool = layout === 'alias' ? 'reindex_into_new_collection' : 'reindex_knowledge';
  const steps = CRASH_POINTS.filter((step) => layout === 'plain' || step !== 'after_snapshot');
  const rags = await startReferenceRagPair({
    qdrantUrl: endpoints.qdrantUrl,
    qdrantApiKey: endpoints.qdrantApiKey,
    qdrantAlias: layout === 'alias',
    packages: Number(args.packages),
    label: `bench-eff-${layout}`,
    logger,
  });
  const collection = rags.online.config.QDRANT_COLLECTION as string;
  const online = new RagClient({ baseUrl: rags.onlineUrl, timeoutMs: 60_000 });
  const baseline = new RagClient({ baseUrl: rags.baselineUrl, timeoutMs: 60_000 });
  const busConfig = parseBusConfig({
    ...busDefaults('development'),
    clientId: `bench-eff-${run}`,
    brokers: endpoints.kafkaBrokers,
    schemaRegistryUrl: endpoints.schemaRegistryUrl,
    topicPrefix: `${prefix}-${layout}.`,
  });
  const bus = new EventBus(busConfig, logger);
  await bus.start(['reports', 'actions']);
  const publisher = await bus.publisher();
  const events: RepairAction[] = [];
  await bus.subscribe({
    topic: 'actions',
    groupId: `${prefix}-${layout}-observer`,
    fromBeginning: true,
    onPoison: 'skip',
    handle: async (e) => void events.push(e),
  });
  const esPrefix = `${prefix}-${layout}`;
  const actions = new ActionStore(elasticsearchStores(es), effectorIndices(esPrefix).actions);
  const token = `bench-token-${run}-0123456789`;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    KAFKA_BROKERS: endpoints.kafkaBrokers.join(','),
    SCHEMA_REGISTRY_URL: endpoints.schemaRegistryUrl,
    BUS_TOPIC_PREFIX: `${prefix}-${layout}.`,
    ELASTICSEARCH_URL: endpoints.elasticsearchUrl,
    ...qdrantEnv(endpoints),
    ES_INDEX_PREFIX: esPrefix,
    ...(endpoints.qdrantSnapshotsPath ? { EFFECTOR_QDRANT_SNAPSHOTS_PATH: endpoints.qdrantSnapshotsPath } : {}),
    EFFECTOR_API_TOKEN: token,
    EFFECTOR_PORT: '0',
    EFFECTOR_MODE: 'auto',
    EFFECTOR_INSTANCE_ID: `bench-${run}`,
    // A killed process is replaced under a NEW instance id (as a rescheduled pod would be): it may take
    // the dead one's actions over only once their lease ran out, through its periodic sweep. The
    // shortest lease the config accepts with the default Elasticsearch timeout, swept every 5 s.
    EFFECTOR_LEASE_MS: '60000',
    EFFECTOR_RECOVERY_SWEEP_SECONDS: '5',
    EFFECTOR_ONLINE_RAG_URL: rags.onlineUrl,
    EFFECTOR_BASELINE_RAG_URL: rags.baselineUrl,
    EFFECTOR_QDRANT_COLLECTION: collection,
    EFFECTOR_GROUP_ID: `${prefix}-${layout}-effector`,
    // Every kill is a new incident of the same component: the rate limit is not what is measured here.
    EFFECTOR_COMPONENT_RATE_LIMIT: '1000',
    // The warm-up knocks are abstentions: escalated at once, not after the grace period.
    EFFECTOR_ABSTENTION_GRACE_SECONDS: '0',
    // info: the bench waits for the `effector listening` line.
    LOG_LEVEL: 'info',
  };
  const ids = [
    ...new Set(
      loadQuestions()
        .filter((q) => rags.knowledgeIds.has(q.knowledge_id) && q.kind === 'latest_version')
        .map((q) => q.knowledge_id),
    ),
  ].slice(0, 3);
  const questions = loadQuestions()
    .filter((q) => ids.includes(q.knowledge_id))
    .slice(0, 6);
  const queries = questions.map((q) => q.question);
  const answersOf = async (client: RagClient) => {
    const out = [];
    for (const query of queries) out.push((await client.query({ query })).answer);
    return out;
  };
  const countPoints = async () => (await qdrant.count(collection, { exact: true })).count;
  // The effector's consumer group must exist (committed offsets) before the kills: a new group starts at
  // the latest offset, so knock with throw-away reports until the first process answers.
  {
    const warm = startEffector(env);
    await waitListening(warm);
    let answered = false;
    for (let k = 0; k < 60 && !answered; k += 1) {
      const incident = `bench-warmup-${run}-${k}`;
      await publisher.publish('reports', {
        ...exampleRootCauseReport(incident),
        root_cause: 'unknown',
        affected_component: 'unknown',
        recommended_intents: [],
      });
      for (let t = 0; t < 10 && !answered; t += 1) {
        answered = events.some((e) => e.incident_id.startsWith(`bench-warmup-${run}-`) && e.status === 'escalated');
        await sleep(300);
      }
    }
    warm.child.kill('SIGTERM');
    await warm.exited;
    if (!answered) throw new Error('the effector never consumed a report');
  }
  const cleanCount = await countPoints();
  const rows: Record<string, unknown>[] = [];
  const kills = Number(args.kills);
  for (let i = 0; i < kills; i += 1) {
    const step = steps[i % steps.length]!;
    const incident = `bench-kill-${layout}-${run}-${i}`;
    await callFaultAdmin(rags.onlineUrl, 'POST', 'vector-index-corruption', { mode: 'drop', scope: { knowledge_ids: ids } });
    const brokenCount = await countPoints();
    const brokenAnswers = await answersOf(online);
    const probes = questions.filter((q, k) => brokenAnswers[k] !== undefined).slice(0, 3);
    const report: RootCauseReport = {
      ...exampleRootCauseReport(incident),
      root_cause: 'vector_index_corruption',
      affected_component: 'vector_index',
      affected_knowledge_ids: ids,
      affected_probes: probes.map((q) => ({
        probe_id: q.id
          .replace(/[^a-z0-9._-]/gi, '-')
          .toLowerCase()
          .slice(0, 100),
        probe_version: 1,
        query: q.question,
      })),
      recommended_intents: [],
    };
    const first = startEffector({ ...env, EFFECTOR_TEST_CRASH_AT: step, EFFECTOR_INSTANCE_ID: `bench-${run}-${i}-killed` });
    await waitListening(first);
    await publisher.publish('reports', report);
    const code = await Promise.race([first.exited, sleep(240_000).then(() => 'timeout' as const)]);
    const atKill = await countPoints();
    const qdrantState = atKill === brokenCount ? 'before' : atKill === cleanCount ? 'after' : `inconsistent(${atKill})`;
    if (code === 'timeout') first.child.kill('SIGKILL');
    // Restart without the crash hook and under another instance id: it must resume or roll back (once
    // the dead process's lease ran out), then finish the repair once.
    const second = startEffector({ ...env, EFFECTOR_INSTANCE_ID: `bench-${run}-${i}-restarted` });
    const deadline = Date.now() + 300_000;
    let doc: ActionDoc | undefined;
    while (Date.now() < deadline) {
      doc = (await actions.list({ incident })).find((a) => a.tool === tool);
      // Done when the restarted effector closed the incident (a kill after the state change but before
      // the event is only finished once the restart re-publishes `succeeded`).
      const closed = events.some((e) => e.incident_id === incident && (e.status === 'succeeded' || e.status === 'escalated'));
      if ((doc?.status === 'succeeded' || doc?.status === 'escalated') && closed) break;
      await sleep(500);
    }
    await sleep(1500);
    second.child.kill('SIGTERM');
    await second.exited;
    const succeededEvents = events.filter((e) => e.incident_id === incident && e.status === 'succeeded').length;
    const fixedAnswers = await answersOf(online);
    const baselineAnswers = await answersOf(baseline);
    rows.push({
      i,
      step,
      killed: code === null ? 'SIGKILL' : code,
      qdrant_at_kill: qdrantState,
      final_status: doc?.status ?? 'none',
      executions: doc?.executions ?? 0,
      resumes: doc?.resumes ?? 0,
      // A duplicate execution: execute() entered more often than the RAG was put back to its before state in between.
      duplicate: (doc?.executions ?? 0) - (doc?.resumes ?? 0) > 1,
      succeeded_events: succeededEvents,
      answers_recovered: JSON.stringify(fixedAnswers) === JSON.stringify(baselineAnswers),
    });
    console.log(JSON.stringify(rows.at(-1)));
    await callFaultAdmin(rags.onlineUrl, 'DELETE', 'vector-index-corruption');
  }
  results[`kills_${layout}`] = {
    runs: rows.length,
    duplicate_executions: rows.filter((r) => r.duplicate).length,
    unrecovered_incidents: rows.filter((r) => r.final_status !== 'succeeded' || !r.answers_recovered).length,
    qdrant_inconsistent_at_kill: rows.filter((r) => String(r.qdrant_at_kill).startsWith('inconsistent')).length,
    rows,
  };

  // `immune rollback` of a successful repair restores the pre-repair answers exactly.
  const incident = `bench-rollback-${layout}-${run}`;
  await callFaultAdmin(rags.onlineUrl, 'POST', 'vector-index-corruption', { mode: 'drop', scope: { knowledge_ids: ids } });
  const preRepair = await answersOf(online);
  const proc = startEffector(env);
  const port = await waitListening(proc);
  await publisher.publish('reports', {
    ...exampleRootCauseReport(incident),
    root_cause: 'vector_index_corruption',
    affected_component: 'vector_index',
    affected_knowledge_ids: ids,
    affected_probes: questions
      .slice(0, 3)
      .map((q) => ({ probe_id: `p-${q.id.length}-${queries.indexOf(q.question)}`, probe_version: 1, query: q.question })),
    recommended_intents: [],
  });
  let done: ActionDoc | undefined;
  for (let t = 0; t < 600 && done?.status !== 'succeeded'; t += 1) {
    done = (await actions.list({ incident })).find((a) => a.tool === tool);
    await sleep(500);
  }
  const repaired = await answersOf(online);
  // Asynchronously: the RAG pair runs in this process and must keep answering meanwhile.
  const cli = await spawnAsync(
    process.execPath,
    [
      '--import',
      'tsx',
      'apps/cli/src/main.ts',
      'rollback',
      done?.action_id ?? 'none',
      '--yes',
      '--json',
      '--url',
      `http://127.0.0.1:${port}`,
    ],
    {
      cwd: ROOT,
      env: { ...process.env, IMMUNE_API_TOKEN: token },
      encoding: 'utf8',
    },
  );
  const afterRollback = await answersOf(online);
  results[`rollback_${layout}`] = {
    repaired: done?.status,
    cli_exit: cli.status,
    answers: queries.length,
    changed_by_repair: repaired.filter((a, k) => a !== preRepair[k]).length,
    identical_to_pre_repair_after_rollback: afterRollback.filter((a, k) => a === preRepair[k]).length,
    exact: JSON.stringify(afterRollback) === JSON.stringify(preRepair),
  };
  console.log(JSON.stringify(results[`rollback_${layout}`]));
  proc.child.kill('SIGTERM');
  await proc.exited;
  await callFaultAdmin(rags.onlineUrl, 'DELETE', 'vector-index-corruption');
  void isExactAnswer;
  await bus.stop();
  for (const s of await qdrant.listSnapshots(collection).catch(() => []))
    await qdrant.deleteSnapshot(collection, s.name).catch(() => undefined);
  await rags.close();
}

/**
 * Writes the kill matrix as this run measured it to bench/effector/RESULTS-kills.md (after each
 * layout, so an interrupted run leaves what it measured): machine, load, command, wall time, and per
 * layout and step the Qdrant state at the kill, resumes, duplicate executions and unrecovered incidents.
 */
const startedAt = new Date();
const startLoad = loadavg();
function writeKillResults(final: boolean): void {
  const load = (xs: number[]) => xs.map((x) => x.toFixed(2)).join(' / ');
  const sections: string[] = [];
  for (const layout of ['plain', 'alias'] as const) {
    const kills = results[`kills_${layout}`] as { rows: Record<string, unknown>[] } | undefined;
    if (kills === undefined) continue;
    const line = (label: string, rows: Record<string, unknown>[]) => {
      const at = (state: string) => rows.filter((r) => String(r.qdrant_at_kill).startsWith(state)).length;
      return `| ${layout} | ${label} | ${rows.length} | ${at('before')} / ${at('after')} / ${at('inconsistent')} | ${rows.filter((r) => Number(r.resumes) > 0).length} | ${rows.filter((r) => r.duplicate).length} | ${
        rows.filter((r) => r.final_status !== 'succeeded' || !r.answers_recovered).length
      } | ${rows.reduce((n, r) => n + (Number(r.succeeded_events) === 1 ? 1 : 0), 0)} of ${rows.length} |`;
    };
    const steps = [...new Set(kills.rows.map((r) => String(r.step)))];
    sections.push(
      ...steps.map((step) =>
        line(
          `\`${step}\``,
          kills.rows.filter((r) => r.step === step),
        ),
      ),
      line('**all**', kills.rows),
    );
  }
  const rollbacks = (['plain', 'alias'] as const)
    .filter((layout) => results[`rollback_${layout}`] !== undefined)
    .map((layout) => `- ${layout}: ${JSON.stringify(results[`rollback_${layout}`])}`);
  const markdown = `# Effector kill matrix: as measured by the last run

Written by \`bench/effector/run.ts\` (\`writeKillResults\`); the curated history is in RESULTS.md.
${final ? '' : '\n**Partial: the run had not finished when this was written.**\n'}
Command: \`npx tsx bench/effector/run.ts ${process.argv.slice(2).join(' ')}\`, started ${startedAt.toISOString().slice(0, 16).replace('T', ' ')} UTC,
${((Date.now() - startedAt.getTime()) / 60_000).toFixed(1)} min when written. Machine: ${cpus().length} cores (${cpus()[0]?.model ?? 'cpu'}), ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version};
${String(results.qdrant)}; load average (1/5/15 min) ${load(startLoad)} at the start, ${load(loadavg())} when written (the machine is shared
with other sessions' work, so timings are noisy; the correctness columns are what count).

| layout | step killed at | runs | Qdrant at kill: before / after / other | resumed (undo + re-run) | duplicate executions | unrecovered | exactly one \`succeeded\` event |
| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |
${sections.join('\n')}

\`immune rollback\` of a successful repair, per layout:
${rollbacks.join('\n') || '- (not reached)'}
`;
  writeFileSync(join(ROOT, 'bench/effector/RESULTS-kills.md'), markdown);
}

if (!args['skip-snapshots']) await snapshotFigures();
if (!args['skip-kills']) {
  for (const layout of args.layouts.split(',')) {
    await killFigures(layout === 'alias' ? 'alias' : 'plain');
    writeKillResults(false);
  }
  writeKillResults(true);
}
await es.indices.delete({ index: `${prefix}-*` }).catch(() => undefined);
console.log(JSON.stringify(results, null, 2));
process.exit(0);
