import { truncatedLengths, WordPieceTokenizer } from '@rag-immune/embeddings';

/** One encoded (text_a, text_b) pair, ready for the model. */
export interface EncodedPair {
  inputIds: number[];
  tokenTypeIds: number[];
  /** True when longest-first truncation removed tokens from either segment. */
  truncated: boolean;
}

/**
 * The FCS view of the shared WordPiece tokenizer (@rag-immune/embeddings): the scorer tokenises
 * question+answer once and pairs it with many evidence windows, so it assembles pairs from ids,
 * with the shared longest-first truncation (HF `tokenizers` semantics, which the model was trained
 * with; test/unit/pair-tokenizer.test.ts checks ids against a fixture written by the Python recipe).
 */
export class PairTokenizer {
  private constructor(private readonly tokenizer: WordPieceTokenizer) {}

  static async fromFile(path: string): Promise<PairTokenizer> {
    return new PairTokenizer(await WordPieceTokenizer.fromFile(path));
  }

  /** Word-piece ids of a text, without special tokens. */
  ids(text: string): number[] {
    return this.tokenizer.tokenIds(text);
  }

  /** `[CLS] a [SEP] b [SEP]`, token types 0 then 1, truncated longest-first to `maxLength` tokens. */
  encodePair(textA: string, textB: string, maxLength: number): EncodedPair {
    return this.encodeIds(this.ids(textA), this.ids(textB), maxLength);
  }

  /** As encodePair, for already tokenised segments. */
  encodeIds(idsA: readonly number[], idsB: readonly number[], maxLength: number): EncodedPair {
    const [lengthA, lengthB] = truncatedLengths(idsA.length, idsB.length, maxLength - 3, 'longest_first');
    const a = idsA.slice(0, lengthA);
    const b = idsB.slice(0, lengthB);
    return {
      inputIds: [this.tokenizer.clsId, ...a, this.tokenizer.sepId, ...b, this.tokenizer.sepId],
      tokenTypeIds: [...new Array<number>(a.length + 2).fill(0), ...new Array<number>(b.length + 1).fill(1)],
      truncated: lengthA < idsA.length || lengthB < idsB.length,
    };
  }
}
