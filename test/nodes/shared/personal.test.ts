/**
 * Issue 31, items 9 and 10: the spellings of identity numbers and names the masker must catch
 * (and the ones it must leave alone), example by example. The property tests against an
 * independent scanner are in personal.property.test.ts; these pin each form and bound.
 *
 * Oracles: the forms written out by hand from the issue (`row 3 …`, `2024-05-31 …`, `… - …`,
 * `…/…`, 3-3-3-2, 2-2-2-5, NFD, JSON `\u` escapes); synthetic numbers only (test/support).
 */
import {
	IDENTITY_FIELDS,
	NAME_FIELDS,
	maskIdentityNumbers,
	personalMasker,
	personalValuesOf,
} from '../../../nodes/shared/personal';
import { syntheticNationalId } from '../../support/synthetic-ids';

const ID = syntheticNationalId(0); // 01817000092
const STARS = '*'.repeat(11);
const mask = (text: string) => maskIdentityNumbers(text);

describe('maskIdentityNumbers: the written forms', () => {
	test.each([
		// 11 digits together, also right after "digit + separator" (the old lookbehind let these through)
		[`fnr ${ID} ok`, `fnr ${STARS} ok`],
		[`row 3 ${ID}`, `row 3 ${STARS}`],
		[`2024-05-31 ${ID}`, `2024-05-31 ${STARS}`],
		[`1.${ID}`, `1.${STARS}`],
		[`${ID}-2`, `${STARS}-2`],
		// birth date and personal number, every separator
		['018170 00092', '****** *****'],
		['018170\u00a000092', '******\u00a0*****'],
		['018170\u202f00092', '******\u202f*****'],
		['018170.00092', '******.*****'],
		['018170/00092', '******/*****'],
		['018170-00092', '******-*****'],
		['018170\u201300092', '******\u2013*****'],
		['018170 - 00092', '****** - *****'],
		['018170 -00092', '****** -*****'],
		['018170- 00092', '******- *****'],
		['018170\u00a0\u2013\u202f00092', '******\u00a0\u2013\u202f*****'],
		// 3-3-3-2 and 2-2-2-5
		['018 170 000 92', '*** *** *** **'],
		['018.170.000.92', '***.***.***.**'],
		['01 81 70 00092', '** ** ** *****'],
		['01.81.70 00092', '**.**.** *****'],
		['01/81/70-00092', '**/**/**-*****'],
		// inside a longer run of groups: the form is still there
		['row 3 018170 00092', 'row 3 ****** *****'],
		['12 01 81 70 00092 x', '12 ** ** ** ***** x'],
		// two in one text
		[`${ID} and 018170 00092`, `${STARS} and ****** *****`],
	])('%j → %j', (text, masked) => {
		expect(mask(text)).toBe(masked);
	});

	test.each([
		// longer or shorter groups are other numbers
		'flow no-such-flow-1795595664387',
		'order 018170000921',
		'order 1018170000921',
		'x 1817000092 y',
		'018170 0009',
		'018170 000921',
		'01817 00092',
		'018170  00092',
		'018170--00092',
		'018170 -- 00092',
		'018 170 000 921',
		'018 170 00 92',
		'018 170 000',
		'01 81 70 0009',
		'01 81 70 000921',
		'01 81 7 00092',
		'org 923456783, phone 22 33 44 55',
		'18170 00092',
		'0181700 00092',
		'2024-05-31T12:00:00Z',
		// UUIDs, also one whose last group holds 11 digits, in any case
		'flow 3c928444-6265-4a3c-8797-b4add7c4161a',
		`flow 3c928444-6265-4a3c-8797-a${ID}`,
		`flow 3C928444-6265-4A3C-8797-A${ID}`,
		`flow 01817000-0092-0181-7000-0${ID}`,
	])('%j is kept', (text) => {
		expect(mask(text)).toBe(text);
	});

	test('unpadded: a group of exactly 10 digits too (a number that lost its leading zero), nothing else', () => {
		expect(maskIdentityNumbers('got 1817000092', true)).toBe('got **********');
		expect(maskIdentityNumbers('got 1817000092')).toBe('got 1817000092');
		expect(maskIdentityNumbers(`got ${ID} 181700009 181700009212`, true)).toBe(
			`got ${STARS} 181700009 181700009212`,
		);
		expect(maskIdentityNumbers('id 01817000-0092-0181-7000-a1817000092b', true)).toBe(
			'id 01817000-0092-0181-7000-a1817000092b',
		);
	});
});

