import type { EvidenceLedger } from '../ledger/evidence-ledger.ts';
import type { EvidenceDraft, EvidenceRecord } from '../ledger/evidence-record.ts';
import type { Incident } from './incident.ts';

/**
 * Appends evidence to the incident's chain in the ledger and moves the incident's head after it. The
 * ledger claims its own head under compare-and-set before writing (EvidenceLedger.append), so a
 * replica that later loses the incident's compare-and-set has chained after the winner, never beside
 * it; its retry finds its records already on the chain and adds nothing.
 */
export async function appendEvidence(
  ledger: Pick<EvidenceLedger, 'append'>,
  incident: Incident,
  drafts: EvidenceDraft[],
): Promise<EvidenceRecord[]> {
  const { records, head } = await ledger.append(incident.incident_id, incident.ledger_head, drafts);
  incident.ledger_head = head;
  return records;
}
