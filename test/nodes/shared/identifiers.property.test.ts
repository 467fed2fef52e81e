/**
 * Property tests for the identifier validators against a second implementation written from the
 * published rules (test/support/identity-numbers.ts and below; nothing is imported from the module
 * under test but the validators):
 *
 * - National identity number (fødselsnummer), Skatteetaten: digits 1–6 the birth date DDMMYY
 *   (D-number: day + 40; H-number: month + 40; synthetic test identity from Skatteetaten's Tenor:
 *   month + 80), digits 7–9 the individual number, whose range gives the century (000–499 →
 *   1900–1999; 500–749 with year 54–99 → 1854–1899; 500–999 with year 00–39 → 2000–2039; 900–999
 *   with year 40–99 → 1940–1999). Digits 10–11 are control digits K1 and K2. K1: the sum of
 *   digits 1–10 weighted 3 7 6 1 8 9 4 5 2 1 is 0 mod 11 (classic) or, by the rule from 2032
 *   ("Nytt fødselsnummer fra 2032", https://skatteetaten.github.io/folkeregisteret-api-dokumentasjon/nytt-fodselsnummer-fra-2032/),
 *   0, 1, 2 or 3 mod 11. K2, unchanged by 2032: the sum of digits 1–11 weighted
 *   5 4 3 2 7 6 5 4 3 2 1 is 0 mod 11. (This is "11 − sum mod 11, 11 → 0, 10 → invalid" stated as a
 *   remainder; NAV's fnrvalidator implements the same four K1 values and one K2.)
 *   Module conventions the reference follows: where the table gives no century the date is
 *   accepted if it exists in any of 18YY, 19YY, 20YY.
 * - Organization number (Brønnøysundregistrene): 9 digits, the sum of all nine weighted
 *   3 2 7 6 5 4 3 2 1 is 0 mod 11.
 */
import fc from 'fast-check';
import { validateNationalId, validateOrganizationNumber } from '../../../nodes/shared/identifiers';
import {
	pad,
	remainder,
	referenceNationalId,
	solveLast,
	validNationalId,
	withControlDigits,
} from '../../support/identity-numbers';

// ---------- reference ----------

// the identity-number reference and generator are shared with the other property tests
// (test/support/identity-numbers.ts, written from the rules above); the organization number's is here.
const ORG_REF = [3, 2, 7, 6, 5, 4, 3, 2, 1];

function referenceOrganizationNumber(value: string): boolean {
	return /^[0-9]{9}$/.test(value) && remainder(value, ORG_REF) === 0;
}

/** The module's verdict: valid or not (the reference also names the kind and control rule). */
function moduleValid(value: string): boolean {
	return validateNationalId(value) === undefined;
}

// ---------- generators ----------

const digitString = (length: number) =>
	fc
		.array(fc.integer({ min: 0, max: 9 }), { minLength: length, maxLength: length })
		.map((d) => d.join(''));

/** Any nine leading digits with control digits that pass (so the date and century rules decide). */
const anyNineWithControlDigits = fc
	.tuple(digitString(9), fc.integer({ min: 0, max: 3 }))
	.map(([first9, k1Remainder]) => withControlDigits(first9, k1Remainder))
	.filter((value): value is string => value !== undefined);

/** A value from `valid` with the digit at one of `positions` (0-based) changed to another digit. */
const oneDigitChanged = (valid: fc.Arbitrary<string>, positions: fc.Arbitrary<number>) =>
	fc
		.tuple(valid, positions, fc.integer({ min: 1, max: 9 }))
		.map(
			([value, index, delta]) =>
				value.slice(0, index) + ((Number(value[index]) + delta) % 10) + value.slice(index + 1),
		);

const validNationalIdValue = validNationalId.map(({ value }) => value);

const validOrganizationNumber = digitString(8)
	.map((first8) => {
		const check = solveLast(first8, ORG_REF, 0);
		return check === undefined ? undefined : first8 + check;
	})
	.filter((value): value is string => value !== undefined);

const RUNS = { numRuns: 2000 };

// ---------- properties ----------

