/**
 * Issue 42: the one redactor every error text passes finds identity numbers by value in every
 * written form, a learned token in more forms (base64, base64url, upper and lower case), and
 * unlearned tokens by their shape (`Bearer:…`, `access_token=…`, `Authorization: …`).
 */
import fc from 'fast-check';
import { makeRedactor, redactPatterns } from '../../../../nodes/shared/transport/redact';
import {
	identityNumber,
	withControlDigits,
	write,
	anyWrittenForm,
} from '../../../support/identity-numbers';

// learned at run time in the node; built here so that no literal looks like a secret
const LEARNED = ['Tok', '9F8e7D6c5B4a3210'].join('-');

describe('learned tokens in every form', () => {
	const redact = makeRedactor([LEARNED]);
	test.each([
		['base64', Buffer.from(LEARNED).toString('base64')],
		['base64url', Buffer.from(LEARNED).toString('base64url')],
		['upper case', LEARNED.toUpperCase()],
		['lower case', LEARNED.toLowerCase()],
	])('%s', (_form, written) => {
		expect(redact(`upstream said: ${written} is not valid`)).toBe(
			'upstream said: *** is not valid',
		);
	});

	// 19 characters: base64 ends in `==`; 14 with `?>~`: base64 has `+` and `/`, base64url `-` and `_`
	const PADDED = ['Tok', '9F8e7D6c5B4a321'].join('-');
	const SYMBOLS = ['a?>~b?>~c?>~', 'd1'].join('');
	test.each([
		[
			'base64 without its padding',
			PADDED,
			Buffer.from(PADDED).toString('base64').replace(/=+$/, ''),
		],
		['base64 with `==`', PADDED, Buffer.from(PADDED).toString('base64')],
		['base64 with + and /', SYMBOLS, Buffer.from(SYMBOLS).toString('base64')],
		['base64url', SYMBOLS, Buffer.from(SYMBOLS).toString('base64url')],
	])('%s', (_form, secret, written) => {
		expect(makeRedactor([secret])(`got [${written}] back`)).toBe('got [***] back');
	});

	test('a token learned later, base64-encoded', () => {
		const later = makeRedactor([]);
		later.learn('Later-Token-abcdef12');
		expect(later(`x ${Buffer.from('Later-Token-abcdef12').toString('base64')} y`)).toBe('x *** y');
	});
});

describe('unlearned tokens by shape', () => {
	test.each([
		['Bearer:abcdefgh12345678', 'Bearer ***'],
		['bearer: abcdefgh12345678', 'bearer ***'],
		['Bearer abcdefgh12345678', 'Bearer ***'],
		['access_token=abcdefgh12345678&x=1', 'access_token=***&x=1'],
		['{"access_token":"abcdefgh12345678"}', '{"access_token":"***"}'],
		['refresh_token: abcdefgh12345678', 'refresh_token: ***'],
		['Authorization: abcdefgh12345678', 'Authorization: ***'],
		['authorization_code=abcdefgh12345678', 'authorization_code=***'],
		['authCode=abcdefgh12345678', 'authCode=***'],
		['Bearer%3Aabcdefgh12345678', 'Bearer ***'],
		['access_token%3Dabcdefgh12345678', 'access_token%3D***'],
		['id_token%3Aabcdefgh12345678', 'id_token%3A***'],
		["client_secret = 'abcdefgh12345678'", "client_secret = '***'"],
		['Authorization: Bearer abcdefgh12345678', 'Authorization: Bearer ***'],
		['access_token=abcdefg', 'access_token=abcdefg'],
	])('%s', (text, redacted) => {
		expect(redactPatterns(`failed: ${text}`)).toBe(`failed: ${redacted}`);
	});

	test('an error code stays', () => {
		expect(redactPatterns('code: FLOW_NOT_FOUND')).toBe('code: FLOW_NOT_FOUND');
	});
});

describe('identity numbers in every written form', () => {
	it('no digit of the number is left in an error text', () => {
		fc.assert(
			fc.property(identityNumber, anyWrittenForm, (id, form) => {
				const text = redactPatterns(`Organization Number "${write(id, form)}" is not valid`);
				const digits = [...text.normalize('NFKC')].filter((char) => /\p{Nd}/u.test(char));
				expect(digits).toEqual([]);
			}),
			{ numRuns: 400 },
		);
	});

	test('the issue example: two spaces', () => {
		const id = withControlDigits('010170036', 0)!;
		expect(redactPatterns(`Kari Østby ${id.slice(0, 6)}  ${id.slice(6)}`)).toBe(
			'Kari Østby ******  *****',
		);
	});
});
