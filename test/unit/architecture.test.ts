import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import ts from 'typescript';
import {
  folderCycles,
  folderGraph,
  importsOf,
  packageRuleBroken,
  ruleBroken,
  sourceFiles,
  type SourceFile,
  webRoot,
} from '../../scripts/architecture.js';

// docs/architecture.md states these rules and why; scripts/architecture.ts reads the imports.

/**
 * Imports that still break a rule in folders another change is reshaping (sessions, store,
 * transcript, tokens). Each names the exact file and target so nothing else slips through; remove
 * an entry once its import is gone (the test reports entries that no longer match).
 */
const TEMPORARY_IMPORT_EXCEPTIONS: ReadonlyArray<{ readonly from: string; readonly to: string }> = [];

/** Files over the size limit in those same folders, with the same promise. */
const TEMPORARY_SIZE_EXCEPTIONS: readonly string[] = [];

/** Folder circles among those same folders, as sorted member lists joined by `,`. */
const TEMPORARY_CYCLE_EXCEPTIONS: readonly string[] = [];

/** index.ts files in those same folders that still hold more than re-exports. */
const TEMPORARY_INDEX_EXCEPTIONS: readonly string[] = [];

const MAX_LINES = 300;
const files = [...sourceFiles(), ...sourceFiles(webRoot)];
const excepted = (from: string, to: string) => TEMPORARY_IMPORT_EXCEPTIONS.some((e) => e.from === from && e.to === to);

function stale(list: readonly string[], stillNeeded: (entry: string) => boolean): string[] {
  return list.filter((entry) => !stillNeeded(entry));
}

