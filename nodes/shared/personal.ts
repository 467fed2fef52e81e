// Any identity-number-shaped digit group is masked, valid or not: docs/architecture.md#personal
import { MASK, UUID_SHAPE } from './identity-search';
import { isObject } from './json';

const NAME_MASK = '***';

const SPACE = '[ \\u00a0\\u202f]';
const SEP = `(?:${SPACE}?[-\\u2013]${SPACE}?|${SPACE}|[./])`;

const WRITTEN_FORMS = [
	'\\d{11}',
	`\\d{6}${SEP}\\d{5}`,
	`\\d{3}${SEP}\\d{3}${SEP}\\d{3}${SEP}\\d{2}`,
	`\\d{2}${SEP}\\d{2}${SEP}\\d{2}${SEP}\\d{5}`,
];

// Whole digit groups only: a longer group (a timestamp, an order number) is never cut into one. A
// UUID is matched first and kept whole: its digit groups are no identity number.
function writtenIn(...extra: string[]): RegExp {
	return new RegExp(
		`(${UUID_SHAPE})|(?<!\\d)(?:${[...WRITTEN_FORMS, ...extra].join('|')})(?!\\d)`,
		'gi',
	);
}

const ELEVEN = writtenIn();
// An identity number sent as a JSON number lost its leading zero: 10 digits.
const ELEVEN_OR_TEN = writtenIn('\\d{10}');

function maskDigits(text: string): string {
	return text.replace(/\d/g, MASK);
}

export function maskIdentityNumbers(text: string, unpadded = false): string {
	return text.replace(unpadded ? ELEVEN_OR_TEN : ELEVEN, (hit, uuid?: string) =>
		uuid === undefined ? maskDigits(hit) : hit,
	);
}

// Shorter name parts would hit ordinary words.
const MIN_NAME_PART = 2;

// Longest form first, so a zero written apart (`0 1817000092`) is masked with the rest.
function identityPatterns(value: string): RegExp[] {
	const digits = value.replace(/\D/g, '');
	const forms = new Set([digits, digits.replace(/^0+/, '')]);
	return [...forms]
		.filter((form) => form.length >= 6)
		.map((form) => new RegExp(`(?<!\\d)${form.split('').join(`${SEP}?`)}(?!\\d)`, 'g'));
}

function nameForms(value: string): string[] {
	const whole = value.normalize('NFC').trim().replace(/\s+/g, ' ');
	const parts = whole.split(/[\s\-\u2010]/);
	return [...new Set([whole, ...parts])]
		.filter((form) => form.length >= MIN_NAME_PART)
		.sort((a, b) => b.length - a.length);
}

const literal = (text: string): string =>
	[...text].map((char) => `\\u{${char.codePointAt(0)!.toString(16)}}`).join('');

const jsonEscaped = (text: string): string =>
	text
		.split('')
		.map((char) => `\\\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`)
		.join('');

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

function namePattern(form: string): RegExp {
	const letters = [...form].map(letterPattern).join('');
	return new RegExp(`(?<![\\p{L}\\p{M}])${letters}(?![\\p{L}\\p{M}])`, 'giu');
}

interface PersonalValues {
	identityNumbers: string[];
	names: string[];
}

export const IDENTITY_FIELDS: ReadonlySet<string> = new Set([
	'nationalid',
	'ssn',
	'fodselsnummer',
	'fødselsnummer',
	'pid',
]);
export const NAME_FIELDS: ReadonlySet<string> = new Set([
	'lastname',
	'firstname',
	'middlename',
	'name',
	'fullname',
	'surname',
]);

export function personalValuesOf(...bodies: unknown[]): PersonalValues {
	const found: PersonalValues = { identityNumbers: [], names: [] };
	for (const [key, value] of bodies.filter(isObject).flatMap((body) => Object.entries(body))) {
		if (typeof value !== 'string' && typeof value !== 'number') continue;
		const name = key.toLowerCase();
		if (IDENTITY_FIELDS.has(name)) found.identityNumbers.push(String(value));
		else if (NAME_FIELDS.has(name) && typeof value === 'string') found.names.push(value);
	}
	return found;
}

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
