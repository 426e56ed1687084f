/**
 * Incidents with several causes (issue 30): each cause repaired on its own and verified against the
 * probes it explains; a repair that healed its probes (or some) and made none worse is kept, not
 * undone; an undo only when it healed nothing or made a probe worse.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import { exampleProbeResult, type RootCauseReport } from '@rag-immune/contracts';
import { defineTool, type ProbeMeasurement, type RepairTool } from '../../src/index.ts';
import { healedAlready } from '../../src/plan/kept-repairs.ts';
import { causeSlices, groupProbeIds } from '../../src/verify/cause-scope.ts';
import { judgeRepair } from '../../src/verify/repair-judgement.ts';
import { report, startLoop, type Loop } from './support/loop-fixture.ts';

const probe = (id: string) => ({ probe_id: id, probe_version: 1, query: `q ${id}` });

/** A measurement in which the probes in `sick` are anomalous; `group`: the probes the repaired cause explains. */
function measured(all: string[], sick: ReadonlySet<string>, group?: string[]): ProbeMeasurement {
  const results = all.map((id) => ({
    ...exampleProbeResult(id),
    anomaly: sick.has(id),
    anomaly_signals: sick.has(id) ? ['fcs_drop' as const] : [],
  }));
  const inGroup = new Set(group ?? all);
  return {
    probe_ids: all,
    ...(group ? { group_probe_ids: group } : {}),
    fcs: null,
    ic: null,
    kf_age_days: null,
    recovered: all.every((id) => !inGroup.has(id) || !sick.has(id)),
    anomalies: all.filter((id) => sick.has(id)),
    results,
  };
}

test('keep or undo, probe by probe: healed its group → recovered; some of it → partial (kept); none → no_effect; a healthy probe made sick → worse', () => {
  const all = ['a', 'b', 'c', 'd'];
  const before = measured(all, new Set(all), ['a', 'b']);
  const judge = (after: string[]) => judgeRepair(before, measured(all, new Set(after), ['a', 'b']));
  assert.deepEqual(judge(['c', 'd']), { outcome: 'recovered', keep: true, healed: ['a', 'b'], unhealed: [], worsened: [] });
  assert.deepEqual(judge(['b', 'c', 'd']), { outcome: 'partial', keep: true, healed: ['a'], unhealed: ['b'], worsened: [] });
  assert.equal(judge(all).outcome, 'no_effect');
  assert.equal(judge(all).keep, false);
  // Healing only another cause's probes is not this repair's job done.
  assert.equal(judge(['a', 'b']).outcome, 'no_effect');
  const halfHealthy = measured(all, new Set(['a', 'b', 'c']), ['a', 'b']);
  const worse = judgeRepair(halfHealthy, measured(all, new Set(['c', 'd']), ['a', 'b']));
  assert.deepEqual([worse.outcome, worse.keep, worse.worsened], ['worse', false, ['d']]);
});

test('a measurement without per-probe results is judged as before: recovered, or healed nothing (undone)', () => {
  const bare = (recovered: boolean): ProbeMeasurement => ({
    probe_ids: ['a'],
    fcs: null,
    ic: null,
    kf_age_days: null,
    recovered,
    anomalies: [],
    results: [],
  });
  assert.equal(judgeRepair(bare(false), bare(true)).outcome, 'recovered');
  assert.equal(judgeRepair(bare(false), bare(false)).outcome, 'no_effect');
});

const twoCauses = (incident: string, revision = 1): RootCauseReport =>
  report(incident, {
    report_revision: revision,
    root_cause: 'reranker_drift',
    affected_component: 'reranker',
    recommended_intents: ['rollback_reranker'],
    affected_probes: ['a', 'b', 'c', 'd'].map(probe),
    findings: [
      {
        root_cause: 'reranker_drift',
        affected_component: 'reranker',
        confidence: 0.9,
        claims: [],
        affected_probes: [probe('a'), probe('b')],
        affected_knowledge_ids: [],
        recommended_intents: ['rollback_reranker'],
      },
      {
        root_cause: 'vector_index_corruption',
        affected_component: 'vector_index',
        confidence: 0.8,
        claims: [],
        affected_probes: [probe('c'), probe('d')],
        affected_knowledge_ids: ['doc-c'],
        recommended_intents: ['rebuild_index_incremental'],
      },
    ],
  });

