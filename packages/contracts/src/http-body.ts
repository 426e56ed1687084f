/**
 * Reading an HTTP response body that should be JSON, the same way in every client of the workers'
 * and the RAG's APIs: an error page or a proxy's text is not JSON, and an error answer names its
 * cause in an `error` field (the APIs' ErrorBody) or, failing that, in its first characters.
 */

/** The body as JSON, or undefined when it is not JSON. */
export function jsonOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** What an error answer says: its JSON `error` field when it has one, else the start of its text. */
export function errorBodyMessage(json: unknown, text: string, maxChars = 200): string {
  const error = typeof json === 'object' && json !== null ? (json as { error?: unknown }).error : undefined;
  return typeof error === 'string' ? error : text.slice(0, maxChars);
}
