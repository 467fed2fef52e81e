import * as crypto from 'crypto';

// Wrap timingSafeEqual in a spy (the real function still runs); built-in module properties
// cannot be redefined with jest.spyOn.
jest.mock('crypto', () => {
	const actual = jest.requireActual('crypto');
	return { ...actual, timingSafeEqual: jest.fn(actual.timingSafeEqual) };
});

import * as fc from 'fast-check';

import {
	MAX_SIGNATURE_CANDIDATES,
	SIGNATURE_HEADER_PATTERN,
	signatureCandidates,
} from '../../../../nodes/shared/webhook/signature';
import {
	verifyAnySignature,
	verifySignature,
	headersWithoutSecrets,
} from '../../../support/signature';
import { SIGNING_KEY, sign } from '../../ConsentFlowTrigger/helpers';

const bytes = (text: string) => Buffer.from(text, 'utf8');

describe('verifySignature on exact bytes', () => {
	const tricky = [
		// A \u escape, spelled as six ASCII characters in the body.
		'{"webhookId":"w1","event":"consent.created","payload":{"lastName":"Bj\\u00f8rnstad"}}',
		// Odd spacing, tabs and a newline.
		'{ "webhookId" :"w2",\t"event":  "consent.data" ,\n  "payload" : { "flow":"f-1" } }',
		// Numbers that JSON.parse cannot round-trip.
		'{"webhookId":"w3","event":"consent.data","payload":{"income":12345678901234567890,"rate":1.50,"tiny":1e-7}}',
		// Raw UTF-8 (ø as two bytes), a number spelled 100.0, an escaped slash.
		'{"payload":{"name":"Bjørn","amount":100.0,"url":"https:\\/\\/x"},"event":"consent.accepted","webhookId":"w4"}',
	];

	it.each(tricky)('verifies %s', (body) => {
		expect(verifySignature(bytes(body), sign(body), SIGNING_KEY)).toBe(true);
	});

	it.each(tricky)('does not verify the re-serialised JSON of %s', (body) => {
		const reserialised = JSON.stringify(JSON.parse(body));
		expect(reserialised).not.toBe(body);
		expect(verifySignature(bytes(reserialised), sign(body), SIGNING_KEY)).toBe(false);
	});

	it('treats \\u00f8 and a raw ø as different bytes', () => {
		const escaped = '{"n":"\\u00f8"}';
		const raw = '{"n":"ø"}';
		expect(JSON.parse(escaped)).toEqual(JSON.parse(raw));
		expect(verifySignature(bytes(raw), sign(escaped), SIGNING_KEY)).toBe(false);
		expect(verifySignature(bytes(escaped), sign(escaped), SIGNING_KEY)).toBe(true);
	});

	it('rejects a body changed by one byte', () => {
		const body = '{"webhookId":"w5","event":"consent.created"}';
		const changed = body.replace('w5', 'w6');
		expect(verifySignature(bytes(changed), sign(body), SIGNING_KEY)).toBe(false);
	});

	it('verifies an empty body signed as such', () => {
		expect(verifySignature(Buffer.alloc(0), sign(''), SIGNING_KEY)).toBe(true);
	});
});

