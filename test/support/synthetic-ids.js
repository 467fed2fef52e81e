'use strict';

// Synthetic national identity numbers for tests, examples and docs (issue 25): the month plus 80,
// the form of Skatteetaten's synthetic test identities (Tenor). No person is ever given such a
// number, so a fixture, a log line or a screenshot holding one exposes nobody; the node's
// validation accepts them (kind 'synthetic', nodes/shared/identifiers.ts).
//
// The check digits are computed here from the published mod-11 rule, not taken from the module
// under test: K1 weights 3 7 6 1 8 9 4 5 2 over digits 1-9, K2 weights 5 4 3 2 7 6 5 4 3 2 over
// digits 1-10, each 11 - (sum mod 11), 11 -> 0; a prefix whose digit would be 10 has no number.

const K1 = [3, 7, 6, 1, 8, 9, 4, 5, 2];
const K2 = [5, 4, 3, 2, 7, 6, 5, 4, 3, 2];

function checkDigit(digits, weights) {
	const sum = weights.reduce((total, weight, index) => total + weight * digits[index], 0);
	const check = 11 - (sum % 11);
	if (check === 11) return 0;
	return check === 10 ? undefined : check;
}

const two = (n) => String(n).padStart(2, '0');

/**
 * The synthetic number of a birth date and individual number, or undefined where a check digit
 * would be 10. `month` is the real month (1-12): 80 is added here.
 */
function buildSyntheticNationalId({ day = 1, month = 1, year = 70, individual = 0 } = {}) {
	const prefix = `${two(day)}${two(month + 80)}${two(year % 100)}${String(individual).padStart(3, '0')}`;
	const digits = prefix.split('').map(Number);
	const k1 = checkDigit(digits, K1);
	if (k1 === undefined) return undefined;
	const k2 = checkDigit([...digits, k1], K2);
	if (k2 === undefined) return undefined;
	return `${prefix}${k1}${k2}`;
}

/**
 * The synthetic numbers that satisfy `accept`, in order: individual numbers up from 000 on
 * 1 January 1970, those without check digits skipped, then on to the next day (up to 28 December
 * 1970).
 */
function* syntheticNationalIds(accept = () => true) {
	for (let date = 0; date < 12 * 28; date++) {
		const day = (date % 28) + 1;
		const month = Math.floor(date / 28) + 1;
		for (let individual = 0; individual < 1000; individual++) {
			const id = buildSyntheticNationalId({ day, month, individual });
			if (id !== undefined && accept(id)) yield id;
		}
	}
}

/** The `index`-th of syntheticNationalIds(accept). Same index, same number: usable as a fixed fixture. */
function syntheticNationalId(index = 0, accept = () => true) {
	let found = -1;
	for (const id of syntheticNationalIds(accept)) {
		found += 1;
		if (found === index) return id;
	}
	throw new Error(`no synthetic national ID number ${index} in 1970 fits`);
}

/** `count` numbers from the `from`-th on, in one walk (syntheticNationalId(i) walks from the start). */
function syntheticNationalIdRange(from, count) {
	const ids = [];
	let index = -1;
	for (const id of syntheticNationalIds()) {
		index += 1;
		if (index < from) continue;
		ids.push(id);
		if (ids.length === count) return ids;
	}
	throw new Error(`no ${count} synthetic national ID numbers from ${from} in 1970`);
}

/** Whether a value is an 11-digit number in the synthetic range (month digits 81-92). */
function isSyntheticNationalId(value) {
	if (typeof value !== 'string' || !/^\d{11}$/.test(value)) return false;
	const month = Number(value.slice(2, 4));
	return month >= 81 && month <= 92;
}

/** Sum of the digits: the simulator picks its scenario by this modulo 7 (test/simulator/README.md). */
function digitSum(value) {
	return value.split('').reduce((sum, digit) => sum + Number(digit), 0);
}

/**
 * The same number with its last check digit wrong under both rules the node accepts: +4 (mod 10)
 * moves the second remainder to 4 or 5, outside the classic rule (0) and the 2032 rule (0–3).
 */
function withWrongCheckDigit(id) {
	return `${id.slice(0, 10)}${(Number(id[10]) + 4) % 10}`;
}

module.exports = {
	buildSyntheticNationalId,
	digitSum,
	isSyntheticNationalId,
	syntheticNationalId,
	syntheticNationalIdRange,
	syntheticNationalIds,
	withWrongCheckDigit,
};
