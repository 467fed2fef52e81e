// Issue 44: no production export exists only for tests. An export of nodes/ or credentials/ that no
// production code uses (not another module, not its own) is there for tests; tests import what the
// code itself uses, or keep their own copy.
const fs = require('node:fs');
const path = require('node:path');
const ts = require('typescript');
const { tsFiles } = require('../../../scripts/check/comment-density');

const ROOT = path.resolve(__dirname, '../../..');

/** Exported declaration names of a source, and every identifier it uses (declaration names left out). */
function readSource(fileName, text = fs.readFileSync(fileName, 'utf8')) {
	const file = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true);
	const exported = [];
	const declared = new Set();
	for (const statement of file.statements) {
		const isExported = ts
			.getModifiers?.(statement)
			?.some((modifier) => modifier.kind === ts.SyntaxKind.ExportKeyword);
		if (!isExported) continue;
		const names = ts.isVariableStatement(statement)
			? statement.declarationList.declarations.map((declaration) => declaration.name)
			: [statement.name];
		for (const name of names.filter((n) => n && ts.isIdentifier(n))) {
			exported.push(name.text);
			declared.add(name);
		}
	}
	const used = new Set();
	const visit = (node) => {
		// an import or a re-export is no use: only code that reads the name is
		if (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) return;
		if (ts.isIdentifier(node) && !declared.has(node)) used.add(node.text);
		ts.forEachChild(node, visit);
	};
	visit(file);
	return { exported, used };
}

/** `file name` of every export that no source of `sources` (file → readSource) uses. */
function unusedExports(sources) {
	const found = [];
	for (const [file, { exported }] of sources) {
		// n8n loads the node and credential classes by file name
		if (/\.(node|credentials)\.ts$/.test(file)) continue;
		for (const name of exported) {
			const usedAnywhere = [...sources.values()].some(({ used }) => used.has(name));
			if (!usedAnywhere) found.push(`${path.relative(ROOT, file)} ${name}`);
		}
	}
	return found;
}

describe('production exports', () => {
	it('the check finds an export no module uses, not one another module or its own uses', () => {
		const sources = new Map(
			Object.entries({
				'nodes/a.ts': 'export const own = 1;\nexport function shared() { return own; }\n',
				'nodes/b.ts':
					"import { shared } from './a';\nexport function resetForTests() {}\nshared();\n",
				'nodes/c.ts':
					"export const onlyReExported = 1;\nexport { onlyReExported as again } from './c';\n",
				'nodes/C.node.ts': 'export class C {}\n',
			}).map(([file, text]) => [path.join(ROOT, file), readSource(file, text)]),
		);
		expect(unusedExports(sources)).toEqual([
			'nodes/b.ts resetForTests',
			'nodes/c.ts onlyReExported',
		]);
	});

	it('none exists only for tests', () => {
		const files = [
			...tsFiles(path.join(ROOT, 'nodes')),
			...tsFiles(path.join(ROOT, 'credentials')),
		];
		expect(unusedExports(new Map(files.map((file) => [file, readSource(file)])))).toEqual([]);
	});
});