describe('verifySignature on the header value', () => {
	const body = '{"webhookId":"w7","event":"consent.rejected"}';
	const good = sign(body);

	it('accepts upper-case and mixed-case hex', () => {
		expect(verifySignature(bytes(body), good.toUpperCase(), SIGNING_KEY)).toBe(true);
		const mixed = good
			.split('')
			.map((c, i) => (i % 2 ? c.toUpperCase() : c))
			.join('');
		expect(verifySignature(bytes(body), mixed, SIGNING_KEY)).toBe(true);
	});

	it('tolerates surrounding whitespace and a sha256= prefix', () => {
		expect(verifySignature(bytes(body), `  ${good} `, SIGNING_KEY)).toBe(true);
		expect(verifySignature(bytes(body), `sha256=${good}`, SIGNING_KEY)).toBe(true);
		expect(verifySignature(bytes(body), `SHA256=${good.toUpperCase()}`, SIGNING_KEY)).toBe(true);
	});

	it('rejects a wrong signature of the right length', () => {
		const last = good[good.length - 1] === '0' ? '1' : '0';
		expect(verifySignature(bytes(body), good.slice(0, -1) + last, SIGNING_KEY)).toBe(false);
		expect(verifySignature(bytes(body), sign(body, 'another-secret-0123456'), SIGNING_KEY)).toBe(
			false,
		);
	});

	it.each([
		['empty', ''],
		['63 hex characters', 'a'.repeat(63)],
		['65 hex characters', 'a'.repeat(65)],
		['a SHA-512 length digest', 'a'.repeat(128)],
		['non-hex characters', 'z'.repeat(64)],
		['base64 of the digest', 'dGVzdA=='],
	])('returns false without throwing for %s', (_label, header) => {
		expect(() => verifySignature(bytes(body), header, SIGNING_KEY)).not.toThrow();
		expect(verifySignature(bytes(body), header, SIGNING_KEY)).toBe(false);
	});

	it('fails closed without a header or a secret', () => {
		expect(verifySignature(bytes(body), undefined, SIGNING_KEY)).toBe(false);
		expect(verifySignature(bytes(body), null, SIGNING_KEY)).toBe(false);
		// A digest made with the empty key is still refused when no secret is configured.
		expect(verifySignature(bytes(body), sign(body, ''), '')).toBe(false);
		expect(verifySignature(bytes(body), good, undefined)).toBe(false);
	});

	it('compares with crypto.timingSafeEqual on two 32-byte buffers', () => {
		const spy = crypto.timingSafeEqual as unknown as jest.Mock;
		spy.mockClear();
		{
			expect(verifySignature(bytes(body), good, SIGNING_KEY)).toBe(true);
			expect(spy).toHaveBeenCalledTimes(1);
			const [a, b] = spy.mock.calls[0] as [Buffer, Buffer];
			expect(a.length).toBe(32);
			expect(b.length).toBe(32);
			spy.mockClear();
			// Wrong length: refused before any comparison.
			expect(verifySignature(bytes(body), good.slice(2), SIGNING_KEY)).toBe(false);
			expect(spy).not.toHaveBeenCalled();
		}
	});
});

describe('signatureCandidates: which headers', () => {
	const value = 'ab'.repeat(32);

	it('matches x-<maker>-sbl-signature case-insensitively when nothing is configured', () => {
		expect(signatureCandidates({ 'x-acme-sbl-signature': value })).toEqual([value]);
		expect(signatureCandidates({ 'X-Some-Bank-SBL-Signature': value })).toEqual([value]);
		expect(signatureCandidates({ 'x-acme-sbl-signature': value }, '  ')).toEqual([value]);
	});

	it('does not match look-alikes', () => {
		expect(signatureCandidates({ 'x-sbl-signature': value })).toEqual([]);
		expect(signatureCandidates({ 'x--sbl-signature': value })).toEqual([]);
		expect(signatureCandidates({ 'x-acme-sbl-signature-v2': value })).toEqual([]);
		expect(signatureCandidates({ 'acme-sbl-signature': value })).toEqual([]);
		expect(SIGNATURE_HEADER_PATTERN.test('x-a-sbl-signature')).toBe(true);
	});

	it('keeps arrival order', () => {
		const found = signatureCandidates({
			'content-type': 'application/json',
			'x-first-sbl-signature': 'first',
			'x-second-sbl-signature': 'second',
		});
		expect(found).toEqual(['first', 'second']);
	});

	it('uses only the configured header name when one is set', () => {
		const headers = { 'x-acme-sbl-signature': value, 'x-bank-signature': 'configured' };
		expect(signatureCandidates(headers, 'X-Bank-Signature')).toEqual(['configured']);
		expect(signatureCandidates({ 'x-acme-sbl-signature': value }, 'x-bank-signature')).toEqual([]);
	});
});

describe('signatureCandidates', () => {
	it('collects every piece of every matching header, arrays and comma-joined values included', () => {
		expect(
			signatureCandidates({
				'x-a-sbl-signature': 'one, two',
				'content-type': 'application/json',
				'X-B-SBL-Signature': ['three', ' four ,, '],
				'x-c-sbl-signature': undefined,
				'x-sbl-signature': 'not matching',
			}),
		).toEqual(['one', 'two', 'three', 'four']);
	});

	it('takes only the configured header when one is set', () => {
		const headers = { 'x-a-sbl-signature': 'one', 'X-Bank-Signature': ['two', 'three'] };
		expect(signatureCandidates(headers, ' x-bank-signature ')).toEqual(['two', 'three']);
		expect(signatureCandidates(headers, 'x-other')).toEqual([]);
	});
});

