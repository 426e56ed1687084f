package main

import (
	"github.com/grafana/grafana-foundation-sdk/go/cog"
	"github.com/grafana/grafana-foundation-sdk/go/cog/variants"
	"github.com/grafana/grafana-foundation-sdk/go/common"
	"github.com/grafana/grafana-foundation-sdk/go/dashboard"
	"github.com/grafana/grafana-foundation-sdk/go/prometheus"
	"github.com/grafana/grafana-foundation-sdk/go/stat"
	"github.com/grafana/grafana-foundation-sdk/go/timeseries"
)

// Every query goes to the dashboard's datasource variable, so one file works with any Prometheus.
var promDS = common.DataSourceRef{Type: cog.ToPtr("prometheus"), Uid: cog.ToPtr("${datasource}")}

type query struct {
	expr   string
	legend string
}

func q(expr, legend string) query { return query{expr, legend} }

// since counts what a counter (or histogram bucket) series gained over the panel's interval,
// including a series born inside it. prom-client creates a labelled series at its first
// increment, so increase()/rate() would miss that first event (the series starts at 1, not 0):
// the first rollback or escalation of a kind would read as none. A series that existed an
// interval ago contributes its difference (clamped at 0 across a restart); a new one its value.
func since(metric, selector, window string) string {
	m := metric + selector
	return "(clamp_min(" + m + " - " + m + " offset " + window + ", 0) or " + m + ")"
}

const ri = "$__rate_interval"

// layout hands out panel ids in order, so ids are stable across regenerations.
type layout struct{ next uint32 }

func (l *layout) id() uint32 { l.next++; return l.next }

func targets(qs []query) []cog.Builder[variants.Dataquery] {
	out := make([]cog.Builder[variants.Dataquery], 0, len(qs))
	for i, x := range qs {
		b := prometheus.NewDataqueryBuilder().Expr(x.expr).Datasource(promDS).RefId(string(rune('A' + i)))
		if x.legend != "" {
			b = b.LegendFormat(x.legend)
		}
		out = append(out, b)
	}
	return out
}

func (l *layout) series(title, description, unit string, width uint32, qs ...query) cog.Builder[dashboard.Panel] {
	return timeseries.NewPanelBuilder().
		Id(l.id()).
		Title(title).
		Description(description).
		Datasource(promDS).
		Unit(unit).
		Span(width).
		Height(8).
		Legend(common.NewVizLegendOptionsBuilder().ShowLegend(true).DisplayMode(common.LegendDisplayModeList).Placement(common.LegendPlacementBottom)).
		Tooltip(common.NewVizTooltipOptionsBuilder().Mode(common.TooltipDisplayModeMulti).Sort(common.SortOrderDescending)).
		Targets(targets(qs))
}

func (l *layout) stat(title, description, unit string, width uint32, qs ...query) cog.Builder[dashboard.Panel] {
	return stat.NewPanelBuilder().
		Id(l.id()).
		Title(title).
		Description(description).
		Datasource(promDS).
		Unit(unit).
		Span(width).
		Height(5).
		ReduceOptions(common.NewReduceDataOptionsBuilder().Calcs([]string{"lastNotNull"})).
		Targets(targets(qs))
}

func base(uid, title, description string) *dashboard.DashboardBuilder {
	return dashboard.NewDashboardBuilder(title).
		Uid(uid).
		Description(description).
		Tags([]string{"rag-immune"}).
		Editable().
		Refresh("30s").
		Time("now-6h", "now").
		Timezone(common.TimeZoneBrowser).
		Tooltip(dashboard.DashboardCursorSyncCrosshair).
		WithVariable(dashboard.NewDatasourceVariableBuilder("datasource").Label("Prometheus").Type("prometheus"))
}

func dashboards() []*dashboard.DashboardBuilder {
	return []*dashboard.DashboardBuilder{healingOverview(), sentinelDetail(), eventBackbone()}
}

