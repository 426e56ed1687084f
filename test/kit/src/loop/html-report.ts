/**
 * The healing report a person opens after the demo: for each fault, the online FCS, IC and knowledge
 * age of the probes it touched over time (inline SVG: no script, no CDN, opens offline), with the
 * moments of injection, detection, report, repair and recovery marked, and the timeline as a table.
 */
import type { ProbeResult } from '@rag-immune/contracts';
import type { HealingStep, TrialResult } from './trial.ts';
import type { LoopRecorder } from './timeline.ts';

const escape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const seconds = (ms: number) => (ms / 1000).toFixed(1);
const COLORS = ['#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd', '#8c564b', '#e377c2', '#17becf', '#bcbd22', '#7f7f7f'];

interface Marker {
  at: number;
  label: string;
  color: string;
}

function markersOf(trial: TrialResult, steps: HealingStep[]): Marker[] {
  const markers: Marker[] = [{ at: trial.injectedAt, label: 'injected', color: '#d62728' }];
  if (trial.detectedAt) markers.push({ at: trial.detectedAt, label: 'detected', color: '#ff7f0e' });
  if (trial.firstReportAt) markers.push({ at: trial.firstReportAt, label: 'report', color: '#9467bd' });
  for (const step of steps) {
    if (!step.key.startsWith('action:')) continue;
    const status = /\b(started|succeeded|failed|rolled_back|escalated)\b/.exec(step.what)?.[1];
    if (status === undefined) continue;
    const color =
      { started: '#1f77b4', succeeded: '#2ca02c', failed: '#d62728', rolled_back: '#7f7f7f', escalated: '#000000' }[status] ?? '#1f77b4';
    markers.push({ at: step.at, label: status === 'succeeded' ? 'verified' : status.replace('_', ' '), color });
  }
  if (trial.sentinelRecoveredAt) markers.push({ at: trial.sentinelRecoveredAt, label: 'recovered', color: '#2ca02c' });
  return markers;
}

function panel(
  title: string,
  series: Map<string, { t: number; y: number }[]>,
  markers: Marker[],
  t0: number,
  range: [number, number],
  yRange: [number, number],
): string {
  const width = 900;
  const height = 170;
  const left = 50;
  const right = 15;
  const top = 28;
  const bottom = 25;
  const x = (t: number) => left + ((t - range[0]) / Math.max(1, range[1] - range[0])) * (width - left - right);
  const y = (v: number) => top + (1 - (v - yRange[0]) / Math.max(1e-9, yRange[1] - yRange[0])) * (height - top - bottom);
  const parts: string[] = [];
  parts.push(`<text x="${left}" y="14" font-size="13" font-weight="bold">${escape(title)}</text>`);
  parts.push(
    `<rect x="${left}" y="${top}" width="${width - left - right}" height="${height - top - bottom}" fill="#fafafa" stroke="#ccc"/>`,
  );
  for (const v of [yRange[0], (yRange[0] + yRange[1]) / 2, yRange[1]])
    parts.push(`<text x="${left - 6}" y="${y(v) + 4}" font-size="10" text-anchor="end">${Number(v.toFixed(2))}</text>`);
  const tickStep = Math.max(5000, Math.ceil((range[1] - range[0]) / 10 / 5000) * 5000);
  for (let t = Math.ceil((range[0] - t0) / tickStep) * tickStep + t0; t <= range[1]; t += tickStep)
    parts.push(`<text x="${x(t)}" y="${height - 8}" font-size="10" text-anchor="middle">${seconds(t - t0)}s</text>`);
  let row = 0;
  for (const marker of markers) {
    if (marker.at < range[0] || marker.at > range[1]) continue;
    parts.push(
      `<line x1="${x(marker.at)}" x2="${x(marker.at)}" y1="${top}" y2="${height - bottom}" stroke="${marker.color}" stroke-dasharray="4 3"/>`,
    );
    parts.push(
      `<text x="${x(marker.at) + 3}" y="${top + 11 + (row % 4) * 11}" font-size="10" fill="${marker.color}">${escape(marker.label)}</text>`,
    );
    row += 1;
  }
  let index = 0;
  for (const [probe, points] of series) {
    const color = COLORS[index % COLORS.length];
    index += 1;
    if (points.length === 0) continue;
    const path = points.map((p, i) => `${i === 0 ? 'M' : 'L'}${x(p.t).toFixed(1)},${y(p.y).toFixed(1)}`).join(' ');
    parts.push(`<path d="${path}" fill="none" stroke="${color}" stroke-width="1.5"><title>${escape(probe)}</title></path>`);
    for (const p of points) parts.push(`<circle cx="${x(p.t).toFixed(1)}" cy="${y(p.y).toFixed(1)}" r="2" fill="${color}"/>`);
  }
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">${parts.join('')}</svg>`;
}

