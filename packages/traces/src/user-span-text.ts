/**
 * Which span attributes carry text a user typed or was answered, and a redaction pass over them.
 * The keys are those the mappers read (OpenInference, OTel GenAI, `rag_immune.*`) plus their
 * siblings that hold the same text (prompts, prompt-template variables, exception messages). Ids,
 * scores, model names and versions are left alone: they are what a diagnosis reads, and a pattern
 * meant for a phone number must not eat a version or a timestamp. The patterns themselves live in
 * `@rag-immune/redaction`; this module only knows where the text is.
 */
import type { AttributeValue, Attributes, SpanRecord } from './span-record.ts';

/** Replaces what is personal in a text with placeholders (`@rag-immune/redaction`'s Redactor). */
export type TextRedactor = (text: string) => string;

/** Attribute keys whose values hold user-derived text (on spans and on span events). */
export const USER_TEXT_ATTRIBUTES: readonly RegExp[] = [
  // OpenInference: the call's input and output, the LLM's messages and prompts, documents' text.
  /^(input|output)\.value$/,
  /^llm\.(input|output)_messages\.\d+\.message\.(content|contents\.\d+\.message_content\.text)$/,
  /^llm\.prompts(\.\d+)?$/,
  /^llm\.prompt_template\.variables$/,
  /^(retrieval\.documents|reranker\.(input|output)_documents)\.\d+\.document\.content$/,
  /^reranker\.query$/,
  /^embedding\.embeddings\.\d+\.embedding\.text$/,
  // LangChain run metadata (JSON): may hold anything the application put in it.
  /^metadata$/,
  // RAG Immune's own extensions that carry text.
  /^rag_immune\.query$/,
  // OTel GenAI, current and deprecated forms, and the retrieval operation.
  /^gen_ai\.(prompt|completion)(\.\d+\.content)?$/,
  /^gen_ai\.(input|output)\.messages$/,
  /^gen_ai\.system_instructions$/,
  /^gen_ai\.retrieval\.query\.text$/,
  /^gen_ai\.retrieval\.documents$/,
  // Event attributes: exceptions quote their input; GenAI content events carry the messages.
  /^exception\.(message|stacktrace)$/,
  /^(content|gen_ai\.event\.content)$/,
];

// Keys repeat from span to span (`retrieval.documents.<i>.…`): the answer per key is remembered, up to a bound.
const userTextKeys = new Map<string, boolean>();
function carriesUserText(key: string): boolean {
  let known = userTextKeys.get(key);
  if (known === undefined) {
    known = USER_TEXT_ATTRIBUTES.some((pattern) => pattern.test(key));
    if (userTextKeys.size >= 10_000) userTextKeys.clear();
    userTextKeys.set(key, known);
  }
  return known;
}

/** Redacts the string leaves of a value; a string holding JSON is redacted leaf by leaf and re-serialised. */
function redactValue(value: AttributeValue, redact: TextRedactor): AttributeValue {
  if (typeof value === 'string') {
    const trimmed = value.trimStart();
    if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
      try {
        // Leaf by leaf: a pattern run over serialised JSON could match across a number and a quote.
        return JSON.stringify(redactValue(JSON.parse(value) as AttributeValue, redact));
      } catch {
        // Not JSON after all: plain text.
      }
    }
    return redact(value);
  }
  if (Array.isArray(value)) return value.map((item) => redactValue(item, redact));
  if (typeof value === 'object' && value !== null)
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, redactValue(item, redact)]));
  return value;
}

function redactAttributes(attributes: Attributes, redact: TextRedactor): { attributes: Attributes; changed: number } {
  let changed = 0;
  const out: Attributes = {};
  for (const [key, value] of Object.entries(attributes)) {
    if (!carriesUserText(key)) {
      out[key] = value;
      continue;
    }
    const redacted = redactValue(value, redact);
    if (typeof value === 'string' ? redacted !== value : JSON.stringify(redacted) !== JSON.stringify(value)) changed += 1;
    out[key] = redacted;
  }
  return { attributes: out, changed };
}

/**
 * A copy of the span with every user-text attribute (span and event attributes) redacted, and how
 * many attribute values the redactor changed. The input span is not modified.
 */
export function redactSpanText(span: SpanRecord, redact: TextRedactor): { span: SpanRecord; changed: number } {
  const own = redactAttributes(span.attributes, redact);
  let changed = own.changed;
  const events = span.events.map((event) => {
    const redacted = redactAttributes(event.attributes, redact);
    changed += redacted.changed;
    return { ...event, attributes: redacted.attributes };
  });
  return { span: { ...span, attributes: own.attributes, events }, changed };
}
