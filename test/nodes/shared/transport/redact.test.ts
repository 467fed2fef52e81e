/**
 * The redactor's rules at their edges (docs/architecture.md, transport/redact): nested values,
 * a secret at the very end of a text, the clipped-beginning rule, the credential's secrets, and
 * the written forms of schemes and named tokens.
 */
import {
	credentialSecrets,
	makeRedactor,
	redactPatterns,
} from '../../../../nodes/shared/transport/redact';
import { syntheticNationalId } from '../../../support/synthetic-ids';

const SECRET = ['Secret', 'Word'].join('');

describe('learned secrets at the edges', () => {
	test('a secret of letters only at the very end of a text', () => {
		expect(makeRedactor([SECRET])(`x ${SECRET}`)).toBe('x ***');
	});

	test('a clipped beginning is blanked from 8 characters on, not shorter', () => {
		const secret = ['abc123de', 'fg456'].join('');
		expect(makeRedactor([secret])(`x ${secret.slice(0, 8)}`)).toBe('x ***');
		expect(makeRedactor([secret])(`x ${secret.slice(0, 7)}`)).toBe(`x ${secret.slice(0, 7)}`);
	});

	test('a secret of 4 characters is searched, of 3 not', () => {
		expect(makeRedactor(['ab12'])('x ab12 y')).toBe('x *** y');
		expect(makeRedactor(['ab1'])('x ab1 y')).toBe('x ab1 y');
	});

	test('base64 with + and / and its `==` padding left off', () => {
		const secret = ['a?>~b?>~', 'c?>~d'].join('');
		const written = Buffer.from(secret).toString('base64').replace(/=+$/, '');
		expect(makeRedactor([secret])(`got ${written} back`)).toBe('got *** back');
	});
});

describe('credentialSecrets', () => {
	test.each([
		[{ clientSecret: 123 }, []],
		[{ clientId: 'a' }, []],
		[{ clientId: 'a', clientSecret: 5 }, []],
		[{ clientId: 5, clientSecret: 's' }, ['s']],
		[{ oauthTokenData: 'text' }, []],
		[{ oauthTokenData: null }, []],
	])('%j: %j', (credentials, secrets) => {
		expect(credentialSecrets(credentials, ['clientSecret'])).toEqual(secrets);
	});
});

describe('schemes and named tokens in their written forms', () => {
	test.each([
		['Bearer :abcdefgh12345678', 'Bearer ***'],
		['Bearer  abcdefgh12345678', 'Bearer ***'],
		['accesstoken=abcdefgh12345678', 'accesstoken=***'],
		['clientsecret=abcdefgh12345678', 'clientsecret=***'],
	])('%s', (text, redacted) => {
		expect(redactPatterns(text)).toBe(redacted);
	});
});

describe('linear time on hostile texts (a quadratic pattern would not end within the test timeout)', () => {
	test('a JWT start with no end, 256 KB: nothing taken for a token, the text as it was', () => {
		const text = 'eyJ'.repeat(256 * 342);
		expect(redactPatterns(text)).toBe(text);
	});

	test('a JWT is found after a space, a quote, an equals sign or a dot; glued to a word, from its payload on', () => {
		const jwt = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl';
		for (const before of [' ', '"', '=', '.', '('])
			expect(redactPatterns(`x${before}${jwt}`)).toBe(`x${before}***`);
		expect(redactPatterns(`abc${jwt}`)).toBe('abceyJhbGciOiJIUzI1NiJ9.***');
	});
});

describe('tokens found by name, whatever their characters, and Authorization with any scheme (issue 49)', () => {
	test.each([
		['{"token":"abc.def!ghi~jkl"}', 'abc.def'],
		['{"apiKey": "k-1234 5678"}', 'k-1234'],
		['{"api_key":"zz9-plural-z-alpha"}', 'zz9-plural'],
		['{"password":"p@ss w0rd!"}', 'p@ss'],
		['{"sessionId":"s3ss10n-1234"}', 's3ss10n'],
		['{"client_secret":"sh!ort-but-secret"}', 'sh!ort'],
		['x-api-key: abcdefgh12345', 'abcdefgh12345'],
		['Authorization: Token abcdefgh1234', 'abcdefgh1234'],
		['Authorization: ApiKey abcdefgh1234', 'abcdefgh1234'],
		['authorization=Digest username="a", response="6629fae49393a053"', '6629fae49393a053'],
		['Cookie: sid=abc123; theme=dark', 'abc123'],
		['set-cookie: session=xyz789abc; Path=/; HttpOnly', 'xyz789abc'],
	])('%s', (text, secret) => {
		const out = redactPatterns(text);
		expect(out).not.toContain(secret);
		expect(out).toContain('***');
	});

	test('ordinary words stay: "token" in a sentence, a short "key" field', () => {
		expect(redactPatterns('The token expired; fetch a new one.')).toBe(
			'The token expired; fetch a new one.',
		);
		expect(redactPatterns('{"key":"estimate"}')).toBe('{"key":"estimate"}');
	});

	test('a client secret written in hex (lower and upper case) is found', () => {
		const secret = ['S3cret', '-Value!'].join('');
		const hex = Buffer.from(secret).toString('hex');
		const redact = makeRedactor([secret]);
		expect(redact(`echo ${hex} end`)).toBe('echo *** end');
		expect(redact(`echo ${hex.toUpperCase()} end`)).toBe('echo *** end');
	});
});

describe('every spelling of a secret name, and the exact text around the mask', () => {
	// values with a space or a sign: only the JSON-string rule takes them whole
	test.each([
		'idtoken',
		'accesstoken',
		'clientsecret',
		'api-key',
		'sessionid',
		'authcode',
		'authorizationcode',
	])('{"%s":"a b!"} masks the whole string', (name) => {
		expect(redactPatterns(`{"${name}":"a b!"}`)).toBe(`{"${name}":"***"}`);
	});

	test.each([
		['{"password" : "a b!"}', '{"password" : "***"}'],
		['api_key=abcdefgh12', 'api_key=***'],
		['"authorization": "Token ab cd"', '"authorization": "Token ***'],
		['authorization : Token ab cd', 'authorization : Token ***'],
		['Authorization: "Token ab cd"', 'Authorization: "Token ***'],
		['Cookie: sid=abc', 'Cookie: ***'],
		['cookie:sid=abc', 'cookie:***'],
		['cookie : sid=abc', 'cookie : ***'],
		['"cookie": "sid=abc"', '"cookie": "***"'],
	])('%s', (text, redacted) => {
		expect(redactPatterns(text)).toBe(redacted);
	});

	test('an identity number written as an account number (4-2-5) is masked in an error text', () => {
		const id = syntheticNationalId(5);
		const grouped = `${id.slice(0, 4)}.${id.slice(4, 6)}.${id.slice(6)}`;
		expect(redactPatterns(`no flow for ${grouped}`)).toBe('no flow for ****.**.*****');
	});
});

describe('named tokens outside JSON strings (query strings, single-quoted reprs)', () => {
	const value = ['abcd', 'efgh', '1234'].join('');
	test.each([
		['apikey=', 'apikey=***'],
		['api_key=', 'api_key=***'],
		['sessionid=', 'sessionid=***'],
		['session_id=', 'session_id=***'],
		["'password': '", "'password': '***"],
		["'token' = '", "'token' = '***"],
	])('%s', (prefix, masked) => {
		expect(redactPatterns(`${prefix}${value}'`)).toBe(`${masked}'`);
	});
});