export function trialSection(recorder: LoopRecorder, trial: TrialResult, steps: HealingStep[], probeIntervalMs: number): string {
  const t0 = trial.injectedAt;
  const range: [number, number] = [t0 - probeIntervalMs * 4, Math.max(trial.endedAt, t0 + probeIntervalMs * 4)];
  const touched = new Set(trial.touched);
  const results = recorder.probes
    .map((p) => p.event)
    .filter((p) => touched.has(p.probe_id) && p.occurred_at >= range[0] && p.occurred_at <= range[1]);
  const seriesOf = (value: (r: ProbeResult) => number | null | undefined) => {
    const series = new Map<string, { t: number; y: number }[]>();
    for (const id of touched) series.set(id, []);
    for (const r of results.sort((a, b) => a.occurred_at - b.occurred_at)) {
      const v = value(r);
      if (v !== null && v !== undefined) series.get(r.probe_id)?.push({ t: r.occurred_at, y: v });
    }
    return series;
  };
  const markers = markersOf(trial, steps);
  const kf = seriesOf((r) => r.online.signals?.kf_age_days);
  const kfMax = Math.max(1, ...[...kf.values()].flat().map((p) => p.y));
  const rows = steps.map((s) => `<tr><td>${seconds(s.at - t0)}</td><td>${escape(s.worker)}</td><td>${escape(s.what)}</td></tr>`).join('\n');
  const figure = (value?: number) => (value === undefined ? '—' : `${seconds(value - t0)} s`);
  return `<section>
<h2>${escape(trial.plan.kind)} — ${escape(trial.outcome)}</h2>
<p>Injection body <code>${escape(JSON.stringify(trial.body))}</code>; touched probes: ${escape(trial.touched.join(', ') || 'none')}.</p>
<table class="figures"><tr><th>detection</th><th>first report</th><th>correct report</th><th>verified recovery</th><th>sentinel recovered</th><th>actions</th><th>rollbacks</th><th>final cause</th></tr>
<tr><td>${figure(trial.detectedAt)}</td><td>${figure(trial.firstReportAt)}</td><td>${figure(trial.correctReportAt)}</td><td>${figure(trial.verifiedAt)}</td><td>${figure(trial.sentinelRecoveredAt)}</td><td>${trial.actions.length}</td><td>${trial.rollbacks}</td><td>${escape(trial.finalReport ? `${trial.finalReport.root_cause} (${trial.finalReport.affected_component}) ${trial.finalReport.confidence.toFixed(2)}` : '—')}</td></tr></table>
${panel(
  'FCS (online) of the touched probes',
  seriesOf((r) => r.online.signals?.fcs),
  markers,
  t0,
  range,
  [0, 1],
)}
${panel(
  'IC (online) of the touched probes',
  seriesOf((r) => r.online.signals?.ic),
  markers,
  t0,
  range,
  [0, 1],
)}
${panel('KF: age of the knowledge behind the online answer (days)', kf, markers, t0, range, [0, kfMax])}
<table class="steps"><tr><th>t (s)</th><th>worker</th><th>step</th></tr>
${rows}
</table>
</section>`;
}

export function healingReportHtml(title: string, meta: Record<string, string>, sections: string[]): string {
  const metaRows = Object.entries(meta)
    .map(([k, v]) => `<tr><th>${escape(k)}</th><td>${escape(v)}</td></tr>`)
    .join('');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escape(title)}</title>
<style>
body{font-family:system-ui,sans-serif;margin:24px;max-width:960px;color:#222}
table{border-collapse:collapse;margin:8px 0 16px}td,th{border:1px solid #ddd;padding:3px 8px;font-size:13px;text-align:left;vertical-align:top}
th{background:#f3f3f3}section{border-top:2px solid #eee;margin-top:24px;padding-top:8px}code{font-size:12px}
</style></head><body>
<h1>${escape(title)}</h1>
<table>${metaRows}</table>
<p>Every step below comes from the workers: ProbeResults, RootCauseReports and RepairActions read back from Kafka, and the workers' own <code>[HEALING]</code> log lines. Times are seconds since the fault was in effect. The fault was never undone by the demo: only the immune system repaired it.</p>
${sections.join('\n')}
</body></html>
`;
}
