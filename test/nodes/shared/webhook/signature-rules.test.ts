/**
 * Rule tests of signature.ts from the published signature rule (consent-flow-service.md,
 * "Signature": header x-<maker>-sbl-signature, hex HMAC-SHA256 of the request payload keyed
 * with the secret webhook key) and the documented tolerances (case-insensitive hex, surrounding
 * whitespace, optional `sha256=`; fail closed on anything else). The reference digest is
 * computed here with crypto directly.
 */
import { createHmac } from 'crypto';

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
import { SIGNING_KEY } from '../../ConsentFlowTrigger/helpers';

const SECRET = SIGNING_KEY;
const BODY = Buffer.from('{"webhookId":"w","event":"consent.data"}', 'utf8');
const hmacHex = (body: Buffer | string, secret = SECRET) =>
	createHmac('sha256', secret).update(body).digest('hex');
const GOOD = hmacHex(BODY);

describe('verifySignature: the digest must be exactly 64 hex digits', () => {
	it.each([
		['63 digits', GOOD.slice(0, 63)],
		['65 digits', `${GOOD}0`],
		['66 digits', `${GOOD}00`],
		['128 digits (digest twice)', GOOD + GOOD],
		['the digest inside other text', `x${GOOD}`],
		['the digest followed by text', `${GOOD}x`],
		['a non-hex digit', `${GOOD.slice(0, 63)}g`],
		['an inner space', `${GOOD.slice(0, 32)} ${GOOD.slice(32)}`],
		['base64 of the digest', Buffer.from(GOOD, 'hex').toString('base64')],
		['sha1= prefix', `sha1=${GOOD}`],
		['prefix twice', `sha256=sha256=${GOOD}`],
		['prefix not at the start', ` x sha256=${GOOD}`],
		['prefix inside the digest', `${GOOD.slice(0, 32)}sha256=${GOOD.slice(32)}`],
		['empty', ''],
		['whitespace only', '   '],
	])('%s is refused', (_name, header) => {
		expect(verifySignature(BODY, header, SECRET)).toBe(false);
		expect(verifyAnySignature(BODY, [header], SECRET)).toBe(false);
	});

	it.each([
		['lower case', GOOD],
		['upper case', GOOD.toUpperCase()],
		['sha256= prefix', `sha256=${GOOD}`],
		['SHA256= prefix', `SHA256=${GOOD.toUpperCase()}`],
		['surrounding whitespace', `\t ${GOOD} \n`],
		['whitespace around prefix and digest', `  sha256=${GOOD}  `],
	])('%s is accepted', (_name, header) => {
		expect(verifySignature(BODY, header, SECRET)).toBe(true);
	});

	it('an odd-length hex value that Buffer.from would silently shorten is refused', () => {
		// Buffer.from(hex + 'f', 'hex') drops the last digit: the bytes equal the digest
		expect(Buffer.from(`${GOOD}f`, 'hex').equals(Buffer.from(GOOD, 'hex'))).toBe(true);
		expect(verifySignature(BODY, `${GOOD}f`, SECRET)).toBe(false);
	});
});

describe('verifySignature: header and secret', () => {
	it('refuses non-string headers and empty or non-string secrets', () => {
		expect(verifySignature(BODY, undefined, SECRET)).toBe(false);
		expect(verifySignature(BODY, null, SECRET)).toBe(false);
		expect(verifySignature(BODY, [GOOD] as unknown as string, SECRET)).toBe(false);
		expect(verifySignature(BODY, hmacHex(BODY, ''), '')).toBe(false);
		expect(verifySignature(BODY, GOOD, undefined)).toBe(false);
		expect(verifySignature(BODY, GOOD, null)).toBe(false);
		expect(verifySignature(BODY, GOOD, 42 as unknown as string)).toBe(false);
	});

	it('a one-character secret is still a secret', () => {
		expect(verifySignature(BODY, hmacHex(BODY, 'k'), 'k')).toBe(true);
		expect(verifySignature(BODY, hmacHex(BODY, 'k'), 'K')).toBe(false);
	});
});

