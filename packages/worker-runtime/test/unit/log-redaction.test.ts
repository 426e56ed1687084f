import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import { isSecretKey, redactText, workerLogger } from '../../src/index.ts';

function capture() {
  const lines: string[] = [];
  const sink = new Writable({
    write: (chunk: Buffer, _enc, done) => {
      lines.push(chunk.toString());
      done();
    },
  });
  return { lines, logger: workerLogger('test-worker', '9.9.9', 'debug', sink) };
}

// Every secret is a distinct string so a leak names its place.
const S = {
  sasl: 'sasl-pass-7f3a9c',
  envToken: 'effector-api-token-5b8e1d',
  apiToken: 'api-token-camel-2c4f6a',
  authHeader: 'hdr-bearer-9d1e3b',
  cookie: 'session-cookie-8a7b6c',
  apiKeyHeader: 'x-api-key-4e5f6a',
  errMessage: 'err-bearer-3c2b1a',
  errStack: 'stack-apikey-6d5e4f',
  url: 'url-userinfo-pass-1a2b3c',
  urlInMsg: 'msg-url-pass-0f9e8d',
  privateKey: 'private-key-pem-7c6b5a',
  arrayed: 'array-secret-2b3c4d',
  clientSecret: 'client-secret-5e6f7a',
  credential: 'kebab-credential-8b9c0d',
  query: 'query-api-key-1c2d3e',
  embeddedJson: 'embedded-json-password-4f5a6b',
  cause: 'cause-token-7d8e9f',
  errProp: 'err-prop-password-0a1b2c',
  child: 'child-binding-token-3d4e5f',
  basic: 'dXNlcjpwYXNzd29yZA==',
  ragHeaders: 'rag-header-6e5d4c',
  jsonCookie: 'sidcookievalue',
};

test('no planted secret reaches the log: nested config, env keys, headers, errors, URLs, messages, child bindings', () => {
  const { lines, logger } = capture();
  logger.info(
    {
      config: { kafka: { sasl: { mechanism: 'plain', username: 'svc', password: S.sasl } } },
      env: {
        EFFECTOR_API_TOKEN: S.envToken,
        LOG_LEVEL: 'info',
        EFFECTOR_RAG_HEADERS: JSON.stringify({ Authorization: `Bearer ${S.ragHeaders}`, cookie: S.jsonCookie }),
      },
      client: { apiToken: S.apiToken, Private_Key: S.privateKey, clientSecret: S.clientSecret, 'aws-credential': S.credential },
      request: { headers: { Authorization: `Bearer ${S.authHeader}`, Cookie: S.cookie, 'X-API-KEY': S.apiKeyHeader } },
      upstreams: [{ url: `https://svc:${S.url}@qdrant.internal:6333/collections` }, { PASSWORD: S.arrayed }],
    },
    'configuration loaded',
  );
  const error = new Error(`request failed with Authorization: Bearer ${S.errMessage}`, {
    cause: new Error(`upstream said token=${S.cause}`),
  });
  error.stack = `${error.stack}\n    at call (ApiKey ${S.errStack})`;
  Object.assign(error, { meta: { options: { headers: { authorization: `Basic ${S.basic}` } } }, connection: { Password: S.errProp } });
  logger.error({ err: error }, 'call failed');
  logger.error(error);
  logger.warn(`fetching https://admin:${S.urlInMsg}@es.internal:9200/_search?api_key=${S.query}`);
  logger.info({ body: `{"user":"x","password":"${S.embeddedJson}"}` }, 'echo');
  logger.child({ upstream: { token: S.child } }).info('child line');

  const output = lines.join('');
  for (const [place, secret] of Object.entries(S)) assert.ok(!output.includes(secret), `the ${place} secret leaked:\n${output}`);
  // The shape stays: one JSON line per call, with the usual fields and readable non-secrets.
  assert.equal(lines.length, 6);
  const first = JSON.parse(lines[0]!) as {
    service: string;
    msg: string;
    config: { kafka: { sasl: { username: string; password: string } } };
    env: { LOG_LEVEL: string };
    upstreams: { url: string }[];
  };
  assert.equal(first.service, 'test-worker');
  assert.equal(first.msg, 'configuration loaded');
  assert.equal(first.config.kafka.sasl.username, 'svc');
  assert.equal(first.config.kafka.sasl.password, '[redacted]');
  assert.equal(first.env.LOG_LEVEL, 'info');
  assert.equal(first.upstreams[0]!.url, 'https://***@qdrant.internal:6333/collections');
  const second = JSON.parse(lines[1]!) as { err: { type: string; message: string; stack: string } };
  assert.equal(second.err.type, 'Error');
  assert.match(second.err.message, /request failed with Authorization: \[redacted\]/);
  assert.match(second.err.stack, /at call \(ApiKey \[redacted\]\)/);
  assert.match((JSON.parse(lines[3]!) as { msg: string }).msg, /https:\/\/\*\*\*@es\.internal:9200\/_search\?api_key=\[redacted\]/);
});

test('secret keys are recognised in any case and separator; descriptive keys and counts stay readable', () => {
  for (const key of [
    'password',
    'PASSWORD',
    'db_passwd',
    'clientSecret',
    'EFFECTOR_API_TOKEN',
    'apiKey',
    'APIKey',
    'x-api-key',
    'Authorization',
  ]) {
    assert.ok(isSecretKey(key), key);
  }
  for (const key of [
    'set-cookie',
    'privateKey',
    'aws_credentials',
    'accessKeyId',
    'auth',
    'EFFECTOR_API_TOKENS',
    'BUS_SIGNING_KEY',
    'BUS_VERIFY_KEYS',
    'signingKey',
    'IDENTIFIER_LEDGER_KEY',
    'IDENTIFIER_LEDGER_PREVIOUS_KEYS',
  ])
    assert.ok(isSecretKey(key), key);
  for (const key of ['token_env', 'tokenizer', 'key', 'grant_key', 'author', 'password_file', 'username'])
    assert.ok(!isSecretKey(key), key);
  const { lines, logger } = capture();
  logger.info({ prompt_tokens: 42, token_env: 'EFFECTOR_API_TOKEN', tokenizer: 'v2' }, 'a bearer token is required');
  const line = JSON.parse(lines[0]!) as Record<string, unknown>;
  assert.equal(line.prompt_tokens, 42);
  assert.equal(line.token_env, 'EFFECTOR_API_TOKEN');
  assert.equal(line.tokenizer, 'v2');
  assert.equal(line.msg, 'a bearer token is required');
});

test('redactText censors credentials inside free text', () => {
  assert.equal(redactText('GET http://u:p%40ss@host/x'), 'GET http://***@host/x');
  assert.equal(redactText('Authorization: Bearer abc.def-123'), 'Authorization: [redacted]');
  assert.equal(redactText('sent Bearer abc.def-123 to x'), 'sent Bearer [redacted] to x');
  assert.equal(redactText('PASSWORD=hunter22 next'), 'PASSWORD=[redacted] next');
});
