// Issue 44: no production export exists only for tests. An export of nodes/ or credentials/ that no
// production code uses (not another module, not its own) is there for tests; tests import what the
// code itself uses, or keep their own copy.
const fs = require('node:fs');
const path = require('node:path');
const ts = require('typescript');
const { tsFiles } = require('../../../scripts/check/comment-density');

const ROOT = path.resolve(__dirname, '../../..');

// Module state a test clears to stand in for a new process; n8n itself only ever starts one.
const PROCESS_RESETS = ['resetProcessMemory', 'resetInFlight', 'resetCredentialCache'];

/** Exported declaration names of a source, and every identifier it uses (declaration names left out). */
function readSource(fileName) {
	const file = ts.createSourceFile(
		fileName,
		fs.readFileSync(fileName, 'utf8'),
		ts.ScriptTarget.Latest,
		true,
	);
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
		if (ts.isIdentifier(node) && !declared.has(node)) used.add(node.text);
		ts.forEachChild(node, visit);
	};
	visit(file);
	return { exported, used };
}

function testOnlyExports() {
	const files = [...tsFiles(path.join(ROOT, 'nodes')), ...tsFiles(path.join(ROOT, 'credentials'))];
	const sources = new Map(files.map((file) => [file, readSource(file)]));
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
	const found = testOnlyExports();

	it('none exists only for tests (the process resets aside)', () => {
		expect(found.filter((entry) => !PROCESS_RESETS.includes(entry.split(' ')[1]))).toEqual([]);
	});

	it('the process resets are still the only exceptions, each still exported', () => {
		expect(found.map((entry) => entry.split(' ')[1]).sort()).toEqual([...PROCESS_RESETS].sort());
	});
});
