import { readFile } from 'node:fs/promises';
import { Tokenizer } from '@huggingface/tokenizers';

/**
 * How a text (or pair) longer than maxLength is cut, with the same meaning as HF `tokenizers`:
 * - longest_first: tokens come off the longer side first (the default, what sentence-transformers and
 *   the FCS recipe use);
 * - only_first / only_second: only that side is cut; an error if that is not enough.
 */
export type TruncationStrategy = 'longest_first' | 'only_first' | 'only_second';

export interface EncodeOptions {
  /** Maximum length including [CLS]/[SEP]. Defaults to the tokenizer's maxLength. */
  maxLength?: number;
  truncation?: TruncationStrategy;
}

/** One encoded text or pair, unpadded: [CLS] A [SEP] or [CLS] A [SEP] B [SEP]. */
export interface Encoding {
  inputIds: number[];
  /** 0 for [CLS], A and its [SEP]; 1 for B and its [SEP]. */
  tokenTypeIds: number[];
  /** True when tokens were cut to fit maxLength. */
  truncated: boolean;
}

/** A padded batch in the int64 layout BERT-style ONNX graphs take, row-major [batchSize, sequenceLength]. */
export interface EncodedBatch {
  batchSize: number;
  sequenceLength: number;
  inputIds: BigInt64Array;
  attentionMask: BigInt64Array;
  tokenTypeIds: BigInt64Array;
  encodings: Encoding[];
}

export interface WordPieceTokenizerOptions {
  /** Default maximum length, special tokens included (all-MiniLM-L6-v2: 256, its max_seq_length). */
  maxLength?: number;
  /** tokenizer_config.json contents, if the tokenizer needs any (BERT WordPiece does not). */
  config?: Record<string, unknown>;
}

export class TokenizerInputError extends Error {
  override name = 'TokenizerInputError';
}

/** A text and the optional second text of a pair (question + evidence, claim + passage...). */
export type TextInput = string | readonly [string, string];

/**
 * BERT WordPiece tokenisation from a Hugging Face tokenizer.json, in TypeScript: normalisation, pre-tokenisation
 * and WordPiece come from @huggingface/tokenizers (pure JS); special tokens, token types, truncation and
 * padding are done here so they match HF `tokenizers` (Rust) exactly, including longest_first for pairs.
 */
export class WordPieceTokenizer {
  readonly clsId: number;
  readonly sepId: number;
  readonly padId: number;
  readonly maxLength: number;

  private constructor(
    private readonly tokenizer: Tokenizer,
    maxLength: number,
  ) {
    this.clsId = requireToken(tokenizer, '[CLS]');
    this.sepId = requireToken(tokenizer, '[SEP]');
    this.padId = requireToken(tokenizer, '[PAD]');
    if (!Number.isInteger(maxLength) || maxLength < 4) throw new TokenizerInputError(`maxLength must be an integer >= 4, got ${maxLength}`);
    this.maxLength = maxLength;
  }

  static async fromFile(tokenizerJsonPath: string, options: WordPieceTokenizerOptions = {}): Promise<WordPieceTokenizer> {
    const json: unknown = JSON.parse(await readFile(tokenizerJsonPath, 'utf8'));
    return WordPieceTokenizer.fromJSON(json, options);
  }

  static fromJSON(tokenizerJson: unknown, options: WordPieceTokenizerOptions = {}): WordPieceTokenizer {
    const model = (tokenizerJson as { model?: { type?: string } } | null)?.model;
    if (model?.type !== 'WordPiece')
      throw new TokenizerInputError(`expected a WordPiece tokenizer.json, got model type ${String(model?.type)}`);
    return new WordPieceTokenizer(new Tokenizer(tokenizerJson as object, options.config ?? {}), options.maxLength ?? 512);
  }

  /** WordPiece ids of a text without special tokens (lower-cased, accents stripped, as the uncased model). */
  tokenIds(text: string): number[] {
    return this.tokenizer.encode(text, { add_special_tokens: false }).ids;
  }

  tokens(text: string): string[] {
    return this.tokenizer.tokenize(text, { add_special_tokens: false });
  }

