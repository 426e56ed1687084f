import type { Express } from 'express';
import { HttpRequestError } from '@rag-immune/worker-runtime';
import { summarise } from '../incidents/incident.ts';
import { INCIDENT_STATES } from '../incidents/incident-state.ts';
import type { IncidentStore } from '../incidents/incident-store.ts';
import type { EvidenceLedger } from '../ledger/evidence-ledger.ts';
import type { LedgerHead } from '../ledger/evidence-record.ts';

const ID = /^inc-[0-9a-f]{16}$/;
const ANCHOR = /^(\d{1,15}):([0-9a-f]{64})$/;

/** Evidence records per GET /incidents/{id} page (?evidence_limit=). */
export const EVIDENCE_PAGE_DEFAULT = 500;
export const EVIDENCE_PAGE_MAX = 5000;

function limitOf(query: unknown): number {
  if (query === undefined) return EVIDENCE_PAGE_DEFAULT;
  const limit = typeof query === 'string' && /^\d{1,6}$/.test(query) ? Number(query) : NaN;
  if (!(limit >= 1 && limit <= EVIDENCE_PAGE_MAX))
    throw new HttpRequestError(400, `invalid evidence_limit ${JSON.stringify(query)}: expected 1..${EVIDENCE_PAGE_MAX}`);
  return limit;
}

/** `?anchor=<seq>:<hash>`, once or repeated; anything else is a 400 naming it. */
function anchorsOf(query: unknown, name = 'anchor'): LedgerHead[] {
  if (query === undefined) return [];
  const values = Array.isArray(query) ? query : [query];
  return values.map((value) => {
    const match = typeof value === 'string' ? ANCHOR.exec(value) : null;
    if (match === null) throw new HttpRequestError(400, `invalid ${name} ${JSON.stringify(value)}: expected <seq>:<64 hex digits>`);
    return { seq: Number(match[1]), hash: match[2]! };
  });
}

/**
 * GET /incidents, GET /incidents/:id (timeline + a page of the evidence chain; ?evidence=false: the incident only),
 * GET /incidents/:id/ledger/verify (?anchor=<seq>:<hash>: a head published in a RootCauseReport).
 */
export function incidentRoutes(store: IncidentStore, ledger: EvidenceLedger): (app: Express) => void {
  const load = async (id: string) => {
    if (!ID.test(id)) throw new HttpRequestError(400, `invalid incident id "${id}": expected inc-<16 hex digits>`);
    const found = await store.get(id);
    if (!found) throw new HttpRequestError(404, `no incident ${id}`);
    return found.doc;
  };
  return (app) => {
    app.get('/incidents', async (req, res) => {
      const state = typeof req.query.state === 'string' ? req.query.state : undefined;
      if (state !== undefined && !(INCIDENT_STATES as readonly string[]).includes(state))
        throw new HttpRequestError(400, `invalid state "${state}": expected one of ${INCIDENT_STATES.join(', ')}`);
      const incidents = await store.list(state ? { state } : {});
      res.json({ incidents: incidents.map(summarise) });
    });
    // ?evidence=false: the incident alone (its report revision, probes and window), without reading
    // the ledger: what the effector checks a report against before it acts on it.
    app.get('/incidents/:id', async (req, res) => {
      const incident = await load(req.params.id);
      const { analyses: _analyses, pending_report: _pending, ...rest } = incident;
      if (req.query.evidence === 'false') {
        res.json({ incident: rest });
        return;
      }
      // Paged (a long-lived incident's chain is never read whole): the newest `evidence_limit` records,
      // and `evidence_next`, the cursor (?evidence_before=) for the older ones, null at genesis.
      const limit = limitOf(req.query.evidence_limit);
      const before = req.query.evidence_before === undefined ? undefined : anchorsOf(req.query.evidence_before, 'evidence_before')[0];
      const page = await ledger.page(incident.incident_id, { limit, anchor: incident.ledger_head, ...(before ? { before } : {}) });
      res.json({ incident: rest, evidence: page.records, evidence_next: page.next ? `${page.next.seq}:${page.next.hash}` : null });
    });
    // ?anchor=<seq>:<hash> (repeatable): heads seen outside Elasticsearch, the `ledger_head` of the
    // incident's RootCauseReports in Kafka; a ledger cut back behind the newest of them fails.
    app.get('/incidents/:id/ledger/verify', async (req, res) => {
      const incident = await load(req.params.id);
      const verification = await ledger.verify(incident.incident_id, incident.ledger_head, anchorsOf(req.query.anchor));
      res.status(200).json(verification);
    });
  };
}
