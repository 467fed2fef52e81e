/**
 * Personal data in texts the package writes itself (error messages, descriptions, error
 * responses, continue-on-fail items): Norwegian national identity numbers and the applicant's
 * name never appear there, whatever the service answered. Pure functions, no n8n imports.
 *
 * The rule for identity numbers is deliberately wider than the mod-11 check: any run of exactly
 * 11 digits, together or split after the birth date by a space, dot or hyphen, is masked digit by digit
 * (`018170 00092` → `****** *****`). An 11-digit number that fails the control digits is still
 * somebody's mistyped number, and a bank account number (also 11 digits) is no better in an
 * error text; over-masking such a number in a message costs nothing. Longer runs (order
 * numbers, timestamps) are left alone.
 */

/** What a masked digit becomes. */
export const MASK = '*';
/** What a masked name becomes. */
export const NAME_MASK = '***';

/** The separators people and services write inside an identity number. */
const SEP = '[ \\u00a0\\u202f.-]';

/**
 * `digits` digits written as an identity number is written — all together, or (11 digits) the
 * birth date, one separator, the personal number — that are not part of a longer run of digits
 * and single separators: an order number or a 13-digit timestamp is not an identity number, and
 * neither are the hyphen-separated digit groups of a UUID.
 */
function runOf(digits: number): RegExp {
	const shapes = digits === 11 ? `\\d{11}|\\d{6}${SEP}\\d{5}` : `\\d{${digits}}`;
	return new RegExp(`(?<!\\d${SEP}?)(?:${shapes})(?!${SEP}?\\d)`, 'g');
}

const ELEVEN = runOf(11);
/** An identity number that arrived as a JSON number has lost its leading zero: 10 digits. */
const TEN = runOf(10);

/**
 * Masks every run of exactly 11 digits (with or without single separators) in `text`; with
 * `unpadded`, runs of exactly 10 too (a value the user typed, which may be a number that lost
 * its leading 0).
 */
export function maskIdentityNumbers(text: string, unpadded = false): string {
	const mask = (run: string) => run.replace(/\d/g, MASK);
	const out = text.replace(ELEVEN, mask);
	return unpadded ? out.replace(TEN, mask) : out;
}

function escapeRegExp(text: string): string {
	return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Shortest part of a name that is masked on its own (shorter parts would hit ordinary words). */
const MIN_NAME_PART = 2;

/**
 * The forms of an identity number a service may echo: as sent and without its leading zeros (a
 * JSON number drops them), each digit optionally followed by one separator (`018170 00092`).
 */
function identityPatterns(value: string): RegExp[] {
	const digits = value.replace(/\D/g, '');
	if (digits.length < 6) return [];
	const forms = new Set([digits, digits.replace(/^0+/, '')]);
	return [...forms]
		.filter((form) => form.length >= 6)
		.sort((a, b) => b.length - a.length)
		.map((form) => new RegExp(`(?<!\\d)${form.split('').join(`${SEP}?`)}(?!\\d)`, 'g'));
}

/** The parts of a name masked as whole words: the name as given and each part of it. */
function nameForms(value: string): string[] {
	const whole = value.trim().replace(/\s+/g, ' ');
	const parts = whole.split(/[\s\-‐]+/).filter((part) => part.length >= MIN_NAME_PART);
	return [...new Set([whole, ...parts])]
		.filter((form) => form.length >= MIN_NAME_PART)
		.sort((a, b) => b.length - a.length);
}

/** Personal values a request carried, by kind. */
export interface PersonalValues {
	identityNumbers: string[];
	names: string[];
}

/** Field names (case-insensitive) whose values are national identity numbers. */
const IDENTITY_FIELDS = new Set(['nationalid', 'ssn', 'fodselsnummer', 'fødselsnummer', 'pid']);
/** Field names (case-insensitive) whose values are names of a person. */
const NAME_FIELDS = new Set(['lastname', 'firstname', 'middlename', 'name', 'fullname', 'surname']);

/** The identity numbers and names in a request body's top level (the create body is flat). */
export function personalValuesOf(body: unknown): PersonalValues {
	const found: PersonalValues = { identityNumbers: [], names: [] };
	if (body === null || typeof body !== 'object' || Array.isArray(body)) return found;
	for (const [key, value] of Object.entries(body as Record<string, unknown>)) {
		if (typeof value !== 'string' && typeof value !== 'number') continue;
		const name = key.toLowerCase();
		if (IDENTITY_FIELDS.has(name)) found.identityNumbers.push(String(value));
		else if (NAME_FIELDS.has(name) && typeof value === 'string') found.names.push(value);
	}
	return found;
}

/**
 * A masker for the values one request carried: its identity numbers in every form above and its
 * names as whole words (any case, any script). Other 11-digit runs are the redactor's
 * (`maskIdentityNumbers`, in every text it cleans).
 */
export function personalMasker(values: PersonalValues): (text: string) => string {
	const numbers = values.identityNumbers.flatMap(identityPatterns);
	const names = values.names
		.flatMap(nameForms)
		// letters only around it: `%20Nordmann` and `Nordmann2` are the name too
		.map((form) => new RegExp(`(?<!\\p{L})${escapeRegExp(form)}(?!\\p{L})`, 'giu'));
	return (text: string): string => {
		let out = text;
		for (const pattern of numbers) out = out.replace(pattern, (hit) => hit.replace(/\d/g, MASK));
		for (const pattern of names) out = out.replace(pattern, NAME_MASK);
		return out;
	};
}