test('a report with two findings is two slices, each its own cause first; the group is its own probes, the rest watched', () => {
  const [drift, damage] = causeSlices(twoCauses('inc-s'));
  assert.deepEqual([drift!.root_cause, drift!.affected_component, groupProbeIds(drift!)], ['reranker_drift', 'reranker', ['a', 'b']]);
  assert.deepEqual(
    [damage!.root_cause, damage!.affected_knowledge_ids, groupProbeIds(damage!)],
    ['vector_index_corruption', ['doc-c'], ['c', 'd']],
  );
  assert.equal(damage!.affected_probes.length, 4, 'every probe is measured');
  // Probes that joined the incident later belong to the one cause of a single-cause report, and are only watched otherwise.
  assert.deepEqual(groupProbeIds(drift!, ['late']), ['a', 'b']);
  assert.deepEqual(groupProbeIds(report('inc-one', { affected_probes: [probe('a')] }), ['late']), ['a', 'late']);
});

/** The loop with probes a..d, each sick until a tool heals it; `fix` maps a tool to the probes it heals (and those it sickens). */
async function severalCauseLoop(
  fix: Record<string, { heals: string[]; sickens?: string[]; component: 'reranker' | 'vector_index'; during?: () => Promise<void> }>,
) {
  const sick = new Set(['a', 'b', 'c', 'd']);
  const log: string[] = [];
  const tool = (name: string, spec: (typeof fix)[string]): RepairTool =>
    defineTool({
      name,
      version: '1',
      intent: spec.component === 'reranker' ? 'rollback_reranker' : 'rebuild_index_incremental',
      description: `fake ${name}`,
      input: z.object({ target: z.string() }).strict(),
      touchesQdrant: false,
      reversible: true,
      plan: async () => ({ target: 'rag' }),
      preconditions: async () => {},
      capture: async () => ({ sick: [...sick] }),
      async execute() {
        log.push(`execute ${name}`);
        for (const id of spec.heals) sick.delete(id);
        for (const id of spec.sickens ?? []) sick.add(id);
        await spec.during?.();
        return { detail: {} };
      },
      verify: async () => null,
      async undo(_ctx, _args, prior) {
        log.push(`undo ${name}`);
        sick.clear();
        for (const id of prior.sick as string[]) sick.add(id);
      },
      describeUndo: () => [`${name} undone`],
    }) as unknown as RepairTool;
  const names = Object.keys(fix);
  const loop: Loop = await startLoop({ tools: [], realTools: names.map((n) => tool(n, fix[n]!)) });
  loop.deps.policy.branches.splice(
    0,
    loop.deps.policy.branches.length,
    ...(['reranker', 'vector_index'] as const).map((component) => ({
      id: component,
      when: { component: [component], scope: 'any' as const },
      actions: [
        ...names.filter((n) => fix[n]!.component === component).map((n) => ({ tool: n, reason: `try ${n}`, params: {} })),
        { tool: 'page_on_call', reason: 'nothing healed', params: {} },
      ],
    })),
  );
  const all = ['a', 'b', 'c', 'd'];
  loop.deps.verifier = {
    measure: async (r: RootCauseReport) => measured(all, sick, groupProbeIds(r)),
  };
  return { loop, sick, log };
}

test("two causes at once (issue 30's incident): the reranker rollback heals its probes and is kept while the vector damage is repaired; both healed, nothing undone", async () => {
  const { loop, sick, log } = await severalCauseLoop({
    pin_fake: { heals: ['a', 'b'], component: 'reranker' },
    restore_fake: { heals: ['c', 'd'], component: 'vector_index' },
  });
  assert.equal(await loop.effector.process(twoCauses('inc-two')), 'recovered');
  assert.deepEqual(loop.lifecycle('inc-two'), [
    'pin_fake:planned',
    'pin_fake:started',
    'pin_fake:succeeded',
    'restore_fake:planned',
    'restore_fake:started',
    'restore_fake:succeeded',
  ]);
  assert.deepEqual(log, ['execute pin_fake', 'execute restore_fake']);
  assert.equal(sick.size, 0);
  const verified = loop.events
    .filter((e) => e.status === 'succeeded')
    .map((e) => [e.tool, e.verification?.outcome, e.verification?.healed_probe_ids]);
  assert.deepEqual(verified, [
    ['pin_fake', 'recovered', ['a', 'b']],
    ['restore_fake', 'recovered', ['c', 'd']],
  ]);
  assert.equal((await loop.deps.incidents.get('inc-two'))?.doc.status, 'recovered');
  // A later revision naming both causes again repairs neither a second time.
  assert.equal(await loop.effector.process(twoCauses('inc-two', 2)), 'recovered');
  assert.deepEqual(log, ['execute pin_fake', 'execute restore_fake']);
});

