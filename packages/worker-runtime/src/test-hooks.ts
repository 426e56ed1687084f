import type { Logger } from 'pino';

/**
 * Pause points for chaos tests (test/integration/healing-chaos.test.ts). With
 * `RAG_IMMUNE_TEST_PAUSE=<point>[,<point>…]` a worker that reaches a named point for the first time
 * logs `{"msg":"test pause","point":…}` and sleeps `RAG_IMMUNE_TEST_PAUSE_MS` (default 30 s), so
 * the test can SIGKILL it at exactly that step (e.g. between a Qdrant snapshot and the repair).
 * Unset (always, outside those tests) it does nothing and costs one lookup.
 */
const points = new Set((process.env.RAG_IMMUNE_TEST_PAUSE ?? '').split(',').filter(Boolean));
const pauseMs = Number(process.env.RAG_IMMUNE_TEST_PAUSE_MS ?? 30_000);

export async function testPause(point: string, logger: Logger | undefined, fields: Record<string, unknown> = {}): Promise<void> {
  if (!points.has(point)) return;
  points.delete(point); // once per process: the step after a restart runs normally
  if (logger) logger.warn({ ...fields, point, pause_ms: pauseMs }, 'test pause');
  else process.stdout.write(`${JSON.stringify({ ...fields, point, pause_ms: pauseMs, msg: 'test pause' })}\n`);
  await new Promise((resolve) => setTimeout(resolve, pauseMs));
}
