// Identity numbers found by value, in any written form: docs/architecture.md#identity-search
import { validateNationalId } from './identifiers';

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
const values = new Map<number, number>();

function digitValue(code: number): number {
	if (code < 0x660) return code >= ZERO && code <= ZERO + 9 ? code - ZERO : NOT_A_DIGIT;
	let value = values.get(code);
	if (value === undefined) {
		let zero = code;
		while (DIGIT.test(String.fromCodePoint(zero - 1))) zero--;
		value = DIGIT.test(String.fromCodePoint(code)) ? (code - zero) % 10 : NOT_A_DIGIT;
		values.set(code, value);
	}
	return value;
}

/** The digits of one run (digits joined by separators), in typed arrays reused from run to run. */
interface Run {
	length: number;
	values: Uint8Array;
	starts: Int32Array;
	ends: Int32Array;
	/** 1 for the first digit of its group (a separator or the start of the run before it). */
	opens: Uint8Array;
	closes: Uint8Array;
}

function runOf(capacity: number): Run {
	return {
		length: 0,
		values: new Uint8Array(capacity),
		starts: new Int32Array(capacity),
		ends: new Int32Array(capacity),
		opens: new Uint8Array(capacity),
		closes: new Uint8Array(capacity),
	};
}

/** The same run with room for twice as many digits. */
function grown(run: Run): Run {
	const next = runOf(run.values.length * 2);
	next.values.set(run.values);
	next.starts.set(run.starts);
	next.ends.set(run.ends);
	next.opens.set(run.opens);
	next.closes.set(run.closes);
	next.length = run.length;
	return next;
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

/** Visits each run of digits joined by separators that is long enough to hold a number. */
function forEachRun(text: string, visit: (run: Run) => void): void {
	let run = runOf(64);
	let at = 0;
	let opens = true;
	const close = () => {
		if (run.length >= LENGTH) visit(run);
		run.length = 0;
		opens = true;
	};
	while (at < text.length) {
		const code = text.codePointAt(at)!;
		const width = code > 0xffff ? 2 : 1;
		const value = digitValue(code);
		if (value !== NOT_A_DIGIT) {
			if (run.length === run.values.length) run = grown(run);
			const i = run.length++;
			if (!opens) run.closes[i - 1] = 0;
			run.values[i] = value;
			run.starts[i] = at;
			run.ends[i] = at + width;
			run.opens[i] = opens ? 1 : 0;
			run.closes[i] = 1;
			opens = false;
			at += width;
			continue;
		}
		// after a digit, separators then a digit: the run goes on with a new group
		if (run.length > 0) {
			const end = separatorsEnd(text, at);
			const next = text.codePointAt(end);
			if (next !== undefined && digitValue(next) !== NOT_A_DIGIT) {
				opens = true;
				at = end;
				continue;
			}
			close();
		}
		at += width;
	}
	close();
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

// A Norwegian IBAN (ISO 13616: NO, check digits, the 11-digit account), compact or 4-4-4-3. Any
// country's form would let letters glued to an identity number pass 1 time in 97 (fast-check).
const IBAN = /(?<![\p{L}\p{Nd}])NO\d{2}(?:\d{11}|(?: \d{4}){2} \d{3})(?![\p{L}\p{Nd}])/giu;
const IBAN_MODULUS = 97;

/** The IBAN check: the first four characters moved to the end, letters as 10–35, mod 97 is 1. */
function ibanChecks(written: string): boolean {
	const compact = written.replace(/ /g, '').toUpperCase();
	const moved = compact.slice(4) + compact.slice(0, 4);
	const digits = moved.replace(/[A-Z]/g, (letter) => String(letter.charCodeAt(0) - 55));
	let rest = 0;
	for (const digit of digits) rest = (rest * 10 + Number(digit)) % IBAN_MODULUS;
	return rest === 1;
}

const WHOLE_IBAN = new RegExp(`^(?:${IBAN.source})$`, 'iu');

/** Whether a whole text (spaces around it aside) is a valid IBAN. */
export const isIban = (text: string): boolean =>
	WHOLE_IBAN.test(text.trim()) && ibanChecks(text.trim());

function ibans(text: string): Array<[number, number]> {
	return [...text.matchAll(IBAN)]
		.filter((match) => ibanChecks(match[0]))
		.map((match) => [match.index, match.index + match[0].length]);
}

/** Whether a span overlaps one of the spans `find` gives; spans come in order, so one walk: linear. */
function overlapTest(
	text: string,
	find: (text: string) => Array<[number, number]>,
): (start: number, end: number) => boolean {
	let spans: Array<[number, number]> | undefined;
	let next = 0;
	return (start, end) => {
		spans ??= find(text);
		while (next < spans.length && spans[next][1] <= start) next++;
		return next < spans.length && spans[next][0] < end;
	};
}

// The account number's own grouping, 4-2-5 (`1503.12.34567`): the two group starts inside it.
const ACCOUNT_GROUPS = [4, 6];

function inAccountGroups(run: Run, first: number): boolean {
	for (let i = 1; i < LENGTH; i++)
		if ((run.opens[first + i] === 1) !== ACCOUNT_GROUPS.includes(i)) return false;
	return true;
}

export interface SearchRule {
	/** Items (the default): a number written 4-2-5 or inside a valid IBAN is an account number. */
	accountForms: 'pass' | 'search';
}

/** Every valid identity number (birth, D-, H-, synthetic; classic or 2032 control) written as whole groups. */
export function findIdentityNumbers(
	text: string,
	rule: SearchRule = { accountForms: 'pass' },
): Found[] {
	// most texts have no digit at all: nothing to walk
	if (!DIGIT.test(text)) return [];
	// read only once a number is found: most texts with digits hold none
	const inMachineId = overlapTest(text, machineIds);
	const inIban = overlapTest(text, ibans);
	const accounts = rule.accountForms === 'pass';
	const found: Found[] = [];
	forEachRun(text, (run) => {
		for (let first = 0; first + LENGTH <= run.length; first++) {
			const last = first + LENGTH - 1;
			if (run.opens[first] === 0 || run.closes[last] === 0) continue;
			if (accounts && inAccountGroups(run, first)) continue;
			let digits = '';
			for (let i = first; i <= last; i++) digits += run.values[i];
			if (validateNationalId(digits) !== undefined) continue;
			if (inMachineId(run.starts[first], run.ends[last])) continue;
			if (accounts && inIban(run.starts[first], run.ends[last])) continue;
			found.push({ start: run.starts[first], end: run.ends[last], digits });
			first = last;
		}
	});
	return found;
}

export function replaceIdentityNumbers(
	text: string,
	replace: (found: Found, written: string) => string,
	rule?: SearchRule,
): string {
	let out = '';
	let from = 0;
	for (const hit of findIdentityNumbers(text, rule)) {
		out += text.slice(from, hit.start) + replace(hit, text.slice(hit.start, hit.end));
		from = hit.end;
	}
	return out + text.slice(from);
}

const SHOWN = 2;
export const MASK = '*';

/** Under Mask: `*********NN`, the two check digits only (the form the README shows). */
export const maskedForm = (found: Found): string =>
	MASK.repeat(LENGTH - SHOWN) + found.digits.slice(LENGTH - SHOWN);

/** Under Leave Out and in error texts: every digit a `*`, the separators as written (`****** *****`). */
export const leftOutForm = (_found: Found, written: string): string =>
	written.replace(/\p{Nd}/gu, MASK);

// An 11-digit JSON number only: ten digits (a lost leading zero) are far more often epoch seconds
// or int32 ids (`1830000085` reads 01.83.00); a sign, a point or an exponent fail the check.
export function identityNumberOfNumber(value: unknown): string | undefined {
	const digits = String(value);
	return validateNationalId(digits) === undefined ? digits : undefined;
}
