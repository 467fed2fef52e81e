'use strict';
// Synthetic Norwegian identity numbers for tests and docs: the month is +80 (the convention of
// the national test data register), so no real person can have one, and the two mod-11 check
// digits are valid, so the node's full check accepts them. Never use ordinary birth numbers.

const K1 = [3, 7, 6, 1, 8, 9, 4, 5, 2];
const K2 = [5, 4, 3, 2, 7, 6, 5, 4, 3, 2];

/** mod-11 check digit of `digits` with `weights`; undefined when the remainder rules it out (10). */
function checkDigit(digits, weights) {
	const rest = 11 - (weights.reduce((sum, w, i) => sum + w * digits[i], 0) % 11);
	if (rest === 11) return 0;
	if (rest === 10) return undefined;
	return rest;
}

/** The nine first digits (DDMMYY + individual number) completed with both check digits, or undefined. */
function withCheckDigits(nine) {
	if (!/^\d{9}$/.test(nine)) throw new Error('withCheckDigits needs 9 digits');
	const digits = nine.split('').map(Number);
	const k1 = checkDigit(digits, K1);
	if (k1 === undefined) return undefined;
	const k2 = checkDigit([...digits, k1], K2);
	if (k2 === undefined) return undefined;
	return `${nine}${k1}${k2}`;
}

/**
 * The n-th synthetic identity number (n ≥ 0), deterministic and distinct for n < 100 000: born
 * 1970–1999 (individual numbers 000–499), month + 80; individual numbers whose check digits would
 * be 10 are skipped.
 */
function syntheticNationalId(n) {
	for (let attempt = 0; ; attempt++) {
		const k = n * 7 + attempt;
		const day = 1 + (k % 28);
		const month = 81 + (Math.floor(k / 28) % 12);
		const year = 70 + (Math.floor(k / 336) % 30);
		const individual = Math.floor(k / 10080) % 500;
		const nine = `${String(day).padStart(2, '0')}${month}${String(year).padStart(2, '0')}${String(individual).padStart(3, '0')}`;
		const id = withCheckDigits(nine);
		if (id !== undefined) return id;
	}
}

/**
 * The same number with its last check digit wrong under both rules the node accepts: +4 (mod 10)
 * moves the second remainder to 4 or 5, outside the classic rule (0) and the 2032 rule (0–3).
 */
function withWrongCheckDigit(id) {
	return `${id.slice(0, 10)}${(Number(id[10]) + 4) % 10}`;
}

module.exports = { checkDigit, withCheckDigits, syntheticNationalId, withWrongCheckDigit };
