/**
 * Synthetic national identity numbers (issue 25): the test helper's numbers are what the node
 * accepts as synthetic (month + 80), and no file of the repository holds a valid national ID of
 * any other kind — one that could belong to a person — except the validator's own fixtures,
 * which must test ordinary, D- and H-numbers.
 */
'use strict';
// A JavaScript test: it reads the repository's files, which the node lint (rightly) forbids in
// TypeScript sources.
const { execFileSync } = require('node:child_process');
const { readFileSync } = require('node:fs');
const { join } = require('node:path');
const { validateNationalId } = require('../../../nodes/shared/identifiers');
const {
	buildSyntheticNationalId,
	digitSum,
	isSyntheticNationalId,
	syntheticNationalId,
	syntheticNationalIdRange,
} = require('../../support/synthetic-ids');
const { NATIONAL_IDS } = require('../../simulator/helpers');

const ROOT = join(__dirname, '..', '..', '..');

/** The identifier tests check every kind the validator knows; they are the one exception. */
const VALIDATOR_FIXTURES = new Set([
	'test/nodes/shared/identifiers.test.ts',
	'test/nodes/shared/identifiers.property.test.ts',
]);

describe('test/support/synthetic-ids.js', () => {
	test('runs on past 1 January: the 1,000 numbers bench:n8n takes from index 50,000 are distinct and accepted', () => {
		const ids = syntheticNationalIdRange(50000, 1000);
		expect(ids.slice(0, 3)).toEqual([50000, 50001, 50002].map((i) => syntheticNationalId(i)));
		expect(ids[999]).toBe(syntheticNationalId(50999));
		expect(new Set(ids).size).toBe(1000);
		for (const id of ids)
			expect([isSyntheticNationalId(id), validateNationalId(id)]).toEqual([true, undefined]);
		expect(ids[0]).not.toMatch(/^0181/);
	});

	test('the first 200 numbers are distinct, synthetic, and accepted by the node as synthetic', () => {
		const ids = Array.from({ length: 200 }, (_, i) => syntheticNationalId(i));
		expect(new Set(ids).size).toBe(ids.length);
		for (const id of ids) {
			expect([id, isSyntheticNationalId(id), validateNationalId(id)]).toEqual([
				id,
				true,
				undefined,
			]);
		}
	});

	test('any date and individual number: synthetic, or no number when a check digit would be 10', () => {
		let built = 0;
		for (let month = 1; month <= 12; month++) {
			for (const day of [1, 15, 28]) {
				for (let individual = 0; individual < 500; individual += 37) {
					const id = buildSyntheticNationalId({ day, month, year: 85, individual });
					if (id === undefined) continue;
					built += 1;
					expect(validateNationalId(id)).toBeUndefined();
					expect(Number(id.slice(2, 4))).toBe(month + 80);
				}
			}
		}
		expect(built).toBeGreaterThan(300);
	});

	test('a number for each of the simulator’s seven scenarios (digit sum modulo 7)', () => {
		for (let scenario = 0; scenario < 7; scenario++) {
			const id = syntheticNationalId(0, (candidate) => digitSum(candidate) % 7 === scenario);
			expect(digitSum(id) % 7).toBe(scenario);
			expect([validateNationalId(id), isSyntheticNationalId(id)]).toEqual([undefined, true]);
		}
	});
});

describe('fixed synthetic numbers of the simulator tests', () => {
	test('each picks its scenario by digit sum and is synthetic', () => {
		const order = [
			'happy',
			'rejected',
			'user-timeout',
			'consent-timeout',
			'consent-timeout-data-failed',
			'tax-failed',
			'income-failed',
		];
		expect(Object.keys(NATIONAL_IDS).sort()).toEqual([...order].sort());
		for (const [scenario, id] of Object.entries(NATIONAL_IDS)) {
			expect([
				scenario,
				digitSum(id) % 7,
				validateNationalId(id),
				isSyntheticNationalId(id),
			]).toEqual([scenario, order.indexOf(scenario), undefined, true]);
		}
	});
});

describe('the repository', () => {
	test('holds no valid national ID that is not synthetic, outside the validator’s fixtures', () => {
		const files = execFileSync('git', ['ls-files', '-co', '--exclude-standard'], {
			cwd: ROOT,
			encoding: 'utf8',
		})
			.split('\n')
			.filter(
				(file) =>
					file !== '' &&
					!VALIDATOR_FIXTURES.has(file) &&
					!file.endsWith('package-lock.json') &&
					/\.(ts|js|mjs|json|md|yml)$/.test(file),
			);
		expect(files.length).toBeGreaterThan(50);
		const found = [];
		for (const file of files) {
			let text;
			try {
				text = readFileSync(join(ROOT, file), 'utf8');
			} catch {
				continue; // listed but deleted in the work tree
			}
			// 11 digits, also written with one space after the date (as people type them)
			for (const match of text.matchAll(/(?<!\d)(\d{6}) ?(\d{5})(?!\d)/g)) {
				const value = match[1] + match[2];
				// valid, and not synthetic (month + 80): it could belong to a person
				if (validateNationalId(value) === undefined && !isSyntheticNationalId(value))
					found.push(`${file}: ${value}`);
			}
		}
		expect(found).toEqual([]);
	});
});
