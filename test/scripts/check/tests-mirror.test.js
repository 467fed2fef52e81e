// Issue 44: tests mirror the source. Every module nodes/shared/**/<m>.ts has a test beside its mirror
// path, test/nodes/shared/**/<m>.test.* or <m>.<kind>.test.* (kind: property, integration, node…).
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '../../..');

function files(dir) {
	if (!fs.existsSync(dir)) return [];
	return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
		const full = path.join(dir, entry.name);
		return entry.isDirectory() ? files(full) : [full];
	});
}

function escape(text) {
	return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Modules (paths like `nodes/shared/x/m.ts`) without a test among `tests` (paths under test/). */
function untested(modules, tests) {
	const present = new Set(tests);
	return modules.filter((module) => {
		const dir = path.posix.dirname(`test/${module}`);
		const name = escape(path.posix.basename(module, '.ts'));
		const mirror = new RegExp(`^${name}(\\.[a-z-]+)?\\.test\\.(ts|js)$`);
		return ![...present].some(
			(test) => path.posix.dirname(test) === dir && mirror.test(path.posix.basename(test)),
		);
	});
}

const posix = (file) => path.relative(ROOT, file).split(path.sep).join('/');

describe('tests mirror the source', () => {
	test('the matcher finds a test only beside the mirror path and under the same name', () => {
		const modules = [
			'nodes/shared/a.ts',
			'nodes/shared/b.ts',
			'nodes/shared/c.ts',
			'nodes/shared/d.ts',
			'nodes/shared/sub/e.ts',
			'nodes/shared/sub/f.ts',
			'nodes/shared/g.ts',
		];
		const tests = [
			'test/nodes/shared/a.test.ts',
			'test/nodes/shared/b.property.test.ts',
			'test/nodes/shared/c-rules.test.ts', // another name: not c's test
			'test/nodes/shared/sub/d.test.ts', // another folder: not d's test
			'test/nodes/shared/sub/e.node.test.js',
			'test/nodes/shared/sub/f.ts', // not a test
			'test/nodes/shared/gx.test.ts',
		];
		expect(untested(modules, tests)).toEqual([
			'nodes/shared/c.ts',
			'nodes/shared/d.ts',
			'nodes/shared/sub/f.ts',
			'nodes/shared/g.ts',
		]);
	});

	test('every module under nodes/shared/ has a test beside its mirror path', () => {
		const modules = files(path.join(ROOT, 'nodes/shared'))
			.filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts'))
			.map(posix);
		expect(modules.length).toBeGreaterThan(20);
		const tests = files(path.join(ROOT, 'test/nodes/shared')).map(posix);
		expect(untested(modules, tests)).toEqual([]);
	});
});
