import type { Express } from 'express';
import { HttpRequestError } from '@rag-immune/worker-runtime';
import { summarise } from '../incidents/incident.ts';
import { INCIDENT_STATES } from '../incidents/incident-state.ts';
import type { IncidentStore } from '../incidents/incident-store.ts';
import type { EvidenceLedger } from '../ledger/evidence-ledger.ts';

const ID = /^inc-[0-9a-f]{16}$/;

/** GET /incidents, GET /incidents/:id (timeline + evidence chain; ?evidence=false: the incident only), GET /incidents/:id/ledger/verify. */
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
      const evidence = await ledger.records(incident.incident_id);
      res.json({ incident: rest, evidence });
    });
    app.get('/incidents/:id/ledger/verify', async (req, res) => {
      const incident = await load(req.params.id);
      const verification = await ledger.verify(incident.incident_id, incident.ledger_head);
      res.status(200).json(verification);
    });
  };
}
