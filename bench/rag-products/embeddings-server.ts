/**
 * An OpenAI-compatible embeddings endpoint over the project's embedder (all-MiniLM-L6-v2 ONNX, 384
 * dimensions), so a RAG product configured for "OpenAI embeddings" (Flowise's OpenAIEmbeddings node,
 * LangChain's OpenAIEmbeddings) embeds exactly as the project's own RAGs and the sentinel do, offline.
 * POST /v1/embeddings answers `encoding_format: base64` (little-endian float32, what the openai SDK
 * asks for by default since v4.5x) and `float`; GET /v1/models lists the one model.
 * Usage: tsx bench/rag-products/embeddings-server.ts [--port 18431]
 */
import express, { type Request, type Response } from 'express';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import type { Server } from 'node:http';
import { once } from 'node:events';
import { z } from 'zod';
import { MODEL_NAME, SentenceEmbedder } from '@rag-immune/embeddings';

const EmbeddingsRequest = z.object({
  model: z.string().optional(),
  input: z.union([z.string(), z.array(z.string()).min(1)]),
  encoding_format: z.enum(['float', 'base64']).default('float'),
  dimensions: z.number().int().positive().optional(),
  user: z.string().optional(),
});

/** The embedder's float32 vector as the base64 of its little-endian bytes (OpenAI's base64 format). */
export function toBase64(vector: Float32Array): string {
  const bytes = new Uint8Array(vector.length * 4);
  const view = new DataView(bytes.buffer);
  vector.forEach((value, i) => view.setFloat32(i * 4, value, true));
  return Buffer.from(bytes).toString('base64');
}

interface EmbedderPort {
  readonly dimension: number;
  embed(texts: readonly string[]): Promise<Float32Array[]>;
}

export function embeddingsApp(embedder: EmbedderPort): express.Express {
  const app = express();
  app.use(express.json({ limit: '20mb' }));
  app.get('/v1/models', (_req: Request, res: Response) => {
    res.json({ object: 'list', data: [{ id: MODEL_NAME, object: 'model', owned_by: 'rag-immune' }] });
  });
  app.post('/v1/embeddings', async (req: Request, res: Response) => {
    const parsed = EmbeddingsRequest.safeParse(req.body);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      res.status(400).json({ error: { message: `${issue?.path.join('.') || 'body'}: ${issue?.message}`, type: 'invalid_request_error' } });
      return;
    }
    const { input, encoding_format, dimensions } = parsed.data;
    if (dimensions !== undefined && dimensions !== embedder.dimension) {
      res.status(400).json({
        error: { message: `dimensions: this model gives ${embedder.dimension}, not ${dimensions}`, type: 'invalid_request_error' },
      });
      return;
    }
    const texts = typeof input === 'string' ? [input] : input;
    // A blank text has no meaning to embed; the embedder refuses it, a product may still send one.
    const blank = texts.findIndex((text) => text.trim() === '');
    if (blank !== -1) {
      res.status(400).json({ error: { message: `input.${blank}: empty text`, type: 'invalid_request_error' } });
      return;
    }
    try {
      const vectors = await embedder.embed(texts);
      const tokens = texts.reduce((sum, text) => sum + Math.ceil(text.length / 4), 0);
      res.json({
        object: 'list',
        model: MODEL_NAME,
        data: vectors.map((vector, index) => ({
          object: 'embedding',
          index,
          embedding: encoding_format === 'base64' ? toBase64(vector) : Array.from(vector),
        })),
        usage: { prompt_tokens: tokens, total_tokens: tokens },
      });
    } catch (error) {
      res.status(500).json({ error: { message: (error as Error).message, type: 'server_error' } });
    }
  });
  return app;
}

export async function startEmbeddingsServer(port: number, host = '127.0.0.1'): Promise<{ server: Server; url: string }> {
  const embedder = await SentenceEmbedder.load({ intraOpNumThreads: 1 });
  const server = embeddingsApp(embedder).listen(port, host);
  await once(server, 'listening');
  return { server, url: `http://${host}:${port}/v1` };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({ options: { port: { type: 'string', default: '18431' } } });
  const { url } = await startEmbeddingsServer(Number(values.port));
  console.error(`embeddings-server: ${MODEL_NAME} at ${url}/embeddings`);
}