describe('the import rules of docs/architecture.md', () => {
  it('reads every source file and finds imports in them', () => {
    assert.ok(files.length > 100, `only ${files.length} files under src/`);
    const daemon = files.find((f) => f.path === 'src/main/daemon.ts');
    assert.ok(daemon, 'src/main/daemon.ts is the wiring point');
    assert.ok(importsOf(daemon).some((e) => e.to === 'src/http/server.ts'));
  });

  it('the rules refuse what they are meant to refuse', () => {
    assert.match(ruleBroken('src/gateway/host/x.ts', 'src/http/upgrade.ts') ?? '', /face imports another face/);
    assert.match(ruleBroken('src/app/app.ts', 'src/tools/types.ts') ?? '', /protocol\/ alone/);
    assert.match(ruleBroken('src/store/repos/x.ts', 'src/sessions/session.ts') ?? '', /store\/ imports nothing above it/);
    assert.match(ruleBroken('src/http/server.ts', 'src/main/core.ts') ?? '', /only cli\/ may import main\//);
    assert.match(ruleBroken('src/sessions/x.ts', 'src/http/server.ts') ?? '', /core knows no face/);
    assert.equal(ruleBroken('src/http/server.ts', 'src/net/security.ts'), null);
    assert.match(ruleBroken('web/src/App.tsx', 'src/sessions/session.ts') ?? '', /web\/ \(the browser app\)/);
    assert.equal(ruleBroken('web/src/App.tsx', 'src/protocol/errors/catalog.ts'), null);
    assert.match(ruleBroken('src/http/server.ts', 'web/src/App.tsx') ?? '', /nothing of the daemon imports web\//);
    assert.equal(ruleBroken('src/cli/serve.ts', 'src/main/daemon.ts'), null);
    assert.deepEqual(folderCycles(new Map([['a', new Set(['b'])], ['b', new Set(['a'])], ['c', new Set(['a'])]])), [['a', 'b']]);
  });

  it('no face imports another face, the core imports no face, only cli/ imports main/, and store/ imports nothing above it', () => {
    const broken: string[] = [];
    for (const file of files) {
      for (const edge of importsOf(file)) {
        if (!edge.relative || !(edge.to.startsWith('src/') || edge.to.startsWith('web/'))) continue;
        const rule = ruleBroken(edge.from, edge.to);
        if (rule !== null && !excepted(edge.from, edge.to)) broken.push(`${edge.from} → ${edge.to}: ${rule}`);
      }
    }
    assert.deepEqual(broken, []);
  });

  it('app/ and protocol/ load in a browser: no Node built-ins or daemon packages', () => {
    const broken = files.flatMap((file) =>
      importsOf(file).flatMap((edge) => {
        const rule = packageRuleBroken(edge);
        return rule === null ? [] : [`${edge.from} → ${edge.to}: ${rule}`];
      }),
    );
    assert.deepEqual(broken, []);
  });

  it('no source turns on async hooks: an AsyncLocalStorage makes every promise of the process pay a hook', () => {
    // docs/cluster.md, CPU per request: its promise hook cost a node ~0.2 ms of CPU per prompt. A session's writes name it instead.
    const broken = files.flatMap((file) => [
      ...importsOf(file).filter((edge) => /^(node:)?async_hooks$/.test(edge.to)).map((edge) => `${edge.from} imports ${edge.to}`),
      ...(/\bAsyncLocalStorage\b|\bcreateHook\b/.test(file.text) ? [`${file.path} names AsyncLocalStorage or createHook`] : []),
    ]);
    assert.deepEqual(broken, []);
  });

  it('the folders import each other without a circle', () => {
    const cycles = folderCycles(folderGraph(files)).map((c) => c.join(','));
    assert.deepEqual(
      cycles.filter((c) => !TEMPORARY_CYCLE_EXCEPTIONS.includes(c)),
      [],
    );
  });

  it('the temporary exceptions still describe something that is there', (t) => {
    const cycles = folderCycles(folderGraph(files)).map((c) => c.join(','));
    const gone = [
      ...TEMPORARY_IMPORT_EXCEPTIONS.filter((e) => !files.some((f) => f.path === e.from && importsOf(f).some((i) => i.to === e.to))).map(
        (e) => `${e.from} → ${e.to}`,
      ),
      ...stale(TEMPORARY_SIZE_EXCEPTIONS, (p) => (files.find((f) => f.path === p)?.lines ?? 0) > MAX_LINES),
      ...stale(TEMPORARY_CYCLE_EXCEPTIONS, (c) => cycles.includes(c)),
      ...stale(TEMPORARY_INDEX_EXCEPTIONS, (p) => files.some((f) => f.path === p && !reExportsOnly(f))),
    ];
    // Reported, not failed: the change that fixes one of these should not have to edit this file to land.
    for (const entry of gone) t.diagnostic(`temporary exception no longer needed: ${entry}`);
  });
});

describe('file shape', () => {
  it(`every source file has at most ${MAX_LINES} lines, except generated *.gen.ts`, () => {
    const long = files
      .filter((f) => !f.path.endsWith('.gen.ts') && f.lines > MAX_LINES && !TEMPORARY_SIZE_EXCEPTIONS.includes(f.path))
      .map((f) => `${f.path}: ${f.lines} lines`);
    assert.deepEqual(long, []);
  });

  it('an index.ts only re-exports', () => {
    const holding = files
      .filter((f) => f.path.endsWith('/index.ts') && !reExportsOnly(f) && !TEMPORARY_INDEX_EXCEPTIONS.includes(f.path))
      .map((f) => f.path);
    assert.deepEqual(holding, []);
  });

  it('the index check tells a re-export from an implementation', () => {
    const file = (text: string): SourceFile => ({ path: 'src/x/index.ts', lines: 1, text });
    assert.equal(reExportsOnly(file("// a note\nexport { a, type B } from './a.js';\nexport * from './c.js';\n")), true);
    assert.equal(reExportsOnly(file("import { a } from './a.js';\nexport const b = a + 1;\n")), false);
    assert.equal(reExportsOnly(file("export function f() { return 1; }\n")), false);
  });
});

/** True when every statement is `export … from` (comments aside). */
function reExportsOnly(file: SourceFile): boolean {
  const sf = ts.createSourceFile(file.path, file.text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  return sf.statements.every((s) => ts.isExportDeclaration(s) && s.moduleSpecifier !== undefined);
}
