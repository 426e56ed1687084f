import type { AnomalyThresholds } from './baseline-comparison.ts';

/**
 * Whether a probe can ever fire (issue 15, item 3). A signal is compared as "baseline minus
 * online", so a probe whose clean-state FCS is already near the floor cannot drop by the threshold:
 * it looks healthy through any fault. Gated at admission (`immune probes validate --rag`, the
 * probe-set builder) and at rotation.
 */
export interface CleanStateSignals {
  /** Clean-state FCS (the lowest seen when several runs were measured); null when not scored. */
  fcs: number | null;
  ic: number | null;
}

export interface Detectability {
  fcs: boolean;
  ic: boolean;
  /** 'ok': FCS can fire; 'flagged': only IC can; 'rejected': no score signal can fire. */
  verdict: 'ok' | 'flagged' | 'rejected';
  reason: string;
}

/**
 * FCS a broken answer still scores in practice (the rotation's "always broken" bound): a fault
 * drops FCS to about here, not to zero, so a probe needs clean FCS above threshold + this.
 */
export const BROKEN_FCS_FLOOR = 0.3;

export function detectability(
  clean: CleanStateSignals,
  thresholds: Pick<AnomalyThresholds, 'fcsDrop' | 'icDrop'>,
  brokenFloor = BROKEN_FCS_FLOOR,
): Detectability {
  const fcsNeeded = thresholds.fcsDrop + brokenFloor;
  const fcs = clean.fcs !== null && clean.fcs > fcsNeeded;
  const ic = clean.ic !== null && clean.ic > thresholds.icDrop;
  const fcsText = clean.fcs === null ? 'no FCS' : `clean FCS ${clean.fcs.toFixed(2)}`;
  const icText = clean.ic === null ? 'no IC (no intent in the query)' : `clean IC ${clean.ic.toFixed(2)}`;
  if (fcs) return { fcs, ic, verdict: 'ok', reason: `${fcsText} > ${fcsNeeded.toFixed(2)}: an FCS drop of ${thresholds.fcsDrop} can show` };
  if (ic)
    return {
      fcs,
      ic,
      verdict: 'flagged',
      reason: `${fcsText} <= ${fcsNeeded.toFixed(2)}: FCS cannot drop by ${thresholds.fcsDrop}; only IC (${icText}) can fire`,
    };
  return {
    fcs,
    ic,
    verdict: 'rejected',
    reason: `cannot fire: ${fcsText} <= ${fcsNeeded.toFixed(2)} and ${icText} <= ${thresholds.icDrop}`,
  };
}