describe('verifyAnySignature: candidates', () => {
	const wrong = hmacHex(BODY, 'another-secret-entirely');

	it.each([1, 2, 3, 7, 8])('verifies with the good one anywhere among %i', (count) => {
		for (let at = 0; at < count; at++) {
			const candidates = Array.from({ length: count }, (_, i) => (i === at ? GOOD : wrong));
			expect(verifyAnySignature(BODY, candidates, SECRET)).toBe(true);
		}
	});

	it('refuses 9 or more candidates even when all are good', () => {
		expect(MAX_SIGNATURE_CANDIDATES).toBe(8);
		expect(verifyAnySignature(BODY, Array(8).fill(GOOD), SECRET)).toBe(true);
		expect(verifyAnySignature(BODY, Array(9).fill(GOOD), SECRET)).toBe(false);
		expect(verifyAnySignature(BODY, [], SECRET)).toBe(false);
	});

	it('a good candidate after a bad one still verifies; a bad one after a good one does not undo it', () => {
		expect(verifyAnySignature(BODY, [wrong, GOOD], SECRET)).toBe(true);
		expect(verifyAnySignature(BODY, [GOOD, wrong], SECRET)).toBe(true);
		expect(verifyAnySignature(BODY, [GOOD, 'junk'], SECRET)).toBe(true);
		expect(verifyAnySignature(BODY, ['junk', GOOD.slice(1)], SECRET)).toBe(false);
		expect(verifyAnySignature(BODY, [wrong, wrong], SECRET)).toBe(false);
	});
});

describe('finding the signature header', () => {
	it('the pattern needs the x- prefix, something in the middle and the -sbl-signature suffix', () => {
		for (const name of [
			'x-a-sbl-signature',
			'X-Service-SBL-Signature',
			'x-my-maker-sbl-signature',
		]) {
			expect([name, SIGNATURE_HEADER_PATTERN.test(name)]).toEqual([name, true]);
		}
		for (const name of [
			'x--sbl-signature',
			'x-sbl-signature',
			'sbl-signature',
			'y-a-sbl-signature',
			'xx-a-sbl-signature-',
			'x-a-sbl-signatures',
			'a-x-a-sbl-signature',
			'x-a-sbl_signature',
		]) {
			expect([name, SIGNATURE_HEADER_PATTERN.test(name)]).toEqual([name, false]);
		}
	});

	it('an empty array value counts as no header; each value of an array counts', () => {
		expect(signatureCandidates({ 'x-a-sbl-signature': [] })).toEqual([]);
		expect(signatureCandidates({ 'x-a-sbl-signature': undefined })).toEqual([]);
		expect(signatureCandidates({ 'x-a-sbl-signature': [], 'x-b-sbl-signature': 'v' })).toEqual([
			'v',
		]);
		expect(signatureCandidates({ 'x-a-sbl-signature': ['p', 'q'] })).toEqual(['p', 'q']);
	});

	it('a configured name is matched case-insensitively and trimmed; blank means the pattern', () => {
		const headers = { 'x-custom': 'c', 'x-a-sbl-signature': 's' };
		expect(signatureCandidates(headers, ' X-Custom ')).toEqual(['c']);
		expect(signatureCandidates(headers, '   ')).toEqual(['s']);
		expect(signatureCandidates(headers, null)).toEqual(['s']);
		expect(signatureCandidates(headers, 'x-other')).toEqual([]);
		expect(signatureCandidates({ 'X-Custom': 'c' }, 'x-custom')).toEqual(['c']);
	});

	it('signatureCandidates splits on commas, trims and drops empty pieces', () => {
		expect(
			signatureCandidates({
				'x-a-sbl-signature': ' a , ,b,',
				other: 'z',
				'x-b-sbl-signature': ['c', ' ', 'd,e'],
			}),
		).toEqual(['a', 'b', 'c', 'd', 'e']);
		expect(signatureCandidates({ 'x-a-sbl-signature': ',, ,' })).toEqual([]);
		expect(signatureCandidates({})).toEqual([]);
	});
});

describe('Include Headers with every header named', () => {
	it('keeps the rest as they are', () => {
		expect(
			headersWithoutSecrets({
				'x-custom': 'c',
				'Content-Type': 'application/json',
				'x-list': ['a', 'b'],
			}),
		).toStrictEqual({ 'x-custom': 'c', 'Content-Type': 'application/json', 'x-list': ['a', 'b'] });
		expect(headersWithoutSecrets({ 'X-Api-Key': 'k', Authorization: 'a', Accept: '*/*' })).toEqual({
			Accept: '*/*',
		});
	});

	it('matches "auth" only at the start or after a separator', () => {
		expect(
			Object.keys(
				headersWithoutSecrets({
					author: 'x',
					'x-auth': 'x',
					x_auth_id: 'x',
					'x.auth': 'x',
					oauthish: 'x',
					'x-author-name': 'x',
				}),
			),
		).toEqual(['oauthish']);
	});
});
