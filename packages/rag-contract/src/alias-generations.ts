/**
 * How the physical collections behind a RAG's Qdrant alias are named (contract 1.3.0): each
 * generation is `<alias>--<UTC time, yyyymmddthhmmssmmmz>-<4 hex>`. The RAG names its first one
 * this way and a blue/green reindex names the next; the effector's retention reads a retired
 * generation's age from its name and never touches a collection that does not follow it.
 */
const GENERATION = /^(.+)--(\d{8}t\d{9}z)-[0-9a-f]{4}$/;

export function aliasGeneration(alias: string, now: Date = new Date()): string {
  const stamp = now.toISOString().replace(/[-:.]/g, '').replace('T', 't').toLowerCase();
  const suffix = Math.floor(Math.random() * 0x10000)
    .toString(16)
    .padStart(4, '0');
  return `${alias}--${stamp}-${suffix}`;
}

/** When a generation of `alias` was created, from its name; null for any other name. */
export function generationCreatedAt(alias: string, collection: string): Date | null {
  const match = GENERATION.exec(collection);
  if (match === null || match[1] !== alias) return null;
  const s = match[2]!;
  const iso = `${s.slice(0, 4)}-${s.slice(4, 6)}-${s.slice(6, 8)}T${s.slice(9, 11)}:${s.slice(11, 13)}:${s.slice(13, 15)}.${s.slice(15, 18)}Z`;
  const at = new Date(iso);
  return Number.isNaN(at.getTime()) ? null : at;
}