describe('national identity number (property tests against the reference)', () => {
	test('the generators produce what the reference calls valid (guards the reference and the generators)', () => {
		fc.assert(
			fc.property(validNationalId, ({ value, kind, controlRule }) => {
				expect(referenceNationalId(value)).toEqual({ valid: true, kind, controlRule });
			}),
			RUNS,
		);
	});

	test('every valid generated number is accepted', () => {
		fc.assert(
			fc.property(validNationalId, ({ value }) => {
				expect(validateNationalId(value)).toBeUndefined();
			}),
			RUNS,
		);
	});

	test('every change of digit 11 is rejected', () => {
		fc.assert(
			fc.property(oneDigitChanged(validNationalIdValue, fc.constant(10)), (changed) => {
				expect(validateNationalId(changed)).toMatch(/check digits/);
			}),
			RUNS,
		);
	});

	test('every single-digit change anywhere is rejected, digit 10 (K1) included', () => {
		// The 2032 rule lets several K1 values pass K1, but K2 is computed over digits 1–10 with
		// weights 5 4 3 2 7 6 5 4 3 2 and digit 11 weighs 1: every weight is prime to 11, so changing
		// any one digit by δ (0 < |δ| < 10) moves the K2 sum by weight·δ ≢ 0 (mod 11) and K2 fails.
		fc.assert(
			fc.property(oneDigitChanged(validNationalIdValue, fc.nat({ max: 10 })), (changed) => {
				expect(referenceNationalId(changed)).toEqual({ valid: false });
				expect(validateNationalId(changed)).toBeDefined();
			}),
			RUNS,
		);
	});

	test('agrees with the reference on numbers with passing control digits (date and century rules decide)', () => {
		fc.assert(
			fc.property(anyNineWithControlDigits, (value) => {
				expect(moduleValid(value)).toBe(referenceNationalId(value).valid);
			}),
			RUNS,
		);
	});

	test('agrees with the reference on arbitrary 11-digit strings and near misses of valid numbers', () => {
		const nearMiss = fc
			.tuple(
				validNationalId,
				fc.integer({ min: 0, max: 10 }),
				fc.integer({ min: 0, max: 10 }),
				digitString(2),
			)
			.map(([{ value }, i, j, two]) => {
				const chars = value.split('');
				chars[i] = two[0];
				chars[j] = two[1];
				return chars.join('');
			});
		fc.assert(
			fc.property(fc.oneof(digitString(11), nearMiss), (value) => {
				expect(moduleValid(value)).toBe(referenceNationalId(value).valid);
			}),
			RUNS,
		);
	});

	test('agrees with the reference on every combination of calendar and century boundaries', () => {
		// exhaustive rather than random: 29 February 1900 vs 2000 needs year 00 and the individual
		// number on the right side of 500 at once, which random digits almost never hit
		const days = [0, 1, 28, 29, 30, 31, 32, 40, 41, 68, 69, 70, 71, 72];
		const months = [0, 1, 2, 3, 4, 6, 9, 11, 12, 13, 40, 41, 42, 52, 53, 80, 81, 82, 92, 93];
		const years = [0, 1, 4, 38, 39, 40, 48, 49, 52, 53, 54, 56, 96, 99];
		const individuals = [0, 499, 500, 749, 750, 899, 900, 999];
		let compared = 0;
		for (const day of days)
			for (const month of months)
				for (const year of years)
					for (const individual of individuals) {
						const first9 = pad(day, 2) + pad(month, 2) + pad(year, 2) + pad(individual, 3);
						// control digits by the classic or the 2032 rule, whichever exists, taking turns
						let value: string | undefined;
						for (let k = 0; value === undefined; k++)
							value = withControlDigits(first9, (k + compared) % 4);
						const [expected, actual] = [referenceNationalId(value).valid, moduleValid(value)];
						if (actual !== expected) {
							expect([value, actual]).toEqual([value, expected]);
						}
						compared++;
					}
		expect(compared).toBe(days.length * months.length * years.length * individuals.length);
	});

	test('agrees with the reference on arbitrary strings (wrong length, non-digits)', () => {
		fc.assert(
			fc.property(
				fc.oneof(fc.string({ maxLength: 14 }), fc.stringMatching(/^[0-9 -]{9,13}$/)),
				(value) => {
					expect(moduleValid(value)).toBe(referenceNationalId(value).valid);
				},
			),
			RUNS,
		);
	});
});

describe('organization number (property tests against the reference)', () => {
	test('every valid generated number is accepted', () => {
		fc.assert(
			fc.property(validOrganizationNumber, (value) => {
				expect(referenceOrganizationNumber(value)).toBe(true);
				expect(validateOrganizationNumber(value)).toBeUndefined();
			}),
			RUNS,
		);
	});

	test('every single-digit change is rejected (weights 3 2 7 6 5 4 3 2 1 are all prime to 11)', () => {
		fc.assert(
			fc.property(oneDigitChanged(validOrganizationNumber, fc.nat({ max: 8 })), (changed) => {
				expect(referenceOrganizationNumber(changed)).toBe(false);
				expect(validateOrganizationNumber(changed)).toMatch(/check digit/);
			}),
			RUNS,
		);
	});

	test('agrees with the reference on arbitrary 9-digit strings and arbitrary strings', () => {
		fc.assert(
			fc.property(
				fc.oneof(digitString(9), validOrganizationNumber, fc.string({ maxLength: 11 })),
				(value) => {
					expect(validateOrganizationNumber(value) === undefined).toBe(
						referenceOrganizationNumber(value),
					);
				},
			),
			RUNS,
		);
	});
});
