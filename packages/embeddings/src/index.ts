export {
  SentenceEmbedder,
  EmbeddingInputError,
  meanPoolNormalise,
  DEFAULT_MODEL_PATH,
  DEFAULT_TOKENIZER_PATH,
  MAX_SEQUENCE_LENGTH,
  MODEL_NAME,
  type SentenceEmbedderOptions,
  type EmbedderLogger,
  type ExecutionProvider,
} from './sentence-embedder.ts';
export {
  WordPieceTokenizer,
  TokenizerInputError,
  truncatedLengths,
  type Encoding,
  type EncodedBatch,
  type EncodeOptions,
  type TextInput,
  type TruncationStrategy,
  type WordPieceTokenizerOptions,
} from './wordpiece-tokenizer.ts';
