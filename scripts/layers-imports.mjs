// @ts-check
// The imports of the source files scripts/layers.mjs checks: every import in a file (TypeScript's
// parser), the file a relative specifier names, and the source files under a folder. Plain JavaScript too.
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const SOURCE = /\.(ts|tsx|mts)$/;

/**
 * Every import in a source file: its specifier and whether only types come through it.
 * @param {string} file
 * @param {string} text
 */
export function importsOf(file, text) {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false);
  /** @type {{ specifier: string, typeOnly: boolean, dynamic: boolean, line: number }[]} */
  const found = [];
  /** @param {ts.Node} node @param {string} specifier @param {boolean} typeOnly @param {boolean} [dynamic] */
  const add = (node, specifier, typeOnly, dynamic = false) =>
    found.push({
      specifier,
      typeOnly,
      dynamic,
      line: source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1,
    });
  /** @param {ts.Node} node */
  const visit = (node) => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.importClause;
      const named = clause?.namedBindings;
      const typeOnly =
        !!clause &&
        (clause.isTypeOnly ||
          (!clause.name && !!named && ts.isNamedImports(named) && named.elements.every((e) => e.isTypeOnly)));
      add(node, node.moduleSpecifier.text, typeOnly);
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      const named = node.exportClause;
      const typeOnly =
        node.isTypeOnly || (!!named && ts.isNamedExports(named) && named.elements.every((e) => e.isTypeOnly));
      add(node, node.moduleSpecifier.text, typeOnly);
    } else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) {
      const ref = node.moduleReference.expression;
      if (ts.isStringLiteral(ref)) add(node, ref.text, node.isTypeOnly);
    } else if (
      ts.isImportTypeNode(node) &&
      ts.isLiteralTypeNode(node.argument) &&
      ts.isStringLiteral(node.argument.literal)
    ) {
      add(node, node.argument.literal.text, true);
    } else if (
      ts.isCallExpression(node) &&
      (node.expression.kind === ts.SyntaxKind.ImportKeyword ||
        (ts.isIdentifier(node.expression) && node.expression.text === 'require')) &&
      node.arguments[0] &&
      ts.isStringLiteralLike(node.arguments[0])
    ) {
      add(node, node.arguments[0].text, false, node.expression.kind === ts.SyntaxKind.ImportKeyword);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/**
 * The file a relative specifier names (`./x.js` is `./x.ts` in the source), relative to `root`.
 * @param {string} root @param {string} from @param {string} specifier
 */
export function resolve(root, from, specifier) {
  const base = path.resolve(root, path.dirname(from), specifier);
  const stem = base.replace(/\.(m?js|jsx)$/, '');
  const candidates = [base, `${stem}.ts`, `${stem}.tsx`, `${stem}.mts`, `${base}.ts`, `${base}.tsx`];
  candidates.push(path.join(base, 'index.ts'), path.join(base, 'index.tsx'));
  const hit = candidates.find((c) => existsSync(c) && !c.endsWith(path.sep)) ?? base;
  return path.relative(root, hit).split(path.sep).join('/');
}

/** @param {string} root @param {string} dir @param {string[]} out */
export function sources(root, dir, out) {
  const full = path.join(root, dir);
  if (!existsSync(full)) return out;
  for (const e of readdirSync(full, { withFileTypes: true })) {
    const rel = `${dir}/${e.name}`;
    if (e.isDirectory()) sources(root, rel, out);
    else if (SOURCE.test(e.name) && !e.name.endsWith('.d.ts')) out.push(rel);
  }
  return out;
}
