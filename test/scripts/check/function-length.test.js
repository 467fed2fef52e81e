// Issue 44: no function in nodes/ or credentials/ is longer than a screen (60 body lines, counted
// from the body's opening brace to its closing one with the TypeScript compiler).
const fs = require('node:fs');
const path = require('node:path');
const ts = require('typescript');
const { tsFiles } = require('../../../scripts/check/comment-density');

const ROOT = path.resolve(__dirname, '../../..');
const MAX_LINES = 60;

function isFunction(node) {
	return (
		ts.isFunctionDeclaration(node) ||
		ts.isMethodDeclaration(node) ||
		ts.isArrowFunction(node) ||
		ts.isFunctionExpression(node) ||
		ts.isConstructorDeclaration(node) ||
		ts.isGetAccessorDeclaration(node) ||
		ts.isSetAccessorDeclaration(node)
	);
}

function nameOf(node) {
	if (node.name) return node.name.getText();
	if (node.parent && node.parent.name) return node.parent.name.getText();
	return '<anonymous>';
}

/** Every function of one source with its body's length in lines: [{ name, line, lines }]. */
function functionLengths(fileName, source) {
	const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, true);
	const found = [];
	const lineOf = (position) => file.getLineAndCharacterOfPosition(position).line;
	const visit = (node) => {
		if (isFunction(node) && node.body) {
			const start = lineOf(node.body.getStart(file));
			found.push({
				name: nameOf(node),
				line: start + 1,
				lines: lineOf(node.body.getEnd()) - start + 1,
			});
		}
		ts.forEachChild(node, visit);
	};
	visit(file);
	return found;
}

describe('function length', () => {
	test('bodies are counted in lines, nested functions on their own', () => {
		const source = [
			'export function outer() {',
			'\tconst inner = () => {',
			'\t\treturn 1;',
			'\t};',
			'\treturn inner();',
			'}',
			'class A {',
			'\tmethod(): number {',
			'\t\treturn 2;',
			'\t}',
			'}',
			'const one = () => 3;',
		].join('\n');
		expect(functionLengths('a.ts', source)).toEqual([
			{ name: 'outer', line: 1, lines: 6 },
			{ name: 'inner', line: 2, lines: 3 },
			{ name: 'method', line: 8, lines: 3 },
			{ name: 'one', line: 12, lines: 1 },
		]);
	});

	test(`no function in nodes/ or credentials/ is longer than ${MAX_LINES} lines`, () => {
		const files = [
			...tsFiles(path.join(ROOT, 'nodes')),
			...tsFiles(path.join(ROOT, 'credentials')),
		];
		expect(files.length).toBeGreaterThan(50);
		const long = files.flatMap((file) => {
			const relative = path.relative(ROOT, file).split(path.sep).join('/');
			return functionLengths(relative, fs.readFileSync(file, 'utf8'))
				.filter(({ lines }) => lines > MAX_LINES)
				.map(({ name, line, lines }) => `${relative}:${line} ${name}: ${lines} lines`);
		});
		expect(long).toEqual([]);
	});
});
