// Each table belongs to one module (docs/architecture.md, "Tables and their owners"): the module that declares it in
// its tables.ts. This check reads every Kysely query under src/ and fails when a module's query names a table
// another module owns. Run: `npm run tables` (scripts/tableOwners.test.ts runs it in CI).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

export interface ForeignTable {
  file: string;
  line: number;
  table: string;
  /** The module that owns the table. */
  owner: string;
  /** The module whose query names it. */
  module: string;
}

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** Kysely's methods whose first argument names a table (or `table as alias`, or an array of them). */
const TABLE_METHODS = new Set<string>([
  'selectFrom',
  'insertInto',
  'replaceInto',
  'updateTable',
  'deleteFrom',
  'mergeInto',
  'innerJoin',
  'leftJoin',
  'rightJoin',
  'fullJoin',
  'innerJoinLateral',
  'leftJoinLateral',
  'using',
  'table',
]);

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...sourceFiles(full));
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) out.push(full);
  }
  return out;
}

function parse(file: string): ts.SourceFile {
  return ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
}

/** table name → owning module, read from each module's tables.ts (`export interface <X>Tables { name: …; }`). */
export function tableOwners(): Map<string, string> {
  const owners = new Map<string, string>();
  const modulesDir = path.join(root, 'src/modules');
  for (const module of fs.readdirSync(modulesDir)) {
    const file = path.join(modulesDir, module, 'tables.ts');
    if (!fs.existsSync(file)) continue;
    ts.forEachChild(parse(file), (node) => {
      if (!ts.isInterfaceDeclaration(node) || !node.name.text.endsWith('Tables')) return;
      for (const member of node.members) {
        if (member.name && ts.isIdentifier(member.name)) owners.set(member.name.text, module);
      }
    });
  }
  return owners;
}

/** `src/modules/<m>/…` → m. */
function placeOf(relative: string): string | undefined {
  const parts = relative.split(path.sep);
  return parts[1] === 'modules' ? parts[2] : undefined;
}

function tableNamesIn(node: ts.Node): string[] {
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node))
    return [node.text.split(/\s+as\s+/)[0]!.trim()];
  if (ts.isArrayLiteralExpression(node)) return node.elements.flatMap(tableNamesIn);
  return [];
}

/** The queries in one module file's text that name a table another module owns: { file, line, table, owner }. */
export function foreignTablesIn(relative: string, text: string, owners: Map<string, string>): ForeignTable[] {
  const module = placeOf(relative);
  const source = ts.createSourceFile(relative, text, ts.ScriptTarget.Latest, true);
  const found: ForeignTable[] = [];
  const report = (node: ts.Node, table: string) => {
    const owner = owners.get(table);
    if (!owner || owner === module) return;
    const { line } = source.getLineAndCharacterOfPosition(node.getStart());
    found.push({ file: relative, line: line + 1, table, owner, module: module ?? '' });
  };
  const visit = (node: ts.Node): void => {
    if (
      ts.isCallExpression(node) &&
      ts.isPropertyAccessExpression(node.expression) &&
      TABLE_METHODS.has(node.expression.name.text) &&
      node.arguments[0]
    ) {
      for (const table of tableNamesIn(node.arguments[0])) report(node, table);
    }
    // Raw SQL (sql`…`) names tables after from, join, into and update.
    if (ts.isTaggedTemplateExpression(node) && /^sql\b/.test(node.tag.getText())) {
      for (const [, table] of node.template
        .getText()
        .matchAll(/\b(?:from|join|into|update)\s+"?([a-z_]+)"?/gi)) {
        if (table) report(node, table);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** Every query under src/modules that names a table another module owns. */
export function crossModuleQueries(): ForeignTable[] {
  const owners = tableOwners();
  return sourceFiles(path.join(root, 'src/modules'))
    .map((file) => path.relative(root, file))
    .filter((relative) => !relative.endsWith('.test.ts') && !relative.endsWith('/tables.ts'))
    .flatMap((relative) =>
      foreignTablesIn(relative, fs.readFileSync(path.join(root, relative), 'utf8'), owners),
    );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const found = crossModuleQueries();
  for (const f of found)
    console.log(`${f.file}:${f.line}: ${f.module} names ${f.table}, a table of ${f.owner}`);
  if (found.length > 0) {
    console.log(
      `${found.length} queries name another module's table (docs/architecture.md, "Tables and their owners").`,
    );
    process.exit(1);
  }
  console.log(`every query names its own module's tables (${tableOwners().size} tables)`);
}
