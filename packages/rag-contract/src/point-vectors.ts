/**
 * Comparing a knowledge point's stored vector with another copy of it (the pinned baseline's, a
 * snapshot's): the identifier's index diff asks "did this chunk's vector move?", the effector's
 * in-place restore asks "is the restored vector back?". Both read the same threshold.
 */

/** Same text embedded by the same model gives the same vector up to float noise (and Qdrant's normalisation). */
export const SAME_VECTOR_MIN_COSINE = 0.999;

/** The cosine of two dense vectors; 0 when they differ in length, are empty, or one is all zeros (never the same vector). */
export function vectorCosine(a: readonly number[], b: readonly number[]): number {
  if (a.length !== b.length || a.length === 0) return 0;
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}
