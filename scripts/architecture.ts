// The import rules of docs/architecture.md, read from the source: which file imports which, folded
// into the folders under src/. test/unit/architecture.test.ts checks the rules; run this file to draw
// the folder graph:
//   npm run graph              (Graphviz dot; pipe into `dot -Tsvg > folders.svg`)
//   npm run graph -- --mermaid (a mermaid flowchart, e.g. for a pull request)
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const srcRoot = join(repoRoot, 'src');
/** The browser app (web/src, built by `npm ci` into dist/web): held to the same file rules, and standing on protocol/ alone. */
export const webRoot = join(repoRoot, 'web', 'src');

/** The faces translate one wire each; they share net/ and protocol/, never each other. */
export const FACES = ['http', 'gateway', 'toolproto', 'modules', 'mcpserve'] as const;
/** Packages protocol/ and app/ may import statically: both must load in a browser. */
export const BROWSER_SAFE_PACKAGES = ['ajv', 're2js'];

export type Layer = 'protocol' | 'app' | 'core' | 'store' | 'net' | 'face' | 'main' | 'cli' | 'web';

export interface ImportEdge {
  /** Repository-relative paths with forward slashes, e.g. `src/http/server.ts`. */
  readonly from: string;
  /** The imported file (relative imports) or the package specifier (`ajv`, `node:fs`). */
  readonly to: string;
  readonly relative: boolean;
  /** `import type …`, `export type … from` and `typeof import(…)`: erased at build, so no load-time dependency. */
  readonly typeOnly: boolean;
  /** `await import(…)`: loaded on demand (the app SDK loads `ws` only under Node). */
  readonly dynamic: boolean;
}

export interface SourceFile {
  readonly path: string;
  readonly lines: number;
  readonly text: string;
}

const posix = (p: string) => p.split(sep).join('/');

export function sourceFiles(dir = srcRoot): SourceFile[] {
  const out: SourceFile[] = [];
  const walk = (d: string) => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (name.endsWith('.ts') || name.endsWith('.tsx')) {
        const text = readFileSync(p, 'utf8');
        const lines = text.length === 0 ? 0 : text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
        out.push({ path: posix(relative(repoRoot, p)), lines, text });
      }
    }
  };
  walk(dir);
  return out;
}

const parsed = new WeakMap<SourceFile, ImportEdge[]>();

/** Every import and re-export of one file, as the compiler parses it (comments and strings cannot fool it). */
export function importsOf(file: SourceFile): ImportEdge[] {
  const known = parsed.get(file);
  if (known) return known;
  const kind = file.path.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
  const sf = ts.createSourceFile(file.path, file.text, ts.ScriptTarget.Latest, false, kind);
  const edges: ImportEdge[] = [];
  const add = (specifier: string, typeOnly: boolean, dynamic: boolean) => {
    const isRelative = specifier.startsWith('.');
    const to = isRelative
      ? posix(relative(repoRoot, resolve(repoRoot, dirname(file.path), specifier))).replace(/\.js$/, '.ts')
      : specifier;
    edges.push({ from: file.path, to, relative: isRelative, typeOnly, dynamic });
  };
  const visit = (node: ts.Node) => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.importClause;
      const typeOnly =
        clause !== undefined &&
        (clause.isTypeOnly ||
          (clause.name === undefined &&
            clause.namedBindings !== undefined &&
            ts.isNamedImports(clause.namedBindings) &&
            clause.namedBindings.elements.length > 0 &&
            clause.namedBindings.elements.every((e) => e.isTypeOnly)));
      add(node.moduleSpecifier.text, typeOnly, false);
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      const typeOnly =
        node.isTypeOnly ||
        (node.exportClause !== undefined &&
          ts.isNamedExports(node.exportClause) &&
          node.exportClause.elements.length > 0 &&
          node.exportClause.elements.every((e) => e.isTypeOnly));
      add(node.moduleSpecifier.text, typeOnly, false);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      add(node.argument.literal.text, true, false);
    } else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] !== undefined &&
      ts.isStringLiteral(node.arguments[0])
    ) {
      add(node.arguments[0].text, false, true);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  parsed.set(file, edges);
  return edges;
}