describe('personalMasker: the request’s own identity numbers', () => {
	test('as sent, without its leading zero, with separators between any digits', () => {
		const masker = personalMasker({ identityNumbers: [ID], names: [] });
		expect(masker(`a ${ID} b 1817000092 c 0181.7000-092 d 01 81 70 00 092`)).toBe(
			'a *********** b ********** c ****.****-*** d ** ** ** ** ***',
		);
		// another number, and the id inside a longer digit group, are kept
		expect(masker(`181700009 ${ID}3 2${ID}`)).toBe(`181700009 ${ID}3 2${ID}`);
		// given with separators itself
		expect(personalMasker({ identityNumbers: ['018170 00092'], names: [] })(ID)).toBe(STARS);
	});

	test('the longer form first: a leading zero written apart is masked with the rest', () => {
		const masker = personalMasker({ identityNumbers: [ID], names: [] });
		expect(masker('0 1817000092')).toBe('* **********');
	});

	test('only leading zeros are dropped, all of them; forms under 6 digits are not searched', () => {
		// a number without a leading zero: no shorter form (not /0+/ anywhere in it)
		expect(personalMasker({ identityNumbers: ['15817012345'], names: [] })('1581712345')).toBe(
			'1581712345',
		);
		expect(personalMasker({ identityNumbers: ['00817000092'], names: [] })('x 817000092')).toBe(
			'x *********',
		);
		// exactly 6 digits left is a form; 5 (and fewer) are not searched
		expect(personalMasker({ identityNumbers: ['0123456'], names: [] })('123456')).toBe('******');
		expect(personalMasker({ identityNumbers: ['0012345'], names: [] })('12345 0012345')).toBe(
			'12345 *******',
		);
		expect(personalMasker({ identityNumbers: ['000012'], names: [] })('12 and 000012')).toBe(
			'12 and ******',
		);
	});
});