// sentinelDetail: the three signals per probe, online against the frozen baseline
// (services/sentinel/src/metrics.ts).
func sentinelDetail() *dashboard.DashboardBuilder {
	l := &layout{}
	return base("rag-immune-sentinel", "RAG Immune / Sentinel", "Golden-probe signals of the online RAG against its frozen baseline, per probe.").
		WithRow(dashboard.NewRowBuilder("Signals, online vs baseline")).
		WithPanel(l.series("FCS (fact consistency) per probe", "Latest fact consistency score of each probe's answer; a drop online that the baseline does not show is an anomaly.", "percentunit", 24,
			q(`max by (probe_id, side) (rag_immune_sentinel_fcs)`, "{{probe_id}} {{side}}"))).
		WithPanel(l.series("IC (intent coverage) per probe", "Share of the query's intents and slots the answer covers.", "percentunit", 12,
			q(`max by (probe_id, side) (rag_immune_sentinel_ic)`, "{{probe_id}} {{side}}"))).
		WithPanel(l.series("KF (knowledge freshness) age per probe", "Trust- and relevance-weighted age of the retrieved knowledge, in days.", "d", 12,
			q(`max by (probe_id, side) (rag_immune_sentinel_kf_age_days)`, "{{probe_id}} {{side}}"))).
		WithRow(dashboard.NewRowBuilder("Drift and health of the probing")).
		WithPanel(l.series("FCS drop (baseline - online), p50 / p95", "The chronic-illness curve: how far online answers fall behind the baseline's.", "percentunit", 12,
			q(`histogram_quantile(0.5, sum by (le) (rate(rag_immune_sentinel_fcs_drop_bucket[$__rate_interval])))`, "p50"),
			q(`histogram_quantile(0.95, sum by (le) (rate(rag_immune_sentinel_fcs_drop_bucket[$__rate_interval])))`, "p95"))).
		WithPanel(l.series("Anomalous probe runs by severity", "Probe runs the sentinel judged anomalous, per interval.", "short", 12,
			q("sum by (severity) "+since("rag_immune_sentinel_anomalies_total", "", ri), "{{severity}}"))).
		WithPanel(l.series("Probe results published", "ProbeResults by publish outcome; silence here means the sentinel stopped probing.", "ops", 8,
			q(`sum by (outcome) (rate(rag_immune_sentinel_results_total[$__rate_interval]))`, "{{outcome}}"))).
		WithPanel(l.series("RAG call failures", "Failed RAG calls by side and status, per interval.", "short", 8,
			q("sum by (side, status) "+since("rag_immune_sentinel_probe_errors_total", "", ri), "{{side}} {{status}}"))).
		WithPanel(l.series("RAG call latency p95", "Duration of each RAG call, retries included.", "s", 8,
			q(`histogram_quantile(0.95, sum by (le, side) (rate(rag_immune_sentinel_rag_call_seconds_bucket[$__rate_interval])))`, "{{side}}")))
}

// eventBackbone: the bus every worker shares (packages/bus/src/metrics.ts).
func eventBackbone() *dashboard.DashboardBuilder {
	l := &layout{}
	return base("rag-immune-event-backbone", "RAG Immune / Event backbone", "Throughput, consumer lag and dead letters of the three Avro topics.").
		WithPanel(l.stat("Dead-lettered (1h)", "Messages parked in the dead-letter topic in the last hour.", "short", 8,
			q("sum"+since("rag_immune_bus_consumed_total", `{outcome="dead_lettered"}`, "1h")+" or vector(0)", ""))).
		WithPanel(l.stat("Max consumer lag", "The largest lag of any group on any partition.", "short", 8,
			q(`max(rag_immune_bus_consumer_lag)`, ""))).
		WithPanel(l.stat("Handler retries exhausted (1h)", "Events a worker could not handle after all attempts.", "short", 8,
			q("sum"+since("rag_immune_bus_handler_errors_total", `{kind="exhausted"}`, "1h")+" or vector(0)", ""))).
		WithPanel(l.series("Published per topic", "Events published per second.", "ops", 12,
			q(`sum by (topic) (rate(rag_immune_bus_published_total[$__rate_interval]))`, "{{topic}}"))).
		WithPanel(l.series("Consumed per group and outcome", "handled, duplicate (event_id seen before) or dead_lettered.", "ops", 12,
			q(`sum by (group, topic, outcome) (rate(rag_immune_bus_consumed_total[$__rate_interval]))`, "{{group}} {{topic}} {{outcome}}"))).
		WithPanel(l.series("Consumer lag per group and topic", "Messages between the committed offset and the end of each partition, summed.", "short", 12,
			q(`sum by (group, topic) (rag_immune_bus_consumer_lag)`, "{{group}} {{topic}}"))).
		WithPanel(l.series("Dead letters per topic", "Undecodable or schema-invalid messages parked in rag-immune-dead-letter.", "short", 12,
			q("sum by (topic, group) "+since("rag_immune_bus_consumed_total", `{outcome="dead_lettered"}`, ri), "{{group}} {{topic}}"))).
		WithPanel(l.series("Handler errors by kind", "poison (dead-lettered), transient (retried), exhausted (left for redelivery), per interval.", "short", 12,
			q("sum by (group, kind) "+since("rag_immune_bus_handler_errors_total", "", ri), "{{group}} {{kind}}"))).
		WithPanel(l.series("Handler duration p95", "Time in the event handler, successful attempts only.", "s", 12,
			q(`histogram_quantile(0.95, sum by (le, group, topic) (rate(rag_immune_bus_handler_duration_seconds_bucket[$__rate_interval])))`, "{{group}} {{topic}}")))
}