  /** One text, or a [first, second] pair, with special tokens and truncation. */
  encode(input: TextInput, options: EncodeOptions = {}): Encoding {
    const maxLength = options.maxLength ?? this.maxLength;
    const strategy = options.truncation ?? 'longest_first';
    if (typeof input === 'string') {
      const ids = this.tokenIds(input);
      const room = maxLength - 2;
      if (room < 0) throw new TokenizerInputError(`maxLength ${maxLength} leaves no room for [CLS] and [SEP]`);
      if (strategy === 'only_second' && ids.length > room) throw new TokenizerInputError('only_second truncation needs a pair');
      const kept = ids.slice(0, room);
      const inputIds = [this.clsId, ...kept, this.sepId];
      return { inputIds, tokenTypeIds: new Array<number>(inputIds.length).fill(0), truncated: kept.length < ids.length };
    }
    const [a, b] = [this.tokenIds(input[0]), this.tokenIds(input[1])];
    const [lenA, lenB] = truncatedLengths(a.length, b.length, maxLength - 3, strategy);
    const first = [this.clsId, ...a.slice(0, lenA), this.sepId];
    const second = [...b.slice(0, lenB), this.sepId];
    return {
      inputIds: [...first, ...second],
      tokenTypeIds: [...new Array<number>(first.length).fill(0), ...new Array<number>(second.length).fill(1)],
      truncated: lenA < a.length || lenB < b.length,
    };
  }

  /** Encodes and right-pads to the longest row (padding: [PAD], mask 0, type 0, as HF does). */
  encodeBatch(inputs: readonly TextInput[], options: EncodeOptions = {}): EncodedBatch {
    if (inputs.length === 0) throw new TokenizerInputError('encodeBatch needs at least one input');
    const encodings = inputs.map((input) => this.encode(input, options));
    const sequenceLength = Math.max(...encodings.map((e) => e.inputIds.length));
    const size = encodings.length * sequenceLength;
    const inputIds = new BigInt64Array(size).fill(BigInt(this.padId));
    const attentionMask = new BigInt64Array(size);
    const tokenTypeIds = new BigInt64Array(size);
    encodings.forEach((encoding, row) => {
      const offset = row * sequenceLength;
      encoding.inputIds.forEach((id, i) => {
        inputIds[offset + i] = BigInt(id);
        attentionMask[offset + i] = 1n;
        tokenTypeIds[offset + i] = BigInt(encoding.tokenTypeIds[i] ?? 0);
      });
    });
    return { batchSize: encodings.length, sequenceLength, inputIds, attentionMask, tokenTypeIds, encodings };
  }
}

/**
 * Lengths A and B keep so that a + b <= room, as HF tokenizers' TruncationStrategy does (Rust, utils/truncation.rs):
 * longest_first leaves the shorter side whole if it fits in half the room, otherwise both get half,
 * the odd token going to the longer side (to the second when they are equally long).
 */
export function truncatedLengths(a: number, b: number, room: number, strategy: TruncationStrategy): [number, number] {
  if (room < 0) throw new TokenizerInputError('maxLength leaves no room for a pair ([CLS] A [SEP] B [SEP])');
  if (a + b <= room) return [a, b];
  // only_*: like Rust, the cut side must keep at least one token, else it is an error.
  const excess = a + b - room;
  if (strategy === 'only_first') {
    if (a <= excess) throw new TokenizerInputError(`only_first truncation cannot fit: first text ${a} tokens, second ${b}, room ${room}`);
    return [a - excess, b];
  }
  if (strategy === 'only_second') {
    if (b <= excess) throw new TokenizerInputError(`only_second truncation cannot fit: first text ${a} tokens, second ${b}, room ${room}`);
    return [a, b - excess];
  }
  const half = Math.floor(room / 2);
  const shorter = Math.min(a, b);
  const keepShorter = shorter <= half ? shorter : half;
  const keepLonger = room - keepShorter;
  return a > b ? [keepLonger, keepShorter] : [keepShorter, keepLonger];
}

function requireToken(tokenizer: Tokenizer, token: string): number {
  const id = tokenizer.token_to_id(token);
  if (id === undefined) throw new TokenizerInputError(`tokenizer.json has no ${token} token`);
  return id;
}
