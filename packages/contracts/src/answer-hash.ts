import { createHash } from 'node:crypto';

/**
 * ProbeObservation.answer_hash: sha256 (hex) of an answer with its whitespace normalised (trimmed,
 * each run of whitespace one space), so a trace that carries the same answer re-wrapped by an
 * exporter or a JSON round trip still matches, and any other text does not.
 */
export function answerHash(answer: string): string {
  return createHash('sha256').update(answer.normalize('NFC').trim().replace(/\s+/g, ' ')).digest('hex');
}
