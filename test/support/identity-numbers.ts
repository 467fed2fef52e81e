/**
 * Valid Norwegian identity numbers and bank account numbers, written from the published rules
 * (documented in test/nodes/shared/identifiers.property.test.ts, which checks the module against
 * them), and the written forms people and systems give them. Nothing here is imported from nodes/.
 */
import fc from 'fast-check';

const K1_REF = [3, 7, 6, 1, 8, 9, 4, 5, 2, 1];
const K2_REF = [5, 4, 3, 2, 7, 6, 5, 4, 3, 2, 1];

/** Sum of the first `count` digits of `text` weighted by `weights`. */
function weighted(text: string, weights: number[], count = weights.length): number {
	let total = 0;
	for (let i = 0; i < count; i++) total += weights[i] * Number(text[i]);
	return total;
}

/** Remainder mod 11 of the digits of `text` weighted by `weights` (as many digits as weights). */
function remainder(text: string, weights: number[]): number {
	return weighted(text, weights) % 11;
}

/** The digit d with remainder(prefix + d) === target, or undefined where that digit would be 10. */
function solveLast(prefix: string, weights: number[], target: number): string | undefined {
	const partial = weighted(prefix, weights, prefix.length);
	for (let d = 0; d <= 9; d++)
		if ((partial + weights[prefix.length] * d) % 11 === target) return String(d);
	return undefined;
}

/** Whether the calendar date exists, by the JavaScript calendar (proleptic Gregorian). */
function dateExists(year: number, month: number, day: number): boolean {
	const date = new Date(Date.UTC(year, month - 1, day));
	return (
		date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day
	);
}

const CENTURY_TABLE: Array<{
	individual: [number, number];
	year: [number, number];
	century: number;
}> = [
	{ individual: [0, 499], year: [0, 99], century: 1900 },
	{ individual: [500, 749], year: [54, 99], century: 1800 },
	{ individual: [500, 999], year: [0, 39], century: 2000 },
	{ individual: [900, 999], year: [40, 99], century: 1900 },
];

function possibleCenturies(individual: number, year: number): number[] {
	const within = (x: number, [lo, hi]: [number, number]) => x >= lo && x <= hi;
	const rows = CENTURY_TABLE.filter(
		(row) => within(individual, row.individual) && within(year, row.year),
	);
	return rows.length > 0 ? rows.map((row) => row.century) : [1800, 1900, 2000];
}

type Kind = 'birth-number' | 'd-number' | 'h-number' | 'synthetic';
type Verdict = { valid: false } | { valid: true; kind: Kind; controlRule: 'classic' | '2032' };

function referenceNationalId(value: string): Verdict {
	if (!/^[0-9]{11}$/.test(value)) return { valid: false };
	const rawDay = Number(value.slice(0, 2));
	const rawMonth = Number(value.slice(2, 4));
	const dNumber = rawDay > 40;
	const monthOffset = rawMonth > 80 ? 80 : rawMonth > 40 ? 40 : 0;
	const day = dNumber ? rawDay - 40 : rawDay;
	const month = rawMonth - monthOffset;
	const year = Number(value.slice(4, 6));
	const individual = Number(value.slice(6, 9));
	const dateOk = possibleCenturies(individual, year).some((century) =>
		dateExists(century + year, month, day),
	);
	const k1 = remainder(value, K1_REF);
	if (!dateOk || k1 > 3 || remainder(value, K2_REF) !== 0) return { valid: false };
	const kind: Kind =
		monthOffset === 80
			? 'synthetic'
			: dNumber
				? 'd-number'
				: monthOffset === 40
					? 'h-number'
					: 'birth-number';
	return { valid: true, kind, controlRule: k1 === 0 ? 'classic' : '2032' };
}

const pad = (n: number, width: number) => String(n).padStart(width, '0');

/** Individual-number ranges allowed for a birth year by the century table. */
function individualRanges(fullYear: number): Array<[number, number]> {
	if (fullYear < 1900) return [[500, 749]];
	if (fullYear < 1940) return [[0, 499]];
	if (fullYear < 2000)
		return [
			[0, 499],
			[900, 999],
		];
	return [[500, 999]];
}

/** Appends K1 (for the wanted K1 remainder) and K2; undefined where either would be 10. */
function withControlDigits(first9: string, k1Remainder: number): string | undefined {
	const k1 = solveLast(first9, K1_REF, k1Remainder);
	if (k1 === undefined) return undefined;
	const k2 = solveLast(first9 + k1, K2_REF, 0);
	return k2 === undefined ? undefined : first9 + k1 + k2;
}

const OFFSETS: Record<Kind, { day: number; month: number }> = {
	'birth-number': { day: 0, month: 0 },
	'd-number': { day: 40, month: 0 },
	'h-number': { day: 0, month: 40 },
	synthetic: { day: 0, month: 80 },
};

interface GeneratedId {
	value: string;
	kind: Kind;
	controlRule: 'classic' | '2032';
}