test('one cause named for probes two faults broke: its repair heals part, is kept as a typed partial recovery (not undone), and the rest is paged', async () => {
  const { loop, sick, log } = await severalCauseLoop({ pin_fake: { heals: ['a', 'b'], component: 'reranker' } });
  const oneCause = report('inc-partial', {
    root_cause: 'reranker_drift',
    affected_component: 'reranker',
    affected_probes: ['a', 'b', 'c', 'd'].map(probe),
  });
  assert.equal(await loop.effector.process(oneCause), 'escalated');
  assert.deepEqual(loop.lifecycle('inc-partial'), [
    'pin_fake:planned',
    'pin_fake:started',
    'pin_fake:succeeded',
    'page_on_call:planned',
    'page_on_call:escalated',
  ]);
  assert.deepEqual(log, ['execute pin_fake'], 'the repair that helped is not undone');
  assert.deepEqual([...sick].sort(), ['c', 'd']);
  const kept = loop.events.find((e) => e.status === 'succeeded')!;
  assert.equal(kept.verification?.outcome, 'partial');
  assert.equal(kept.verification?.recovered, false);
  assert.deepEqual(kept.verification?.unhealed_probe_ids, ['c', 'd']);
  assert.equal(loop.events.at(-1)?.arguments.escalation, 'partial_recovery');
});

test('a repair that heals its group but makes a watched probe of the other cause worse is undone', async () => {
  const { loop, log } = await severalCauseLoop({
    pin_fake: { heals: ['a', 'b'], component: 'reranker' },
    restore_fake: { heals: ['c'], sickens: ['a'], component: 'vector_index' },
  });
  assert.equal(await loop.effector.process(twoCauses('inc-worse')), 'escalated');
  assert.deepEqual(log, ['execute pin_fake', 'execute restore_fake', 'undo restore_fake']);
  const failed = loop.events.find((e) => e.status === 'failed')!;
  assert.equal(failed.verification?.outcome, 'worse');
  assert.deepEqual(failed.verification?.worsened_probe_ids, ['a']);
  assert.ok(!loop.events.some((e) => e.tool === 'pin_fake' && e.status === 'rolled_back'), 'the reranker repair stays');
});

test('a kept repair covers a cause only when it healed every probe of that cause', () => {
  const slice = causeSlices(twoCauses('inc-c'))[0]!;
  const doc = (healed: string[], recovered = false) =>
    ({
      status: 'succeeded',
      component: 'reranker',
      verification: { recovered, outcome: recovered ? 'recovered' : 'partial', probe_ids: ['a', 'b', 'c', 'd'], healed_probe_ids: healed },
    }) as never;
  assert.ok(healedAlready([doc(['a', 'b'])], slice));
  assert.equal(healedAlready([doc(['a'])], slice), null);
  // Recovered, but healthy-before probes are not "healed": only what it healed counts without a new measurement.
  assert.equal(healedAlready([doc(['a'], true)], slice), null);
  assert.equal(healedAlready([{ ...(doc(['a', 'b']) as object), component: 'vector_index' } as never], slice), null);
});

test('a global cause is repaired before a scoped one; its probes the scoped fault also broke heal with that repair: recovered, no page, nothing undone', async () => {
  const { loop, sick, log } = await severalCauseLoop({
    pin_fake: { heals: ['a', 'b'], component: 'reranker' },
    restore_fake: { heals: ['c', 'd'], component: 'vector_index' },
  });
  const base = twoCauses('inc-overlap');
  const [drift, damage] = base.findings;
  // The identifier lists the scoped cause first; probe c is broken by both faults.
  const overlapping = { ...base, findings: [damage!, { ...drift!, affected_probes: [probe('a'), probe('b'), probe('c')] }] };
  assert.equal(await loop.effector.process(overlapping), 'recovered');
  assert.deepEqual(log, ['execute pin_fake', 'execute restore_fake']);
  assert.equal(sick.size, 0);
  const kept = loop.events.filter((e) => e.status === 'succeeded').map((e) => [e.tool, e.verification?.outcome]);
  assert.deepEqual(kept, [
    ['pin_fake', 'partial'],
    ['restore_fake', 'recovered'],
  ]);
  assert.ok(!loop.events.some((e) => e.status === 'escalated' || e.status === 'rolled_back'));
  assert.equal((await loop.deps.incidents.get('inc-overlap'))?.doc.status, 'recovered');
});