describe('verifyAnySignature', () => {
	const body = bytes('{"webhookId":"w8","event":"consent.data"}');
	const good = sign(body);
	const bogus = sign(body, 'another-secret-0123456');
	const spy = crypto.timingSafeEqual as unknown as jest.Mock;

	it.each(Array.from({ length: MAX_SIGNATURE_CANDIDATES }, (_, i) => i))(
		'finds the valid one at position %i of 8, comparing all 8 in constant time',
		(position) => {
			const candidates = Array<string>(MAX_SIGNATURE_CANDIDATES).fill(bogus);
			candidates[position] = good;
			spy.mockClear();
			expect(verifyAnySignature(body, candidates, SIGNING_KEY)).toBe(true);
			expect(spy).toHaveBeenCalledTimes(MAX_SIGNATURE_CANDIDATES);
		},
	);

	it('refuses more than 8 candidates, none, or no secret', () => {
		expect(verifyAnySignature(body, [...Array<string>(8).fill(bogus), good], SIGNING_KEY)).toBe(
			false,
		);
		expect(verifyAnySignature(body, [], SIGNING_KEY)).toBe(false);
		expect(verifyAnySignature(body, [sign(body, '')], '')).toBe(false);
	});

	// The rule, written again: a candidate verifies when, without surrounding spaces and an
	// optional case-insensitive `sha256=`, it is the 64-character hex digest in any case.
	const verifies = (candidate: string) =>
		candidate
			.trim()
			.replace(/^sha256=/i, '')
			.toLowerCase() === good;

	const candidate = fc.oneof(
		fc.constant(good),
		fc.constant(bogus),
		fc.constant(good.toUpperCase()),
		fc.constant(` sha256=${good} `),
		fc.constant(`SHA256=${good}`),
		fc.constant(good.slice(1)),
		fc.constant(`${good}0`),
		fc.constant(Buffer.from(good, 'hex').toString('base64')),
		fc.constant(`sha512=${good}`),
		fc.string({ maxLength: 70 }),
	);

	it('verifies exactly when 1 to 8 candidates are given and one follows the rule, in any order', () => {
		fc.assert(
			fc.property(fc.array(candidate, { maxLength: 10 }), fc.nat(), (list, seed) => {
				const expected = list.length >= 1 && list.length <= 8 && list.some(verifies);
				const rotated = list.map((_, i) => list[(i + seed) % list.length]);
				expect(verifyAnySignature(body, list, SIGNING_KEY)).toBe(expected);
				expect(verifyAnySignature(body, rotated, SIGNING_KEY)).toBe(expected);
				expect(verifyAnySignature(body, [...list].reverse(), SIGNING_KEY)).toBe(expected);
			}),
			{ numRuns: 2000 },
		);
	});
});

describe('Include Headers: every header that carries a credential is dropped, even when named', () => {
	it('drops the signature, cookie and authorization', () => {
		const kept = headersWithoutSecrets({
			'content-type': 'application/json',
			'x-acme-sbl-signature': 'sig',
			'x-bank-signature': 'sig2',
			cookie: 'n8n-auth=1',
			authorization: 'Bearer t',
			'proxy-authorization': 'Basic x',
			'x-request-id': 'r-1',
		});
		expect(kept).toEqual({ 'content-type': 'application/json', 'x-request-id': 'r-1' });
	});

	// Headers that carry a secret, a token or a signature somewhere in the wild.
	const CREDENTIAL_HEADERS = [
		'authorization',
		'proxy-authorization',
		'cookie',
		'set-cookie',
		'x-acme-sbl-signature',
		'x-signature',
		'x-hub-signature-256',
		'stripe-signature',
		'x-api-key',
		'x-apikey',
		'api-key',
		'apikey',
		'x_api_key',
		'x-n8n-api-key',
		'x-auth-token',
		'x-auth',
		'x-authorization',
		'x-access-token',
		'x-amz-security-token',
		'x-csrf-token',
		'x-xsrf-token',
		'x-refresh-token',
		'x-id-token',
		'x-token',
		'x-webhook-secret',
		'x-client-secret',
		'x-password',
		'x-db-passwd',
		'x-user-credentials',
		'x-session-id',
		'x-goog-api-key',
		'ocp-apim-subscription-key',
		'x-functions-key',
		'x-private-key',
		'x-access-key',
		'X-Api-Key',
		'X-Auth-Token',
	];
	const ORDINARY_HEADERS = [
		'content-type',
		'content-length',
		'user-agent',
		'accept',
		'accept-encoding',
		'host',
		'connection',
		'x-request-id',
		'x-correlation-id',
		'x-forwarded-for',
		'x-forwarded-proto',
		'x-real-ip',
		'traceparent',
		'x-idempotency-key',
		'idempotency-key',
		'x-delivery-attempt',
		'date',
	];

	it.each(CREDENTIAL_HEADERS)('drops %s', (name) => {
		expect(headersWithoutSecrets({ [name]: 'value', 'x-request-id': 'r' })).toEqual({
			'x-request-id': 'r',
		});
	});

	it('keeps ordinary headers', () => {
		const headers = Object.fromEntries(ORDINARY_HEADERS.map((name) => [name, `v-${name}`]));
		expect(headersWithoutSecrets(headers)).toEqual(headers);
	});
});
