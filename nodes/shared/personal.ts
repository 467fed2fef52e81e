/**
 * Personal data in texts the package writes itself (error messages, descriptions, error
 * responses, continue-on-fail items): Norwegian national identity numbers and the applicant's
 * name never appear there, whatever the service answered. Pure functions, no n8n imports.
 *
 * The rule for identity numbers is deliberately wider than the mod-11 check: every number written
 * as an identity number is written — 11 digits together, 6 + 5, 3-3-3-2 or 2-2-2-5 digits with a
 * space, dot, slash or hyphen between the groups — is masked digit by digit (`018170 00092` →
 * `****** *****`). An 11-digit number that fails the control digits is still somebody's
 * mistyped number, and a bank account number (also 11 digits) is no better in an error text;
 * over-masking such a number in a message costs nothing. Longer digit groups (order numbers,
 * timestamps) and UUIDs are left alone.
 */

/** What a masked digit becomes. */
export const MASK = '*';
/** What a masked name becomes. */
export const NAME_MASK = '***';

/** A space as services write it (also the no-break spaces of formatted numbers). */
const SPACE = '[ \\u00a0\\u202f]';
/**
 * One separator inside a written number: a space, dot or slash, or a hyphen or en dash with at
 * most one space on either side (`010170 - 03689`).
 */
const SEP = `(?:${SPACE}?[-\\u2013]${SPACE}?|${SPACE}|[./])`;

/**
 * How an identity number is written: 11 digits together; the birth date and the personal number
 * (6 + 5); in groups of 3-3-3-2 or, the birth date as day, month, year, 2-2-2-5.
 */
const WRITTEN_FORMS = [
	'\\d{11}',
	`\\d{6}${SEP}\\d{5}`,
	`\\d{3}${SEP}\\d{3}${SEP}\\d{3}${SEP}\\d{2}`,
	`\\d{2}${SEP}\\d{2}${SEP}\\d{2}${SEP}\\d{5}`,
];

/** A UUID is matched first and kept whole: its digit groups are no identity number. */
const UUID = '[\\da-f]{8}-[\\da-f]{4}-[\\da-f]{4}-[\\da-f]{4}-[\\da-f]{12}';

/**
 * The written forms (and any extra ones) as whole digit groups, wherever they stand — also right
 * after other numbers (`row 3 01817000092`, `2024-05-31 01817000092`): a longer digit group
 * (a 13-digit timestamp, an order number) is never cut into one.
 */
function writtenIn(...extra: string[]): RegExp {
	return new RegExp(`(${UUID})|(?<!\\d)(?:${[...WRITTEN_FORMS, ...extra].join('|')})(?!\\d)`, 'gi');
}

const ELEVEN = writtenIn();
/** An identity number that arrived as a JSON number has lost its leading zero: 10 digits. */
const ELEVEN_OR_TEN = writtenIn('\\d{10}');

function maskDigits(text: string): string {
	return text.replace(/\d/g, MASK);
}

/**
 * Masks every identity number written in one of the forms above in `text`, digit by digit;
 * with `unpadded`, groups of exactly 10 digits too (a value the user typed, which may be a
 * number that lost its leading 0).
 */
export function maskIdentityNumbers(text: string, unpadded = false): string {
	return text.replace(unpadded ? ELEVEN_OR_TEN : ELEVEN, (hit, uuid?: string) =>
		uuid === undefined ? maskDigits(hit) : hit,
	);
}

/** Shortest part of a name that is masked on its own (shorter parts would hit ordinary words). */
const MIN_NAME_PART = 2;

/**
 * The forms of an identity number a service may echo: as sent and without its leading zeros (a
 * JSON number drops them), each digit optionally followed by one separator (`018170 00092`);
 * the longer form first (a zero written apart, `0 1817000092`, is then masked with the rest).
 */
function identityPatterns(value: string): RegExp[] {
	const digits = value.replace(/\D/g, '');
	const forms = new Set([digits, digits.replace(/^0+/, '')]);
	return [...forms]
		.filter((form) => form.length >= 6)
		.map((form) => new RegExp(`(?<!\\d)${form.split('').join(`${SEP}?`)}(?!\\d)`, 'g'));
}