// healingOverview: the on-call engineer's first screen, from the sentinel
// (services/sentinel/src/metrics.ts), identifier (metrics.ts), effector
// (metrics.ts) and memory (metrics.ts).
func healingOverview() *dashboard.DashboardBuilder {
	l := &layout{}
	return base("rag-immune-healing-overview", "RAG Immune / Healing overview", "Anomalies, incidents, repairs, rollbacks, the circuit breaker and escalations across the immune system.").
		WithRow(dashboard.NewRowBuilder("Detection")).
		WithPanel(l.series("Anomalies by signal", "Signals behind anomalous probe runs (a run with two signals counts in both).", "short", 12,
			q("sum by (signal) "+since("rag_immune_sentinel_anomaly_signals_total", "", ri), "{{signal}}"))).
		WithPanel(l.series("Anomalous probe runs by severity", "Probe runs the sentinel judged anomalous.", "short", 12,
			q("sum by (severity) "+since("rag_immune_sentinel_anomalies_total", "", ri), "{{severity}}"))).
		WithRow(dashboard.NewRowBuilder("Incidents")).
		WithPanel(l.series("Open incidents by state", "Incidents not closed, per state (max over identifier replicas: each reports what it last saw).", "short", 12,
			q(`max by (state) (identifier_incidents{state!="closed"})`, "{{state}}"))).
		WithPanel(l.series("Verdicts by root cause", "RootCauseReports by the cause named (outcome unknown: the identifier abstained).", "short", 12,
			q("sum by (cause, outcome) "+since("identifier_verdicts_total", "", ri), "{{cause}} {{outcome}}"))).
		WithPanel(l.series("Time to detect: probe run duration p95", "One probe run from query to published ProbeResult; a fault is detected within one probe interval plus this.", "s", 8,
			q(`histogram_quantile(0.95, sum by (le) (rate(rag_immune_sentinel_probe_run_seconds_bucket[$__rate_interval])))`, "p95"))).
		WithPanel(l.series("Time to report: first anomaly to RootCauseReport", "From an incident's first anomalous ProbeResult to its first report.", "s", 8,
			q(`histogram_quantile(0.5, sum by (le) (rate(identifier_first_anomaly_to_report_seconds_bucket[$__rate_interval])))`, "p50"),
			q(`histogram_quantile(0.95, sum by (le) (rate(identifier_first_anomaly_to_report_seconds_bucket[$__rate_interval])))`, "p95"))).
		WithPanel(l.series("Time to recover: report to verified recovery", "From the report to the verified recovery of its affected probes, per repair tool.", "s", 8,
			q("histogram_quantile(0.95, sum by (le, tool) "+since("effector_time_to_verified_recovery_seconds_bucket", "", ri)+")", "p95 {{tool}}"))).
		WithRow(dashboard.NewRowBuilder("Repairs")).
		WithPanel(l.series("Repairs by action and outcome", "Repair action lifecycle steps by tool and outcome (planned, started, succeeded, failed, rolled_back, escalated).", "short", 12,
			q("sum by (tool, outcome) "+since("effector_actions_total", "", ri), "{{tool}} {{outcome}}"))).
		WithPanel(l.series("Rollbacks by trigger", "Repairs undone: verification, error, manual, recovery or breaker.", "short", 12,
			q("sum by (trigger) "+since("effector_rollbacks_total", "", ri), "{{trigger}}"))).
		WithPanel(l.stat("Circuit breaker", "1 while the breaker holds every repair of a component.", "short", 8,
			q(`max by (component) (effector_breaker_open)`, "{{component}}"))).
		WithPanel(l.series("Escalations by reason", "Incidents handed to a human.", "short", 8,
			q("sum by (reason) "+since("effector_escalations_total", "", ri), "{{reason}}"))).
		WithPanel(l.series("Reports handled by outcome", "What the effector did with each RootCauseReport.", "short", 8,
			q("sum by (outcome) "+since("effector_reports_total", "", ri), "{{outcome}}"))).
		WithRow(dashboard.NewRowBuilder("Memory")).
		WithPanel(l.series("Recommendations by source", "Answers to POST /recommend from similar healing cases or from the expert rules; degraded: a store was unreachable.", "short", 12,
			q("sum by (source, degraded) "+since("memory_recommendations_total", "", ri), "{{source}} degraded={{degraded}}"))).
		WithPanel(l.series("Healing cases by status", "Cases the memory holds (active, superseded, archived).", "short", 12,
			q(`max by (status) (memory_cases)`, "{{status}}")))
}
