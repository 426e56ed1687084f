import { pino, type DestinationStream, type Logger } from 'pino';

/**
 * Paths pino blanks in every log line. Tokens and API keys reach loggers through request headers,
 * configuration dumps and errors; redaction is the last line of defence, not the only one.
 * These fixed paths are a first pass; `redactLogLine` then censors any depth and any spelling.
 */
export const REDACTED_PATHS = [
  'authorization',
  '*.authorization',
  'headers.authorization',
  '*.headers.authorization',
  'req.headers.authorization',
  'token',
  '*.token',
  'apiKey',
  '*.apiKey',
  'password',
  '*.password',
  'headers["x-api-key"]',
  '*.headers["x-api-key"]',
  // Store credentials, as configuration dumps and client options carry them.
  'headers["api-key"]',
  '*.headers["api-key"]',
  'QDRANT_API_KEY',
  '*.QDRANT_API_KEY',
  'EFFECTOR_QDRANT_API_KEY',
  '*.EFFECTOR_QDRANT_API_KEY',
  'ES_API_KEY',
  '*.ES_API_KEY',
  'ES_PASSWORD',
  '*.ES_PASSWORD',
];

export const REDACTED = '[redacted]';

/** Words that make a key secret wherever they appear in it (snake, camel, kebab or SHOUTING case). */
const SECRET_WORDS = new Set([
  'password',
  'passwords',
  'passwd',
  'pwd',
  'passphrase',
  'secret',
  'secrets',
  'token',
  'tokens',
  'apikey',
  'authorization',
  'cookie',
  'cookies',
  'credential',
  'credentials',
  'privatekey',
]);
/** Two-word secrets: `api key`, `private key`, `access key`, and the HMAC keys (BUS_SIGNING_KEY, BUS_VERIFY_KEYS, the ledger's). */
const SECRET_PAIRS = new Set([
  'api key',
  'private key',
  'access key',
  'set cookie',
  'signing key',
  'signing keys',
  'verify key',
  'verify keys',
  'ledger key',
  'ledger keys',
  'previous keys',
]);
/**
 * A last word that makes a key describe a secret rather than hold it: `token_env` names the
 * variable, `prompt_tokens_count` counts tokens. Their values stay readable.
 */
const DESCRIPTIVE_SUFFIXES = new Set(['env', 'var', 'name', 'names', 'count', 'type', 'kind', 'length', 'file', 'path', 'ttl', 'expires']);

function keyWords(key: string): string[] {
  return key
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((word) => word !== '');
}

/** True when a field of this name holds a credential: `config.sasl.password`, `EFFECTOR_API_TOKEN`, `Authorization`, `x-api-key`… */
export function isSecretKey(key: string): boolean {
  if (key.toLowerCase() === 'auth') return true;
  const words = keyWords(key);
  if (words.length === 0 || DESCRIPTIVE_SUFFIXES.has(words[words.length - 1]!)) return false;
  return words.some((word, i) => SECRET_WORDS.has(word) || (i > 0 && SECRET_PAIRS.has(`${words[i - 1]} ${word}`)));
}

// Credentials inside free text (messages, error stacks, URLs): each pattern keeps what names the secret.
const SECRET_NAME = String.raw`[\w.-]*?(?:password|passwd|pwd|secret|token|api[_-]?key|access[_-]?key|credential|authorization|cookie)s?`;
const TEXT_PATTERNS: [RegExp, string][] = [
  // URL userinfo: https://user:pass@host → https://***@host (greedy to the last @ of the authority).
  [/\b([a-z][a-z0-9+.-]*:\/\/)[^\s/?#]+@/gi, '$1***@'],
  // Authorization schemes: `Bearer <token>`, `Basic <b64>`, `ApiKey <key>`; the scheme stays visible.
  // A credential has a digit or symbol, or is long: 'a bearer token is required' stays readable.
  [/\b(bearer|basic|apikey)(\s+)(?=[A-Za-z]*[0-9._~+/=:-]|[A-Za-z]{12})[A-Za-z0-9._~+/=:-]+/gi, `$1$2${REDACTED}`],
  // key=value in query strings, DSNs and env dumps: ?api_key=…, PASSWORD=….
  [new RegExp(String.raw`\b(${SECRET_NAME})=[^\s&,;"']+`, 'gi'), `$1=${REDACTED}`],
  // JSON embedded in a message: "password":"…".
  [new RegExp(String.raw`("${SECRET_NAME}"\s*:\s*)"(?:[^"\\]|\\.)*"`, 'gi'), `$1"${REDACTED}"`],
  // Headers dumped as text: `authorization: …`, `x-api-key: …`, `cookie: …`.
  [/\b((?:proxy-)?authorization|x-api-key|api-key|cookie|set-cookie)(\s*:\s*)(?!\s*\[redacted\])[^\r\n,;}]+/gi, `$1$2${REDACTED}`],
];

/** Censors credentials in free text: URL userinfo, `Bearer …`/`ApiKey …`, `password=…`, embedded JSON and headers. */
export function redactText(text: string): string {
  let out = text;
  for (const [pattern, replacement] of TEXT_PATTERNS) out = out.replace(pattern, replacement);
  return out;
}

/**
 * A copy of a JSON value with every secret-named field (at any depth, in arrays too) censored and
 * every string passed through `redactText`. Numbers and booleans under a secret name stay (a count
 * of tokens is no credential).
 */
export function redactValue(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return redactText(value);
  if (value === null || typeof value !== 'object') return value;
  if (depth > 64) return REDACTED;
  if (Array.isArray(value)) return value.map((item) => redactValue(item, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    const hidden = isSecretKey(key) && item !== null && (typeof item === 'string' || typeof item === 'object');
    out[key] = hidden ? REDACTED : redactValue(item, depth + 1);
  }
  return out;
}

/**
 * pino's last hook before a line is written: the line is parsed, censored and re-serialized, so
 * child bindings, serialized errors (message, stack, cause, nested options) and the message itself
 * are all covered, whatever the depth or case. Key order, and so the line's shape, is kept.
 */
export function redactLogLine(line: string): string {
  try {
    return `${JSON.stringify(redactValue(JSON.parse(line)))}\n`;
  } catch {
    // Not JSON (should not happen with pino): censor the text as is.
    return redactText(line);
  }
}

/** The JSON logger of one worker: `service` and `version` on every line, secrets redacted. */
export function workerLogger(
  service: string,
  version: string,
  level: string = process.env.LOG_LEVEL ?? 'info',
  destination?: DestinationStream,
): Logger {
  const options = {
    name: service,
    level,
    base: { service, version },
    redact: { paths: REDACTED_PATHS, censor: REDACTED },
    hooks: { streamWrite: redactLogLine },
  };
  return destination === undefined ? pino(options) : pino(options, destination);
}

/**
 * A `[HEALING]` line: one per healing step (verdict, repair, verification, case), grep-able across
 * workers' logs to follow an incident.
 */
export function healingLog(logger: Logger, fields: Record<string, unknown> & { incident_id: string }, message: string): void {
  logger.info({ healing: true, ...fields }, `[HEALING] ${message}`);
}