describe('personalMasker: the request’s own names', () => {
	const masker = personalMasker({ identityNumbers: [], names: ['Åse Ødegård-Li', 'Bjørn Ærø'] });

	test('whole, and each part of two letters or more, as words in any case', () => {
		expect(masker('Åse Ødegård-Li')).toBe('***');
		expect(masker('ÅSE, ødegård and LI; li again')).toBe('***, *** and ***; *** again');
		expect(masker('Åsen, Kåse, Lia, Ødegårdsvei, Li2, %20Li')).toBe(
			'Åsen, Kåse, Lia, Ødegårdsvei, ***2, %20***',
		);
		expect(masker('bjørn ærø')).toBe('***');
	});

	test('decomposed (NFD) in the text, or given decomposed', () => {
		expect(masker('Åse Ødegård-Li'.normalize('NFD'))).toBe('***');
		expect(masker(`name ${'Åse'.normalize('NFD')} x`)).toBe('name *** x');
		expect(masker(`${'Ærø'.normalize('NFD')}`)).toBe('***');
		const fromNfd = personalMasker({ identityNumbers: [], names: ['Åse'.normalize('NFD')] });
		expect(fromNfd('Åse')).toBe('***');
		// a combining mark after the name makes it another word
		expect(masker('Åse\u0301')).toBe('Åse\u0301');
	});

	test('JSON-escaped (\\uXXXX, either case of letter and hex digit)', () => {
		expect(masker('{"name":"\\u00c5se"}')).toBe('{"name":"***"}');
		expect(masker('{"name":"\\u00E5SE"}')).toBe('{"name":"***"}');
		expect(masker('"\\u00d8deg\\u00e5rd"')).toBe('"***"');
		const nordmann = personalMasker({ identityNumbers: [], names: ['Nordmann'] });
		expect(nordmann('"Nordma\\u006e\\u006E"')).toBe('"***"');
		expect(nordmann('"\\u004eordmann"')).toBe('"***"');
		expect(nordmann('"\\u004Eordmannen"')).toBe('"\\u004Eordmannen"');
	});

	test('forms: trimmed, inner spaces folded, hyphens (also U+2010) split parts, the whole first', () => {
		expect(
			personalMasker({ identityNumbers: [], names: [' Kari Nordmann '] })('x Kari Nordmann y'),
		).toBe('x *** y');
		expect(
			personalMasker({ identityNumbers: [], names: ['Kari  Nordmann'] })('Kari Nordmann'),
		).toBe('***');
		expect(personalMasker({ identityNumbers: [], names: ['Berg\u2010Li'] })('Li and Berg')).toBe(
			'*** and ***',
		);
		// one letter is no name part (it would hit every "a")
		expect(personalMasker({ identityNumbers: [], names: ['A'] })('A b')).toBe('A b');
		expect(personalMasker({ identityNumbers: [], names: ['A Li'] })('a and Li')).toBe('a and ***');
		// characters a pattern would otherwise read as syntax are letters of the name
		expect(personalMasker({ identityNumbers: [], names: ['Jo.n'] })('John Jo.n')).toBe('John ***');
		expect(personalMasker({ identityNumbers: [], names: ['(Li)+'] })('LiLi (Li)+')).toBe(
			'LiLi ***',
		);
	});

	test('a part that holds another part as a word is masked whole (longest first)', () => {
		const masker = personalMasker({ identityNumbers: [], names: ["Neil O'Neil"] });
		expect(masker("O'Neil and Neil")).toBe('*** and ***');
		expect(personalMasker({ identityNumbers: [], names: ["O'Neil Neil"] })("O'Neil")).toBe('***');
	});

	test('a letter whose upper case is longer (ß → SS), as such and JSON-escaped', () => {
		const masker = personalMasker({ identityNumbers: [], names: ['Strauß'] });
		expect(masker('STRAUSS, strauß, Strau\\u00df, STRAU\\u0053\\u0053')).toBe('***, ***, ***, ***');
		expect(masker('STRAUS')).toBe('STRAUS');
	});

	test('numbers first, then names; no values: the text as it is', () => {
		const both = personalMasker({ identityNumbers: [ID], names: ['Li'] });
		expect(both(`Li ${ID}`)).toBe(`*** ${STARS}`);
		expect(personalMasker({ identityNumbers: [], names: [] })(`Li ${ID}`)).toBe(`Li ${ID}`);
	});
});

describe('personalValuesOf', () => {
	test('identity and name fields of the top levels, any case; numbers as identity numbers only', () => {
		expect(
			personalValuesOf(
				{ NationalID: ID, lastName: 'Li', FIRSTNAME: 'Åse', organizationId: '923609016', name: 42 },
				null,
				['x'],
				'text',
				{ ssn: 1817000092, fullName: 'Kari', nested: { pid: ID }, pid: true },
				undefined,
			),
		).toEqual({ identityNumbers: [ID, '1817000092'], names: ['Li', 'Åse', 'Kari'] });
		expect(personalValuesOf()).toEqual({ identityNumbers: [], names: [] });
	});

	test('the field lists (lower case, as compared)', () => {
		expect([...IDENTITY_FIELDS]).toEqual([
			'nationalid',
			'ssn',
			'fodselsnummer',
			'fødselsnummer',
			'pid',
		]);
		expect([...NAME_FIELDS]).toEqual([
			'lastname',
			'firstname',
			'middlename',
			'name',
			'fullname',
			'surname',
		]);
	});
});