test('a later revision whose cause group grew: the kept, verified repair is not run again when its probes are healthy now', async () => {
  const { loop, log } = await severalCauseLoop({
    pin_fake: { heals: ['a', 'b'], component: 'reranker' },
    restore_fake: { heals: ['c', 'd'], component: 'vector_index' },
  });
  assert.equal(await loop.effector.process(twoCauses('inc-grown')), 'recovered');
  const grown = twoCauses('inc-grown', 2);
  grown.findings[0] = { ...grown.findings[0]!, affected_probes: [probe('a'), probe('b'), probe('c')] };
  assert.equal(await loop.effector.process(grown), 'recovered');
  assert.deepEqual(log, ['execute pin_fake', 'execute restore_fake'], 'nothing runs twice');
});

test("admission: each finding of a report must be one the identifier issued (cause, component, knowledge ids) over the incident's probes", async () => {
  const { checkAgainstRecord } = await import('../../src/admission/report-admission.ts');
  const issued = twoCauses('inc-adm');
  const record = (findings: IdentifierFindings) => ({
    incident_id: 'inc-adm',
    state: 'reported',
    report_revision: issued.report_revision,
    window_start: issued.window_start,
    window_end: issued.window_end,
    probes: issued.affected_probes,
    last_report: {
      event_id: issued.event_id,
      report_revision: issued.report_revision,
      root_cause: issued.root_cause,
      affected_component: issued.affected_component,
      affected_knowledge_ids: issued.affected_knowledge_ids,
      findings,
    },
  });
  const asIssued = issued.findings.map((f) => ({
    root_cause: f.root_cause,
    affected_component: f.affected_component,
    affected_knowledge_ids: f.affected_knowledge_ids,
  }));
  assert.equal(checkAgainstRecord(issued, record(asIssued)).admitted, true);
  // A forged scope on the second cause would re-ingest documents nothing implicated.
  const forged = { ...issued, findings: [issued.findings[0]!, { ...issued.findings[1]!, affected_knowledge_ids: ['doc-c', 'doc-x'] }] };
  const refused = checkAgainstRecord(forged, record(asIssued));
  assert.equal(refused.admitted, false);
  assert.equal(!refused.admitted && !refused.superseded && refused.reason, 'knowledge_mismatch');
  const strayProbe = { ...issued, findings: [issued.findings[0]!, { ...issued.findings[1]!, affected_probes: [probe('zz')] }] };
  const stray = checkAgainstRecord(strayProbe, record(asIssued));
  assert.equal(!stray.admitted && !stray.superseded && stray.reason, 'probes_mismatch');
  // An identifier older than findings: the findings are taken as they come.
  assert.equal(checkAgainstRecord(forged, record(undefined)).admitted, true);
});

type IdentifierFindings = { root_cause: string; affected_component: string; affected_knowledge_ids: string[] }[] | undefined;

test('one cause named first, the second found while its repair ran: the partial repair is kept without a page, the next revision repairs the other cause and never re-runs the kept one', async () => {
  // The loop, once started: the rollback's execute records revision 2 in it.
  const ref: { loop?: Loop } = {};
  const revision2 = twoCauses('inc-late', 2);
  // Probe c is broken by both faults: the reranker finding of revision 2 holds it too.
  revision2.findings[0] = { ...revision2.findings[0]!, affected_probes: [probe('a'), probe('b'), probe('c')] };
  const started = await severalCauseLoop({
    // While the rollback runs, the identifier names the second cause (revision 2 arrives).
    pin_fake: { heals: ['a', 'b'], component: 'reranker', during: async () => void (await ref.loop!.deps.incidents.record(revision2)) },
    restore_fake: { heals: ['c', 'd'], component: 'vector_index' },
  });
  const loop = (ref.loop = started.loop);
  loop.deps.abstentionGraceMs = 5_000;
  const revision1 = report('inc-late', {
    root_cause: 'reranker_drift',
    affected_component: 'reranker',
    affected_probes: ['a', 'b', 'c', 'd'].map(probe),
  });
  assert.equal(await loop.effector.process(revision1), 'superseded');
  assert.equal(await loop.effector.process(revision2), 'recovered');
  assert.deepEqual(started.log, ['execute pin_fake', 'execute restore_fake'], 'the kept rollback is neither undone nor run again');
  assert.equal(started.sick.size, 0);
  assert.ok(!loop.events.some((e) => e.status === 'escalated' || e.status === 'rolled_back'), loop.lifecycle('inc-late').join(' '));
  assert.equal((await loop.deps.incidents.get('inc-late'))?.doc.status, 'recovered');
});
