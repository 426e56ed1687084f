/**
 * How long a trial waits for probe results. A fixed window (a few probe intervals) is too short where
 * the RAG samples on a busy 2-core machine: the LangChain RAG's five-sample rounds ran past it in a CI
 * run (4 of 5 results after 154 s) while results were still arriving. So: wait for `wanted` results; past
 * the base window, go on only while results still arrive (no gap longer than `stallMs`), and never past
 * `capMs`. Returns the count reached.
 */
export interface ResultWait {
  /** Results counted so far. */
  count: () => number;
  wanted: number;
  /** The window every wait gets in full. */
  baseMs: number;
  /** Past the base window, the longest gap between two results before giving up. */
  stallMs: number;
  /** The longest wait in all. */
  capMs: number;
  pollMs?: number;
  now?: () => number;
}

export async function waitForResults(wait: ResultWait): Promise<number> {
  const now = wait.now ?? Date.now;
  const start = now();
  let seen = wait.count();
  let lastProgress = start;
  for (;;) {
    const n = wait.count();
    if (n >= wait.wanted) return n;
    const t = now();
    if (n > seen) {
      seen = n;
      lastProgress = t;
    }
    const elapsed = t - start;
    if (elapsed >= wait.capMs) return n;
    if (elapsed >= wait.baseMs && t - lastProgress > wait.stallMs) return n;
    await new Promise((resolve) => setTimeout(resolve, wait.pollMs ?? 250));
  }
}
