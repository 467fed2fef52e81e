// Identity numbers found by value, in any written form: docs/architecture.md#identity-search
import { checkNationalId } from './identifiers';

export interface Found {
	/** Where the number starts and ends in the text (UTF-16 offsets, end exclusive). */
	start: number;
	end: number;
	digits: string;
}

const LENGTH = 11;
/** Separator characters between two digit groups, at most MAX_SEPARATORS of them. */
const SEPARATOR =
	/[\s\u00ad\u180e\u200b-\u200d\u2060\ufeff\-\u2010-\u2015\u2212\ufe58\ufe63\uff0d._,/\uff0c\uff0e\uff0f\uff3f]/u;
const ENCODED_SPACE = '%20';
const MAX_SEPARATORS = 4;
const DIGIT = /\p{Nd}/u;
const NOT_A_DIGIT = -1;
const ZERO = 48;

// Unicode decimal digits come in blocks of ten, 0 to 9, some directly after each other (the
// mathematical digits: five blocks in a row): a digit's value is its distance from the first
// digit of its run, mod 10. Below U+0660 the only decimal digits are 0-9.
function digitValue(code: number): number {
	if (code < 0x660) return code >= ZERO && code <= ZERO + 9 ? code - ZERO : NOT_A_DIGIT;
	if (!DIGIT.test(String.fromCodePoint(code))) return NOT_A_DIGIT;
	let zero = code;
	while (DIGIT.test(String.fromCodePoint(zero - 1))) zero--;
	return (code - zero) % 10;
}

interface Digit {
	value: number;
	start: number;
	end: number;
	/** First digit of its group (a separator or the start of the run before it). */
	opens: boolean;
	closes: boolean;
}

/** The end of the separators at `at` (at most MAX_SEPARATORS of them), or `at` when there are none. */
function separatorsEnd(text: string, at: number): number {
	let end = at;
	for (let count = 0; count < MAX_SEPARATORS; count++) {
		if (text.startsWith(ENCODED_SPACE, end)) end += ENCODED_SPACE.length;
		else if (SEPARATOR.test(text.charAt(end))) end++;
		else break;
	}
	return end;
}

/** Runs of digits joined by separators, each digit with its place and group bounds. */
function digitRuns(text: string): Digit[][] {
	const runs: Digit[][] = [];
	let run: Digit[] = [];
	let at = 0;
	let opens = true;
	while (at < text.length) {
		const code = text.codePointAt(at)!;
		const width = String.fromCodePoint(code).length;
		const value = digitValue(code);
		if (value !== NOT_A_DIGIT) {
			if (!opens) run[run.length - 1].closes = false;
			run.push({ value, start: at, end: at + width, opens, closes: true });
			opens = false;
			at += width;
			continue;
		}
		// separators then a digit: the run goes on with a new group
		const end = separatorsEnd(text, at);
		const next = text.codePointAt(end);
		if (next !== undefined && digitValue(next) !== NOT_A_DIGIT) {
			opens = true;
			at = end;
			continue;
		}
		runs.push(run);
		run = [];
		opens = true;
		at += width;
	}
	runs.push(run);
	return runs;
}

export const UUID_SHAPE = '[\\da-f]{8}-[\\da-f]{4}-[\\da-f]{4}-[\\da-f]{4}-[\\da-f]{12}';

// A UUID, or a hex word of 32+ (a hash, a key): issued by a system, not written; not searched.
const MACHINE_ID = new RegExp(`(?<![\\da-z])(?:${UUID_SHAPE}|[\\da-f]{32,})(?![\\da-z])`, 'gi');

function machineIds(text: string): Array<[number, number]> {
	return [...text.matchAll(MACHINE_ID)].map((match) => [
		match.index,
		match.index + match[0].length,
	]);
}

/** Every valid identity number (birth, D-, H-, synthetic; classic or 2032 control) written as whole groups. */
export function findIdentityNumbers(text: string): Found[] {
	// most texts have no digit at all: nothing to walk
	if (!DIGIT.test(text)) return [];
	// read only once a number is found: most texts with digits hold none
	let skipped: Array<[number, number]> | undefined;
	const inMachineId = (start: number, end: number) =>
		(skipped ??= machineIds(text)).some(([from, to]) => start < to && end > from);
	const found: Found[] = [];
	for (const run of digitRuns(text)) {
		for (let first = 0; first + LENGTH <= run.length; first++) {
			const last = run[first + LENGTH - 1];
			if (!run[first].opens || !last.closes) continue;
			const digits = run
				.slice(first, first + LENGTH)
				.map((digit) => digit.value)
				.join('');
			if (checkNationalId(digits).error !== undefined) continue;
			if (inMachineId(run[first].start, last.end)) continue;
			found.push({ start: run[first].start, end: last.end, digits });
			first += LENGTH - 1;
		}
	}
	return found;
}

export function replaceIdentityNumbers(
	text: string,
	replace: (found: Found, written: string) => string,
): string {
	let out = '';
	let from = 0;
	for (const hit of findIdentityNumbers(text)) {
		out += text.slice(from, hit.start) + replace(hit, text.slice(hit.start, hit.end));
		from = hit.end;
	}
	return out + text.slice(from);
}

const SHOWN = 2;
const MASK = '*';

/** Under Mask: `*********NN`, the two check digits only (the form the README shows). */
export const maskedForm = (found: Found): string =>
	MASK.repeat(LENGTH - SHOWN) + found.digits.slice(LENGTH - SHOWN);

/** Under Leave Out and in error texts: every digit a `*`, the separators as written (`****** *****`). */
export const leftOutForm = (_found: Found, written: string): string =>
	written.replace(/\p{Nd}/gu, MASK);

/** A JSON number that is an identity number without its leading zero (or with it, as 11 digits). */
// Anything but 10 or 11 digits fails the check: a day 00, a sign, a point, an exponent.
export function identityNumberOfNumber(value: unknown): string | undefined {
	const digits = String(value).padStart(LENGTH, '0');
	return checkNationalId(digits).error === undefined ? digits : undefined;
}
