import { z } from 'zod';
import { defineTool } from './tool-helpers.ts';

/** Hands the incident to the on-call engineer: changes nothing; the executor publishes `escalated`. */
export const escalateToHuman = defineTool({
  name: 'escalate_to_human',
  version: '1',
  intent: 'escalate_to_human',
  description: 'Escalate to the on-call engineer (no change to the RAG)',
  input: z.object({ reason: z.string().min(1) }).strict(),
  touchesQdrant: false,
  reversible: true,
  terminal: true,
  plan: async (_ctx, params) => ({ reason: params.reason ?? 'policy escalates this incident' }),
  preconditions: async () => {},
  capture: async () => ({}),
  execute: async () => ({ detail: {} }),
  verify: async () => null,
  undo: async () => {},
  describeUndo: () => ['nothing to undo'],
});
