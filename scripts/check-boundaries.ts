/**
 * The dependency rules of the layout, checked on every import in the tree (run by `npm run lint`):
 *   - a package (packages/*) never imports a service, an app or the dev stack (tools/*); its tests
 *     may use the dev stack and the test kit, never a service;
 *   - a service's code never imports another service, an app or the dev stack; its tests and
 *     scripts reach the reference RAG only through `@rag-immune/reference-rag/testing`;
 *   - an app (apps/*) never imports a service or the dev stack;
 *   - nothing reaches into another workspace by a relative path: across workspaces, by package name
 *     (bench/, scripts/ and test/ included).
 * test/kit is the test kit (test support beside the tests, not a shipped package): like a test, it
 * may drive the dev stack and reach the reference RAG through `@rag-immune/reference-rag/testing`;
 * never another service or an app (it starts the workers as processes, by their entry files). No
 * shipped code (a workspace's src/) imports it: the arrows point from tests to code, never back.
 */
import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** Workspace directory (relative to the root) by package name. */
const workspaces = new Map<string, string>();
const TEST_KIT = 'test/kit';
for (const parent of ['apps', 'packages', 'services', 'tools'])
  for (const name of existsSync(join(root, parent)) ? readdirSync(join(root, parent)) : []) {
    const manifest = join(root, parent, name, 'package.json');
    if (existsSync(manifest)) workspaces.set((JSON.parse(readFileSync(manifest, 'utf8')) as { name: string }).name, `${parent}/${name}`);
  }
if (existsSync(join(root, TEST_KIT, 'package.json')))
  workspaces.set((JSON.parse(readFileSync(join(root, TEST_KIT, 'package.json'), 'utf8')) as { name: string }).name, TEST_KIT);

type Kind = 'app' | 'package' | 'service' | 'tool' | 'testkit' | 'root';
const kindOf = (workspace: string | null): Kind =>
  workspace === null
    ? 'root'
    : workspace === TEST_KIT
      ? 'testkit'
      : ({ apps: 'app', packages: 'package', services: 'service', tools: 'tool' } as const)[workspace.split('/')[0] as 'apps'];

/** The workspace a path lies in, or null (bench/, scripts/, the rest of test/ at the root). */
function workspaceOf(path: string): string | null {
  if (path === TEST_KIT || path.startsWith(`${TEST_KIT}/`)) return TEST_KIT;
  const [top, name] = path.split('/');
  return top && name && ['apps', 'packages', 'services', 'tools'].includes(top) ? `${top}/${name}` : null;
}

/** Whether the file is test or tooling code of its workspace rather than what it ships. */
const isTestCode = (path: string, workspace: string) => /^(test|scripts)\//.test(path.slice(workspace.length + 1));

const IMPORT = /(?:^|\s)(?:import|export)\s(?:[^'";]*?\sfrom\s)?['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

const files = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '*.ts'], { cwd: root, encoding: 'utf8' })
  .split('\n')
  .filter((f) => f !== '' && !f.includes('node_modules/') && !f.includes('/generated/') && existsSync(join(root, f)));

/** Known breaks being removed: each names the step that removes it. */
const PENDING = new Set<string>([]);

export interface Violation {
  file: string;
  specifier: string;
  rule: string;
}

export function violations(): Violation[] {
  const found: Violation[] = [];
  for (const file of files) {
    const from = workspaceOf(file);
    const fromKind = kindOf(from);
    const text = readFileSync(join(root, file), 'utf8');
    for (const match of text.matchAll(IMPORT)) {
      const specifier = match[1] ?? match[2]!;
      let target: string | null;
      let byName = false;
      if (specifier.startsWith('.')) {
        target = relative(root, resolve(root, dirname(file), specifier))
          .split(sep)
          .join('/');
      } else if (specifier.startsWith('@rag-immune/')) {
        const name = specifier.split('/').slice(0, 2).join('/');
        target = workspaces.get(name) ?? null;
        byName = true;
      } else continue;
      if (target === null) continue;
      const to = workspaceOf(target);
      if (to === from) continue;
      const toKind = kindOf(to);
      const add = (rule: string) => {
        if (!PENDING.has(`${file} ${specifier}`)) found.push({ file, specifier, rule });
      };
      if (!byName && to !== null) add('another workspace is imported by its package name, not a relative path');
      if (to === null) continue;
      const testCode = from !== null && isTestCode(file, from);
      const testingSubpath = specifier === '@rag-immune/reference-rag/testing';
      if (toKind === 'testkit' && from !== null && fromKind !== 'testkit' && !testCode)
        add('shipped code never imports the test kit (test support sits beside the tests)');
      if (fromKind === 'testkit') {
        if (toKind === 'app') add('the test kit never imports an app');
        else if (toKind === 'service' && !testingSubpath)
          add('the test kit never imports a service (the reference RAG: @rag-immune/reference-rag/testing)');
      } else if (fromKind === 'package') {
        if (toKind === 'service' || toKind === 'app') add('a package never imports a service or an app');
        else if (toKind === 'tool' && !testCode) add('a package never imports the dev stack (tools/)');
      }
      if (fromKind === 'service') {
        if (toKind === 'app') add('a service never imports an app');
        else if (toKind === 'service' && !(testCode && testingSubpath))
          add('a service never imports another service (tests: @rag-immune/reference-rag/testing)');
        else if (toKind === 'tool' && !testCode) add('a service never imports the dev stack (tools/)');
      }
      if (fromKind === 'app' && !(from !== null && isTestCode(file, from))) {
        if (toKind === 'service' || toKind === 'tool')
          add('an app reaches workers over HTTP or through packages, never a service or the dev stack');
      }
    }
  }
  return found;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const found = violations();
  for (const v of found) console.error(`${v.file}: imports ${v.specifier}: ${v.rule}`);
  if (found.length > 0) {
    console.error(`${found.length} import(s) break the dependency rules (scripts/check-boundaries.ts)`);
    process.exit(1);
  }
  console.log(`dependency rules hold (${files.length} files)`);
}