/**
 * The parts of a name masked as whole words: the name as given and each part of it, longest
 * first (`O'Neil` before `Neil`; empty parts of `Berg--Li` are dropped with the short ones).
 */
function nameForms(value: string): string[] {
	const whole = value.normalize('NFC').trim().replace(/\s+/g, ' ');
	const parts = whole.split(/[\s\-\u2010]/);
	return [...new Set([whole, ...parts])]
		.filter((form) => form.length >= MIN_NAME_PART)
		.sort((a, b) => b.length - a.length);
}

/** A code point as a regular-expression escape: no character of a name needs escaping rules. */
const literal = (text: string): string =>
	[...text].map((char) => `\\u{${char.codePointAt(0)!.toString(16)}}`).join('');

/** `\u00e5` as JSON writes a character (UTF-16 units, four hex digits), as a pattern. */
const jsonEscaped = (text: string): string =>
	text
		.split('')
		.map((char) => `\\\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`)
		.join('');

/**
 * One letter of a name in every spelling a text may hold it in: composed or decomposed (NFD:
 * `A` + combining ring) and JSON-escaped in either case (`\u00c5`, `\u00e5`); the `i` flag does
 * the case of the rest.
 */
function letterPattern(char: string): string {
	const spellings = new Set([
		literal(char),
		literal(char.normalize('NFD')),
		// upper case can be longer (ß → SS), which the `i` flag does not match
		literal(char.toUpperCase()),
		jsonEscaped(char.toLowerCase()),
		jsonEscaped(char.toUpperCase()),
	]);
	return `(?:${[...spellings].join('|')})`;
}

/** A name form as a whole word: no letter or combining mark right before or after it. */
function namePattern(form: string): RegExp {
	const letters = [...form].map(letterPattern).join('');
	return new RegExp(`(?<![\\p{L}\\p{M}])${letters}(?![\\p{L}\\p{M}])`, 'giu');
}

/** Personal values a request carried, by kind. */
export interface PersonalValues {
	identityNumbers: string[];
	names: string[];
}

/** Field names (lower-cased) whose values are national identity numbers; minimise.ts uses them too. */
export const IDENTITY_FIELDS: ReadonlySet<string> = new Set(['nationalid', 'ssn', 'fodselsnummer', 'fødselsnummer', 'pid']);
/** Field names (lower-cased) whose values are names of a person. */
export const NAME_FIELDS: ReadonlySet<string> = new Set(['lastname', 'firstname', 'middlename', 'name', 'fullname', 'surname']);

/**
 * The identity numbers and names in the top level of request bodies (the create body is flat) or
 * of anything shaped like one (an input item, a node's parameters).
 */
export function personalValuesOf(...bodies: unknown[]): PersonalValues {
	const found: PersonalValues = { identityNumbers: [], names: [] };
	const records = bodies.filter(
		(body): body is Record<string, unknown> =>
			body !== null && typeof body === 'object' && !Array.isArray(body),
	);
	for (const [key, value] of records.flatMap((body) => Object.entries(body))) {
		if (typeof value !== 'string' && typeof value !== 'number') continue;
		const name = key.toLowerCase();
		if (IDENTITY_FIELDS.has(name)) found.identityNumbers.push(String(value));
		else if (NAME_FIELDS.has(name) && typeof value === 'string') found.names.push(value);
	}
	return found;
}

/**
 * A masker for the values one request carried: its identity numbers in every form above and its
 * names as whole words (any case, any script; composed, decomposed or JSON-escaped). Other
 * identity numbers are the redactor's (`maskIdentityNumbers`, in every text it cleans).
 */
export function personalMasker(values: PersonalValues): (text: string) => string {
	const numbers = values.identityNumbers.flatMap(identityPatterns);
	// letters only around it: `%20Nordmann` and `Nordmann2` are the name too
	const names = values.names.flatMap(nameForms).map(namePattern);
	return (text: string): string => {
		let out = text;
		for (const pattern of numbers) out = out.replace(pattern, maskDigits);
		for (const pattern of names) out = out.replace(pattern, NAME_MASK);
		return out;
	};
}
