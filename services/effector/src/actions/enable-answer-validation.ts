import { z } from 'zod';
import { PreconditionError } from './repair-tool.ts';
import { defineTool, repairCallOptions } from './tool-helpers.ts';

/** Turns on the answer-validation fallback: answers whose facts are not in their evidence are withheld. */
export const enableAnswerValidation = defineTool({
  name: 'enable_answer_validation',
  readme: { ragHook: '`POST /repair/answer-validation {enabled: true}`', undo: 'previous setting' },
  version: '1',
  intent: 'enable_answer_validation_fallback',
  description: 'Enable the answer-validation fallback (withhold answers not supported by their cited evidence)',
  input: z.object({ enabled: z.literal(true) }).strict(),
  touchesQdrant: false,
  reversible: true,
  availability: 'repair_hooks',
  plan: async () => ({ enabled: true as const }),
  async preconditions(ctx) {
    if (!(await ctx.online.capabilities()).repair_hooks.includes('answer_validation'))
      throw new PreconditionError('the RAG serves no answer_validation hook');
  },
  capture: async (ctx) => ({ enabled: (await ctx.online.capabilities()).answer_validation ?? false }),
  execute: (ctx) => ctx.online.answerValidation({ enabled: true }, repairCallOptions(ctx)),
  async verify(ctx) {
    const on = (await ctx.online.capabilities()).answer_validation;
    return on === false ? 'answer validation is still off' : null;
  },
  async undo(ctx, _args, prior) {
    await ctx.online.answerValidation({ enabled: prior.enabled === true }, { timeoutMs: ctx.timeoutMs });
  },
  describeUndo: (_args, prior) => [`answer validation set back to ${prior.enabled === true ? 'on' : 'off'}`],
});
