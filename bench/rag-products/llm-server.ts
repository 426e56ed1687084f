/**
 * An OpenAI-compatible chat-completions endpoint over the project's Gemma 3 270M (node-llama-cpp's
 * prebuilt CPU binaries, services/langchain-rag's LlamaCppEngine), for RAG products configured for
 * "ChatOpenAI" with a base path. The alternative to llama-cpp-python's server
 * (tools/rag-products/install-llama-server.sh), which compiles llama.cpp from source for 10-30 minutes
 * here; this one starts in seconds. POST /v1/chat/completions (whole or as one streamed delta), GET /v1/models.
 *
 * Chat format `qa-completion`: the messages become the completion pattern a 270M model follows
 * (services/langchain-rag/src/prompt.ts): the system message (the product's prompt, with its few-shot
 * examples and the retrieved context), then `Question: <user message>` and `Answer:`; generation stops
 * at a newline or at the pattern's next block, like the project's own RAGs (the 270M model follows a
 * few-shot completion pattern far better than an instruction; a product's prompt arrives as a system
 * message, which Gemma's own chat template has no role for).
 * Usage: tsx bench/rag-products/llm-server.ts [--port 18432] [--threads 1]
 */
import express, { type Request, type Response } from 'express';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import { once } from 'node:events';
import { z } from 'zod';
import { LlamaCppEngine, installedModelPath, type CompletionEngine } from '@rag-immune/langchain-rag';

const Content = z.union([z.string(), z.array(z.object({ type: z.string(), text: z.string().optional() }))]);
const ChatRequest = z.object({
  model: z.string().optional(),
  messages: z.array(z.object({ role: z.enum(['system', 'developer', 'user', 'assistant']), content: Content })).min(1),
  temperature: z.number().min(0).max(2).default(0),
  top_p: z.number().gt(0).max(1).default(1),
  max_tokens: z.number().int().positive().optional(),
  max_completion_tokens: z.number().int().positive().optional(),
  stop: z.union([z.string(), z.array(z.string())]).optional(),
  seed: z.number().int().optional(),
  stream: z.boolean().optional(),
});
type ChatMessage = z.infer<typeof ChatRequest>['messages'][number];

const textOf = (content: ChatMessage['content']): string =>
  typeof content === 'string' ? content : content.map((part) => part.text ?? '').join('');

/** Where a `qa-completion` answer ends (the project's STOP_SEQUENCES). */
export const QA_STOPS = ['\n', 'Question:', 'Context:', '<end_of_turn>'] as const;

/**
 * The chat as the few-shot completion: system text, earlier turns as Question/Answer pairs, the last
 * user message as the open question.
 */
export function qaCompletionPrompt(messages: readonly ChatMessage[]): string {
  const system = messages
    .filter((m) => m.role === 'system' || m.role === 'developer')
    .map((m) => textOf(m.content).trim())
    .join('\n\n');
  const lines = system === '' ? [] : [system];
  for (const m of messages) {
    if (m.role === 'user') lines.push(`Question: ${textOf(m.content).trim()}`);
    if (m.role === 'assistant') lines.push(`Answer: ${textOf(m.content).trim()}`);
  }
  return `${lines.join('\n')}\nAnswer:`;
}

export function chatApp(engine: CompletionEngine): express.Express {
  const app = express();
  app.use(express.json({ limit: '5mb' }));
  app.get('/v1/models', (_req: Request, res: Response) => {
    res.json({ object: 'list', data: [{ id: engine.modelName, object: 'model', owned_by: 'rag-immune' }] });
  });
  app.post('/v1/chat/completions', async (req: Request, res: Response) => {
    const parsed = ChatRequest.safeParse(req.body);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      res.status(400).json({ error: { message: `${issue?.path.join('.') || 'body'}: ${issue?.message}`, type: 'invalid_request_error' } });
      return;
    }
    const body = parsed.data;
    const stop = [...QA_STOPS, ...(body.stop === undefined ? [] : typeof body.stop === 'string' ? [body.stop] : body.stop)];
    const prompt = qaCompletionPrompt(body.messages);
    try {
      const raw = await engine.complete({
        prompt,
        temperature: body.temperature,
        topP: body.top_p,
        seed: body.seed ?? 0,
        maxTokens: body.max_completion_tokens ?? body.max_tokens ?? 128,
        stop,
      });
      // The engine stops at a trigger but may leave part of it: cut at the first stop sequence.
      let text = raw.replace(/^\s+/, '');
      for (const s of stop) {
        const at = text.indexOf(s);
        if (at !== -1) text = text.slice(0, at);
      }
      const promptTokens = Math.ceil(prompt.length / 4);
      const completionTokens = Math.ceil(text.length / 4);
      const id = `chatcmpl-${randomUUID()}`;
      const created = Math.floor(Date.now() / 1000);
      const usage = { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens };
      if (body.stream === true) {
        // LangChain's ChatOpenAI streams inside Flowise's chains (streamLog): the whole answer as one
        // delta, then the finish, as OpenAI's server-sent events.
        const chunk = (delta: Record<string, unknown>, finish: string | null) =>
          `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model: engine.modelName, choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }] })}\n\n`;
        res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
        res.write(chunk({ role: 'assistant', content: text.trim() }, null));
        res.write(chunk({}, 'stop'));
        res.end('data: [DONE]\n\n');
        return;
      }
      res.json({
        id,
        object: 'chat.completion',
        created,
        model: engine.modelName,
        choices: [{ index: 0, message: { role: 'assistant', content: text.trim() }, finish_reason: 'stop', logprobs: null }],
        usage,
      });
    } catch (error) {
      res.status(500).json({ error: { message: (error as Error).message, type: 'server_error' } });
    }
  });
  return app;
}

export async function startLlmServer(
  port: number,
  options: { modelPath?: string; threads?: number; host?: string } = {},
): Promise<{ server: Server; url: string; engine: LlamaCppEngine }> {
  const engine = await LlamaCppEngine.load({
    modelPath: options.modelPath ?? installedModelPath(),
    contextSize: 2048,
    threads: options.threads ?? 1,
    gpu: false,
  });
  const host = options.host ?? '127.0.0.1';
  const server = chatApp(engine).listen(port, host);
  await once(server, 'listening');
  return { server, url: `http://${host}:${port}/v1`, engine };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({ options: { port: { type: 'string', default: '18432' }, threads: { type: 'string', default: '1' } } });
  const { url, engine } = await startLlmServer(Number(values.port), { threads: Number(values.threads) });
  console.error(`llm-server: ${engine.modelName} at ${url}/chat/completions`);
}
