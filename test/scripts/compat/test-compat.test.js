// The compatibility table's rendering (issue 33): one meaning per mark, the 2.41.3 column labelled
// as what it is, the minimum version stated first. Rendered from made-up results; nothing is run.
'use strict';
const C = require('../../../scripts/compat/test-compat');

const feature = (key) => C.FEATURES.find((f) => f.key === key);
const test_ = (file, title, status = 'passed') => ({ file, title, status });
const HOOKS_NEW = { resolvers: true, forwardAllOutputs: true };
const HOOKS_OLD = { resolvers: false, forwardAllOutputs: false };

function entry(version, tests, hooks) {
	return {
		version,
		install: { ok: true, installed: version },
		hooks,
		run: { tests, suiteErrors: [] },
	};
}

const LIMIT =
	'Limit Wait Time: n8n 2.39 or newer resumes on Wait Timed Out …; older n8n refuses it before creating a flow';
const RETRY = '429 with Retry-After: 1 once, then success';

describe('compatibility cells', () => {
	test('Limit Wait Time: refused (with its message) below 2.39 when the refusal test passes; works from 2.39', () => {
		const f = feature('limitWait');
		expect(
			C.featureCell(entry('2.20.12', [test_('create-and-wait.test.js', LIMIT)], HOOKS_OLD), f),
		).toBe('🚫 refused before a flow is created (needs 2.39)');
		expect(
			C.featureCell(entry('1.123.81', [test_('create-and-wait.test.js', LIMIT)], HOOKS_OLD), f),
		).toMatch(/^🚫 /);
		expect(
			C.featureCell(entry('2.41.1', [test_('create-and-wait.test.js', LIMIT)], HOOKS_NEW), f),
		).toBe('✅ 1/1');
		expect(f.name).toContain('2.39 or newer');
	});

	test('a failing test is ❌ whatever the version expects', () => {
		const f = feature('limitWait');
		expect(
			C.featureCell(
				entry('2.20.12', [test_('create-and-wait.test.js', LIMIT, 'failed')], HOOKS_OLD),
				f,
			),
		).toBe('❌ 0/1');
		expect(
			C.featureCell(
				entry('2.41.1', [test_('create-and-wait.test.js', LIMIT, 'failed')], HOOKS_NEW),
				f,
			),
		).toBe('❌ 0/1');
	});

	test('Real Estate Estimate: only the Retry-After test failing on n8n up to 2.20 is a degradation; another failure is ❌', () => {
		const f = feature('estimate');
		const tests = (retry, other = 'passed') => [
			test_('estimate.test.js', RETRY, retry),
			test_('estimate.test.js', 'Get: an estimate', other),
		];
		expect(C.featureCell(entry('2.1.4', tests('failed'), HOOKS_OLD), f)).toBe(
			'⚠️ Retry-After not seen, own backoff',
		);
		expect(C.featureCell(entry('1.123.81', tests('passed'), HOOKS_OLD), f)).toMatch(/^⚠️ /);
		expect(C.featureCell(entry('2.1.4', tests('failed', 'failed'), HOOKS_OLD), f)).toBe('❌ 0/2');
		expect(C.featureCell(entry('2.41.1', tests('failed'), HOOKS_NEW), f)).toBe('❌ 1/2');
		expect(C.featureCell(entry('2.41.1', tests('passed'), HOOKS_NEW), f)).toBe('✅ 2/2');
	});

	test('Immediately degrades where n8n lacks the resolvers the trigger learns the answer time from', () => {
		const f = feature('immediately');
		const t = [test_('respond-modes.compat.js', 'Immediately: ack JSON')];
		expect(C.featureCell(entry('2.20.12', t, HOOKS_OLD), f)).toBe(
			'⚠️ 200 when the run starts, not when stored',
		);
		expect(C.featureCell(entry('2.41.1', t, HOOKS_NEW), f)).toBe('✅ 1/1');
	});

	test('each mark has one meaning, and every cell starts with one of them (or says it was not run)', () => {
		expect(C.MARKS.map(([m]) => m)).toEqual(['✅', '⚠️', '🚫', '❌']);
		expect(new Set(C.MARKS.map(([, meaning]) => meaning.split(':')[0])).size).toBe(4);
	});
});

describe('the table around the cells', () => {
	const results = {
		versions: {
			'1.123.81': entry('1.123.81', [test_('smoke.test.js', 'loads')], HOOKS_OLD),
			'2.41.1': entry('2.41.1', [test_('smoke.test.js', 'loads')], HOOKS_NEW),
			'2.41.3': entry('2.41.3', [test_('smoke.test.js', 'loads')], HOOKS_NEW),
		},
	};
	const vs = ['1.123.81', '2.41.1', '2.41.3'];

	test("the 2.41.3 column says it is the 2.41.3 CLI on 2.41.1's internals", () => {
		expect(C.columnLabel('2.41.3')).toBe("n8n 2.41.3 (CLI 2.41.3 on 2.41.1's internals)");
		expect(C.columnLabel('2.41.1')).toBe('n8n 2.41.1');
		expect(C.featureTable(results, vs)[0]).toContain(
			"n8n 2.41.3 (CLI 2.41.3 on 2.41.1's internals)",
		);
	});

	test('the minimum version comes first: the oldest version on which the package loads', () => {
		const intro = C.tableIntro(results, vs);
		expect(intro[0]).toMatch(/^\*\*Minimum n8n version: 1\.123\.81\*\*/);
		const failing = {
			versions: {
				...results.versions,
				'1.123.81': entry('1.123.81', [test_('smoke.test.js', 'loads', 'failed')], HOOKS_OLD),
			},
		};
		expect(C.tableIntro(failing, vs)[0]).toMatch(/^\*\*Minimum n8n version: 2\.41\.1\*\*/);
		for (const [mark, meaning] of C.MARKS) expect(intro.join('\n')).toContain(`${mark} ${meaning}`);
	});
});

test('a new rendering keeps the hand-written part: "What degrades, and why" to the end', () => {
	const { handWritten } = require('../../../scripts/compat/render');
	const doc = '# C\n\n| table |\n\n## What degrades, and why\n\nBy hand.\n\n### More\n';
	expect(handWritten(doc)).toBe('## What degrades, and why\n\nBy hand.\n\n### More');
	expect(handWritten('# C\n\n## Failures\n\nNone.\n')).toBe('');
});
