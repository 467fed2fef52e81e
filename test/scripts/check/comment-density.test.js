// Issue 32: comments keep the why in a line or two; explanations live in docs/architecture.md.
// The counter is checked on hand-made sources first, so the guard cannot pass by counting nothing.
const path = require('node:path');
const { density, measure } = require('../../../scripts/check/comment-density');

describe('scripts/check/comment-density.js', () => {
	test.each([
		['// why\nconst a = 1;\n', { comment: 1, code: 1 }],
		['/**\n * two\n * lines\n */\nexport function f() {}\n', { comment: 4, code: 1 }],
		[
			'/** one line */\nconst b = 2; // trailing comments are code lines\n\n\n',
			{ comment: 1, code: 1 },
		],
		['/* a */ const c = 3;\n', { comment: 0, code: 1 }],
		['/*\n block */ const d = 4;\n', { comment: 1, code: 1 }],
		['const url = "http://x"; /* not a comment line */\n', { comment: 0, code: 1 }],
	])('%j → %j', (source, expected) => {
		expect(density(source)).toEqual(expected);
	});

	test('nodes/ has at most 10 % comment lines per code line', () => {
		const { code, ratio, files } = measure();
		expect(files.length).toBeGreaterThan(30);
		expect(code).toBeGreaterThan(5000);
		expect(ratio).toBeLessThanOrEqual(0.1);
	});

	// Issue 44: no file of nodes/ or credentials/ is mostly explanation; what a module does goes to docs/.
	test('every file of nodes/ and credentials/ has at most 15 % comment lines per code line', () => {
		const root = path.resolve(__dirname, '../../..');
		const files = ['nodes', 'credentials'].flatMap((dir) => measure(path.join(root, dir)).files);
		expect(files.length).toBeGreaterThan(50);
		const dense = files
			.filter((f) => f.comment > 0.15 * f.code)
			.map((f) => `${f.file}: ${f.comment} / ${f.code}`);
		expect(dense).toEqual([]);
	});
});