/** The folder a source file belongs to: its first folder under src/, or `src/<name>.ts` for the few root files; `web` for the browser app. */
export function folderOf(path: string): string {
  if (path.startsWith('web/')) return 'web';
  return path.replace(/^src\//, '').split('/')[0]!;
}

export function layerOf(folder: string): Layer {
  if (folder === 'protocol' || folder === 'app' || folder === 'net' || folder === 'main' || folder === 'cli' || folder === 'store') {
    return folder;
  }
  if (folder === 'web') return 'web';
  if ((FACES as readonly string[]).includes(folder)) return 'face';
  return 'core';
}

/** What the store may stand on: the wire vocabulary, the configuration and the root clock/log helpers. */
const STORE_MAY_IMPORT = new Set(['store', 'protocol', 'config', 'clock.ts', 'log.ts']);

/** The rule an import breaks, or null. Both ends are `src/` files (package imports are checked apart). */
export function ruleBroken(from: string, to: string): string | null {
  const a = folderOf(from);
  const b = folderOf(to);
  if (a === b) return null;
  const la = layerOf(a);
  const lb = layerOf(b);
  if (lb === 'cli') return 'nothing imports cli/: it is the entry point';
  if (lb === 'main' && la !== 'cli') return 'only cli/ may import main/, the one wiring point';
  if (la === 'app' && lb !== 'protocol') return 'app/ (the published SDK) stands on protocol/ alone';
  if (la === 'web' && lb !== 'protocol') return 'web/ (the browser app) talks to the daemon over HTTP and may share protocol/ alone';
  if (lb === 'web') return 'nothing of the daemon imports web/: it is built apart and served as files';
  if (la === 'protocol') return 'protocol/ is pure wire vocabulary and imports nothing else of the daemon';
  if (la === 'face' && lb === 'face') return `a face imports another face (${a}/ → ${b}/); share it through net/ or protocol/`;
  if (la === 'face' && lb === 'app') return 'a face imports the app SDK';
  if (la === 'net' && (lb === 'face' || lb === 'app')) return `net/ is below the faces and imports none (${b}/)`;
  if ((la === 'core' || la === 'store') && (lb === 'face' || lb === 'net' || lb === 'app')) {
    return `the core knows no face or transport (${a}/ → ${b}/)`;
  }
  if (la === 'store' && !STORE_MAY_IMPORT.has(b)) return `store/ imports nothing above it (${b}/)`;
  return null;
}

/** protocol/ and app/ load in a browser: no Node built-in and no package outside the allow-list, unless type-only or loaded on demand. */
export function packageRuleBroken(edge: ImportEdge): string | null {
  if (edge.relative || edge.typeOnly || edge.dynamic) return null;
  const layer = layerOf(folderOf(edge.from));
  if (layer !== 'protocol' && layer !== 'app') return null;
  const pkg = edge.to.startsWith('@') ? edge.to.split('/').slice(0, 2).join('/') : edge.to.split('/')[0]!;
  if (BROWSER_SAFE_PACKAGES.includes(pkg)) return null;
  return `${layer}/ must load in a browser; ${edge.to} is not on the browser-safe list`;
}

/** Folder → folders it imports (value and type imports alike: a type import still couples two folders). */
export function folderGraph(files: readonly SourceFile[]): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>();
  for (const file of files) {
    const a = folderOf(file.path);
    if (!graph.has(a)) graph.set(a, new Set());
    for (const edge of importsOf(file)) {
      if (!edge.relative || !edge.to.startsWith('src/')) continue;
      const b = folderOf(edge.to);
      if (a !== b) graph.get(a)!.add(b);
    }
  }
  return graph;
}

/** The folder circles: strongly connected groups of more than one folder (Tarjan). */
export function folderCycles(graph: ReadonlyMap<string, ReadonlySet<string>>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const connect = (v: string) => {
    index.set(v, counter);
    low.set(v, counter);
    counter += 1;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        connect(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v)!, index.get(w)!));
      }
    }
    if (low.get(v) === index.get(v)) {
      const group: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        group.push(w);
      } while (w !== v);
      if (group.length > 1) cycles.push(group.sort());
    }
  };
  for (const v of [...graph.keys()].sort()) if (!index.has(v)) connect(v);
  return cycles;
}

const dotId = (folder: string) => JSON.stringify(folder);
const mermaidId = (folder: string) => folder.replace(/[^A-Za-z0-9]/g, '_');

export function drawDot(graph: ReadonlyMap<string, ReadonlySet<string>>): string {
  const lines = ['digraph folders {', '  rankdir=BT;', '  node [shape=box, fontname="Helvetica"];'];
  for (const folder of [...graph.keys()].sort()) {
    const layer = layerOf(folder);
    const style = layer === 'face' ? ', style=filled, fillcolor="#dbeafe"' : layer === 'protocol' || layer === 'net' ? ', style=filled, fillcolor="#dcfce7"' : '';
    lines.push(`  ${dotId(folder)} [label="${folder}\\n(${layer})"${style}];`);
  }
  for (const [from, tos] of [...graph.entries()].sort(([a], [b]) => a.localeCompare(b))) {
    for (const to of [...tos].sort()) lines.push(`  ${dotId(from)} -> ${dotId(to)};`);
  }
  lines.push('}');
  return lines.join('\n');
}

export function drawMermaid(graph: ReadonlyMap<string, ReadonlySet<string>>): string {
  const lines = ['flowchart BT'];
  for (const folder of [...graph.keys()].sort()) lines.push(`  ${mermaidId(folder)}["${folder}"]`);
  for (const [from, tos] of [...graph.entries()].sort(([a], [b]) => a.localeCompare(b))) {
    for (const to of [...tos].sort()) lines.push(`  ${mermaidId(from)} --> ${mermaidId(to)}`);
  }
  return lines.join('\n');
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const graph = folderGraph(sourceFiles());
  console.log(process.argv.includes('--mermaid') ? drawMermaid(graph) : drawDot(graph));
}