/** Valid national IDs of every kind, under the classic rule (K1 remainder 0) and the 2032 rule (1–3). */
const validNationalId: fc.Arbitrary<GeneratedId> = fc
	.record({
		birth: fc.date({
			min: new Date(Date.UTC(1854, 0, 1)),
			max: new Date(Date.UTC(2039, 11, 31)),
			noInvalidDate: true,
		}),
		kind: fc.constantFrom<Kind>('birth-number', 'd-number', 'h-number', 'synthetic'),
		k1Remainder: fc.integer({ min: 0, max: 3 }),
		pick: fc.nat(),
		individualFraction: fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
	})
	.map(({ birth, kind, k1Remainder, pick, individualFraction }) => {
		const fullYear = birth.getUTCFullYear();
		const ranges = individualRanges(fullYear);
		const [lo, hi] = ranges[pick % ranges.length];
		const individual = lo + Math.floor(individualFraction * (hi - lo + 1));
		const first9 =
			pad(birth.getUTCDate() + OFFSETS[kind].day, 2) +
			pad(birth.getUTCMonth() + 1 + OFFSETS[kind].month, 2) +
			pad(fullYear % 100, 2) +
			pad(individual, 3);
		const value = withControlDigits(first9, k1Remainder);
		return value === undefined
			? undefined
			: { value, kind, controlRule: k1Remainder === 0 ? ('classic' as const) : ('2032' as const) };
	})
	.filter((id): id is GeneratedId => id !== undefined);

export {
	pad,
	remainder,
	referenceNationalId,
	solveLast,
	validNationalId,
	withControlDigits,
	type GeneratedId,
	type Kind,
	type Verdict,
};

/** A valid identity number of any kind (birth, D-, H-, synthetic), classic or 2032 control rule. */
export const identityNumber: fc.Arbitrary<string> = validNationalId.map((id) => id.value);

const ACCOUNT_WEIGHTS = [5, 4, 3, 2, 7, 6, 5, 4, 3, 2];

/** A valid Norwegian account number (MOD11 over 10 digits, weights 5 4 3 2 7 6 5 4 3 2), or undefined. */
export function accountNumber(first10: string): string | undefined {
	const sum = ACCOUNT_WEIGHTS.reduce((total, weight, i) => total + weight * Number(first10[i]), 0);
	const check = (11 - (sum % 11)) % 11;
	return check === 10 ? undefined : first10 + String(check);
}

export const validAccountNumber: fc.Arbitrary<string> = fc
	.array(fc.integer({ min: 0, max: 9 }), { minLength: 10, maxLength: 10 })
	.map((digits) => accountNumber(digits.join('')))
	.filter((value): value is string => value !== undefined);

/** A Norwegian IBAN for an account number (ISO 7064 mod 97-10; N = 23, O = 24), spaced in fours or not. */
export function ibanOf(bban: string, spaced = true): string {
	let rest = 0;
	for (const digit of `${bban}232400`) rest = (rest * 10 + Number(digit)) % 97;
	const compact = `NO${String(98 - rest).padStart(2, '0')}${bban}`;
	return spaced ? compact.match(/.{1,4}/g)!.join(' ') : compact;
}

/** Group sizes identity numbers are written in (all sum to 11). */
export const GROUPINGS: number[][] = [
	[11],
	[6, 5],
	[6, 3, 2],
	[5, 6],
	[3, 3, 5],
	[2, 2, 2, 5],
	[3, 3, 3, 2],
	[7, 4],
];

export const SEPARATORS = [
	' ',
	'  ',
	'\t',
	'-',
	' - ',
	'\u2011',
	'\u2013',
	'\u2212',
	'\u200b',
	'_',
	',',
	'.',
	'/',
	'%20',
	'\u00a0',
	'\u202f',
	'\n',
];

/** Zero of Unicode digit blocks: fullwidth, Arabic-Indic, Devanagari, and the five mathematical
 * blocks, which follow each other directly (bold, double-struck, sans-serif, sans-serif bold, monospace). */
export const ZEROS = [0x30, 0xff10, 0x660, 0x966, 0x1d7ce, 0x1d7d8, 0x1d7e2, 0x1d7ec, 0x1d7f6];

export interface WrittenForm {
	grouping: number[];
	separator: string;
	zero: number;
}

export const writtenForm: fc.Arbitrary<WrittenForm> = fc.record({
	grouping: fc.constantFrom(...GROUPINGS),
	separator: fc.constantFrom(...SEPARATORS),
	zero: fc.constantFrom(...ZEROS),
});

/** An account number's grouping (`1503.12.34567`): items let it pass, error texts do not. */
export const ACCOUNT_GROUPING = [4, 2, 5];

/** Every form above and the account number's grouping (the search of error texts). */
export const anyWrittenForm: fc.Arbitrary<WrittenForm> = fc.record({
	grouping: fc.constantFrom(...GROUPINGS, ACCOUNT_GROUPING),
	separator: fc.constantFrom(...SEPARATORS),
	zero: fc.constantFrom(...ZEROS),
});

export function write(digits: string, { grouping, separator, zero }: WrittenForm): string {
	const shown = [...digits].map((d) => String.fromCodePoint(zero + Number(d))).join('');
	const chars = [...shown];
	const groups: string[] = [];
	let at = 0;
	for (const size of grouping) {
		groups.push(chars.slice(at, at + size).join(''));
		at += size;
	}
	return groups.join(separator);
}
