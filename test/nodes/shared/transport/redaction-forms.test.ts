/**
 * Issue 31, item 9 (redaction): forms of a secret the redactor missed — a token the service clipped
 * in the middle, a JWT without its signature part, a client secret form-encoded with `+` for a
 * space or with lower-case `%xx` — and identity numbers in the forms personal.ts now knows.
 *
 * Oracles: URLSearchParams (the WHATWG form encoding), encodeURIComponent, the JWT layout
 * (RFC 7519: base64url header `.` payload `.` signature), synthetic identity numbers.
 */
import { makeRedactor, redactPatterns } from '../../../../nodes/shared/transport/redact';
import { syntheticNationalId } from '../../../support/synthetic-ids';

const ECHOED_VALUE = 'at-9d8c7b6a5f4e3d2c1b0a';
const SECRET = "cl!ent se'cret (ø)~";
const HEADER = 'eyJhbGciOiJSUzI1NiJ9';
const PAYLOAD = 'eyJzdWIiOiJjbGllbnQiLCJzY29wZSI6InNibCJ9';

describe('a clipped token leaves no recognisable beginning', () => {
	const redact = makeRedactor([ECHOED_VALUE]);

	test.each([8, 9, 15, ECHOED_VALUE.length - 1])('clipped after %i characters', (length) => {
		const text = `rejected token ${ECHOED_VALUE.slice(0, length)}… (truncated)`;
		expect(redact(text)).toBe('rejected token ***… (truncated)');
		expect(redact(`rejected token ${ECHOED_VALUE.slice(0, length)}... more`)).toBe(
			'rejected token ***... more',
		);
		expect(redact(`rejected token ${ECHOED_VALUE.slice(0, length)}`)).toBe('rejected token ***');
	});

	test('a beginning the text goes on after is a word, not a clipped token', () => {
		const wordy = makeRedactor(['estimate-7f3a9b2c41d8']);
		expect(
			wordy('The estimate document 42; estimate-7f3a9b2c41d8; estimate-7f… cut; estimate-7'),
		).toBe('The estimate document 42; ***; ***… cut; ***');
		// letters only, even at the end or before a clip mark: a word
		expect(wordy('to get the estimate')).toBe('to get the estimate');
		expect(wordy('the estimate… more')).toBe('the estimate… more');
		expect(wordy('estimate-..')).toBe('estimate-..');
	});

	test('a beginning shorter than 8 characters is an ordinary word; the whole token and what follows it', () => {
		expect(redact(`x ${ECHOED_VALUE.slice(0, 7)} y`)).toBe(`x ${ECHOED_VALUE.slice(0, 7)} y`);
		expect(redact(`${ECHOED_VALUE}${ECHOED_VALUE}`)).toBe('******');
		expect(redact(`a${ECHOED_VALUE}b`)).toBe('a***b');
	});

	test('a short secret (4–7 characters) is blanked whole only', () => {
		const short = makeRedactor(['k3y-99']);
		expect(short('a k3y-99 b k3y-9 c')).toBe('a *** b k3y-9 c');
	});

	test('the longest known form wins where two begin alike', () => {
		const both = makeRedactor(['tok/with"odd&chars']);
		expect(both('x tok/with\\"odd&chars y')).toBe('x *** y');
		expect(both('x tok/with"odd&chars y')).toBe('x *** y');
	});
});

describe('JWTs with or without their signature part', () => {
	test.each([
		`${HEADER}.${PAYLOAD}.c2lnbmF0dXJl`,
		`${HEADER}.${PAYLOAD}.`,
		`${HEADER}.${PAYLOAD}`,
		`${HEADER}.${PAYLOAD.slice(0, 6)}`,
	])('%s', (jwt) => {
		expect(redactPatterns(`token=${jwt}&x=1`)).toBe('token=***&x=1');
	});

	test('the header alone (the algorithm, no claims) is kept', () => {
		expect(redactPatterns(`alg ${HEADER}.`)).toBe(`alg ${HEADER}.`);
	});
});

describe('a client secret as a form encodes it', () => {
	const redact = makeRedactor([SECRET]);
	const form = new URLSearchParams({ client_secret: SECRET }).toString();

	test.each([
		['form-encoded (+ for a space, %21 %27 %28 %29 %7E)', form],
		['form-encoded, lower-case %xx', form.replace(/%[0-9A-F]{2}/g, (hex) => hex.toLowerCase())],
		[
			'URI-encoded, + for a space',
			`client_secret=${encodeURIComponent(SECRET).replace(/%20/g, '+')}`,
		],
		['URI-encoded, lower-case %xx', `client_secret=${encodeURIComponent(SECRET).toLowerCase()}`],
	])('%s', (_label, body) => {
		expect(body).not.toContain(SECRET);
		expect(redact(`sent ${body}&grant_type=client_credentials`)).toBe(
			'sent client_secret=***&grant_type=client_credentials',
		);
	});
});

describe('identity numbers in the forms personal.ts knows', () => {
	const id = syntheticNationalId(2);
	test.each([
		[`row 3 ${id}`, 'row 3 ***********'],
		[`${id.slice(0, 6)} - ${id.slice(6)}`, '****** - *****'],
		[`${id.slice(0, 6)}/${id.slice(6)}`, '******/*****'],
		[`${id.slice(0, 3)} ${id.slice(3, 6)} ${id.slice(6, 9)} ${id.slice(9)}`, '*** *** *** **'],
	])('%j', (text, masked) => {
		expect(redactPatterns(text)).toBe(masked);
	});
});
