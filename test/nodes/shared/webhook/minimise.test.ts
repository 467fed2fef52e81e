/**
 * Issue 31, item 7: Minimise Personal Data walks the whole item — nested objects and arrays of the
 * payload, every identity-field name personal.ts knows, in any case, and the authorization code in
 * any case — and Include Headers keeps only the CloudEvents attributes whose content is public.
 * Pure functions; the trigger's HTTP-level tests are in test/nodes/ConsentFlowTrigger/minimise.integration.test.ts.
 *
 * Oracles written here: what each setting must leave (the list), the CloudEvents 1.0
 * context attributes that carry no personal content (specversion, type, source, id, time,
 * datacontenttype, dataschema), the depth a parsed body can have (envelope.ts MAX_DEPTH = 64).
 */
import {
	MINIMISE_DEFAULT,
	MINIMISE_DEPTH,
	MINIMISE_OPTIONS,
	MINIMISE_PARAMETER,
	maskNationalId,
	minimiseValues,
	headerNames,
	looksLikeToken,
	minimiseHeaders,
	minimiseMode,
	minimiseProperty,
	minimiseUnrecognisedItem,
} from '../../../../nodes/shared/webhook/minimise';
import { syntheticNationalId } from '../../../support/synthetic-ids';

const ID = syntheticNationalId(1);
const MASKED = `*********${ID.slice(-2)}`;
const CODE = 'authz-4e1d77';

/** An event item whose payload holds the identity number and code at several levels and spellings. */
function nestedItem() {
	return {
		event: 'consent.data',
		nationalId: ID,
		authorizationCode: CODE,
		payload: {
			flow: 'f',
			NationalId: ID,
			AUTHORIZATIONCODE: CODE,
			applicant: { ssn: ID, fodselsnummer: Number(ID), name: 'kept' },
			people: [
				{ fødselsnummer: ID, role: 'co' },
				{ PID: ID, authorizationCode: CODE },
				'text',
				7,
				null,
			],
			data: { tax: { netIncome: 512000, nationalId: ID }, income: [[{ pid: ID }]] },
			other: { nationalIdentity: 'not a listed name', code: 'kept' },
		},
	};
}

describe('minimiseValues walks the whole item', () => {
	test('mask: every identity field masked, every authorization code left out, the rest as received', () => {
		expect(minimiseValues(nestedItem(), 'mask')).toEqual({
			event: 'consent.data',
			nationalId: MASKED,
			payload: {
				flow: 'f',
				NationalId: MASKED,
				applicant: { ssn: MASKED, fodselsnummer: `********${ID.slice(-2)}`, name: 'kept' },
				people: [{ fødselsnummer: MASKED, role: 'co' }, { PID: MASKED }, 'text', 7, null],
				data: { tax: { netIncome: 512000, nationalId: MASKED }, income: [[{ pid: MASKED }]] },
				other: { nationalIdentity: 'not a listed name', code: 'kept' },
			},
		});
	});

	test('leaveOut: every identity field left out as well', () => {
		expect(minimiseValues(nestedItem(), 'leaveOut')).toEqual({
			event: 'consent.data',
			payload: {
				flow: 'f',
				applicant: { name: 'kept' },
				people: [{ role: 'co' }, {}, 'text', 7, null],
				data: { tax: { netIncome: 512000 }, income: [[{}]] },
				other: { nationalIdentity: 'not a listed name', code: 'kept' },
			},
		});
	});

	test('keep: the item itself, untouched', () => {
		const item = nestedItem();
		expect(minimiseValues(item, 'keep')).toBe(item);
		expect(item).toEqual(nestedItem());
	});

	test('the input is not changed; key order kept', () => {
		const item = nestedItem();
		minimiseValues(item, 'mask');
		minimiseValues(item, 'leaveOut');
		expect(item).toEqual(nestedItem());
		expect(Object.keys(minimiseValues(item, 'mask').payload as object)).toEqual([
			'flow',
			'NationalId',
			'applicant',
			'people',
			'data',
			'other',
		]);
	});

	test('mask: an identity value that cannot be masked to its last digits is left out; null stays null', () => {
		expect(
			minimiseValues(
				{
					nationalId: null,
					payload: { ssn: { value: ID }, pid: [ID], nationalId: true, fodselsnummer: 12345 },
				},
				'mask',
			),
		).toEqual({ nationalId: null, payload: { fodselsnummer: '***45' } });
	});

	test('a `__proto__` key is kept as a key, not made the prototype', () => {
		const item = JSON.parse(`{"payload":{"__proto__":{"nationalId":"${ID}","x":1}}}`) as Record<
			string,
			unknown
		>;
		const out = minimiseValues(item, 'leaveOut');
		const payload = out.payload as Record<string, unknown>;
		expect(Object.getPrototypeOf(payload)).toBe(Object.prototype);
		expect(Object.getOwnPropertyDescriptor(payload, '__proto__')?.value).toEqual({ x: 1 });
	});

	/** `levels` nested arrays around `leaf` (by default an object holding the identity number). */
	function nested(levels: number, leaf: unknown = { nationalId: ID, keep: 1 }): unknown {
		let value = leaf;
		for (let level = 0; level < levels; level++) value = [value];
		return value;
	}

	test('walked as deep as a parsed body can be; anything deeper is left out (it could not be checked)', () => {
		expect(MINIMISE_DEPTH).toBe(65);
		// item (0) → payload (1) → arrays → the object at level MINIMISE_DEPTH - 1: walked
		const deepest = minimiseValues({ payload: nested(MINIMISE_DEPTH - 2) }, 'leaveOut');
		expect(deepest).toEqual({ payload: nested(MINIMISE_DEPTH - 2, { keep: 1 }) });
		// one level more: the object is at MINIMISE_DEPTH, emptied
		const deeper = JSON.stringify(minimiseValues({ payload: nested(MINIMISE_DEPTH - 1) }, 'mask'));
		expect(deeper).toBe(
			`{"payload":${'['.repeat(MINIMISE_DEPTH - 1)}{}${']'.repeat(MINIMISE_DEPTH - 1)}}`,
		);
		// an array at MINIMISE_DEPTH is emptied as well
		const array = JSON.stringify(minimiseValues({ payload: nested(MINIMISE_DEPTH) }, 'mask'));
		expect(array).toBe(
			`{"payload":${'['.repeat(MINIMISE_DEPTH - 1)}[]${']'.repeat(MINIMISE_DEPTH - 1)}}`,
		);
	});
});

describe('minimiseHeaders (Include Headers)', () => {
	/** On the allow-list; CloudEvents attributes are not (binary mode is not taken). */
	const PUBLIC = { 'content-type': 'application/json' };
	const headers = {
		...PUBLIC,
		'ce-type': 'consent.data',
		'ce-subject': `applicant ${ID}`,
		'ce-partitionkey': 'Kari Nordmann',
		'CE-Traceparent': '00-abc',
		'x-request-id': `r-1 ${ID}`,
		'x-forwarded-for': ['10.0.0.1', `row 3 ${ID}`],
		'x-count': 3,
		cookie: undefined,
	};

	test.each([
		['mask', MASKED],
		['leaveOut', '***********'],
	] as const)(
		'%s: only the allow-list (no CloudEvents attribute), identity numbers masked',
		(mode, masked) => {
			expect(minimiseHeaders({ ...headers, 'user-agent': `agent ${ID}` }, mode)).toEqual({
				...PUBLIC,
				'user-agent': `agent ${masked}`,
			});
		},
	);

	test('Additional Headers adds names (any case); values found by value are masked', () => {
		expect(
			minimiseHeaders(headers, 'mask', headerNames(' X-Request-ID,x-forwarded-for  x-count')),
		).toEqual({
			...PUBLIC,
			'x-request-id': `r-1 ${MASKED}`,
			'x-forwarded-for': ['10.0.0.1', `row 3 ${MASKED}`],
			'x-count': 3,
		});
	});

	test('header names in any case; an allowed value is masked too', () => {
		expect(
			minimiseHeaders({ 'User-Agent': `a/${ID}`, 'CE-Type': 'x', 'Content-Type': 'j' }, 'mask'),
		).toEqual({
			'User-Agent': `a/${MASKED}`,
			'Content-Type': 'j',
		});
	});

	test('keep: the allow-list too, values as received', () => {
		expect(minimiseHeaders(headers, 'keep')).toEqual(PUBLIC);
		expect(minimiseHeaders({ 'x-note': `r ${ID}` }, 'keep', ['x-note'])).toEqual({
			'x-note': `r ${ID}`,
		});
	});

	// issue 42: headers proxies in front of n8n add
	const JWT = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJrYXJpIn0.c2lnbmF0dXJl';
	test.each([
		['cf-access-jwt-assertion', JWT],
		['x-goog-iap-jwt-assertion', JWT],
		['x-amzn-oidc-data', JWT],
		['x-jwt-assertion', JWT],
		['dpop', JWT],
		['x-ms-client-principal', 'eyJhdXRoX3R5cCI6ImFhZCJ9'],
		['x-hmac', 'f1d2d2f924e986ac86fdf7b36c94bcdf32beec15'],
		['x-webhook-hmac-sha256', 'f1d2d2f924e986ac86fdf7b36c94bcdf32beec15'],
		['x-signing-key', 'k'],
	])('%s is left out in every mode, also when named in Additional Headers', (name, value) => {
		for (const mode of ['keep', 'mask', 'leaveOut'] as const) {
			expect(minimiseHeaders({ [name]: value }, mode)).toEqual({});
			expect(minimiseHeaders({ [name]: value }, mode, [name])).toEqual({});
		}
	});

	test.each([
		['x-trace', JWT],
		['x-trace', `Bearer abcdefgh12345678`],
		['x-trace', 'dpop abcdefgh12345678'],
		['x-trace', 'sha256=f1d2d2f924e986ac86fdf7b36c94bcdf32beec15'],
		['x-trace', 'Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MGFiY2RlZmdo'],
		['user-agent', 'f1d2d2f924e986ac86fdf7b36c94bcdf32beec15f1d2'],
	])('a value that looks like a token is left out even when allowed: %s %s', (name, value) => {
		expect(minimiseHeaders({ [name]: value }, 'keep', ['x-trace'])).toEqual({});
	});

	test.each([
		'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36',
		'3f2504e0-4f89-11d3-9a0c-0305e82c3301',
		'axios/1.7.2',
		'https://sbl.example/flows/abcdefghijklmnop1234567890',
	])('a value that is no token stays: %s', (value) => {
		expect(looksLikeToken(value)).toBe(false);
	});
});

describe('the rest of the module', () => {
	test.each([
		[ID, MASKED],
		['12345', '***45'],
		['1234', '****'],
		['', ''],
		[12345678901, '*********01'],
		[Number.NaN, Number.NaN],
		[null, null],
		[{ id: 1 }, { id: 1 }],
	])('maskNationalId(%p) = %p', (value, masked) => {
		expect(maskNationalId(value)).toEqual(masked);
	});

	test.each([
		['keep', 'keep'],
		['mask', 'mask'],
		['leaveOut', 'leaveOut'],
		['Mask', 'leaveOut'],
		[undefined, 'leaveOut'],
	])('minimiseMode(%p) = %p', (value, mode) => {
		expect(minimiseMode(value)).toBe(mode);
	});

	test('minimiseUnrecognisedItem: rawBody becomes rawBodyLength in its place; keep returns the item', () => {
		const item = { event: null, rawBody: 'abc', rawBodyTruncated: true, reason: 'not-json' };
		expect(minimiseUnrecognisedItem(item, 'abcdef', 'mask')).toEqual({
			event: null,
			rawBodyLength: 6,
			reason: 'not-json',
		});
		expect(Object.keys(minimiseUnrecognisedItem(item, 'abcdef', 'leaveOut'))).toEqual([
			'event',
			'rawBodyLength',
			'reason',
		]);
		expect(minimiseUnrecognisedItem(item, 'abcdef', 'keep')).toBe(item);
	});

	test('the parameter: names, values and descriptions of the three settings; Mask by default', () => {
		expect(MINIMISE_PARAMETER).toBe('minimisePersonalData');
		expect(MINIMISE_DEFAULT).toBe('mask');
		expect(MINIMISE_OPTIONS).toEqual([
			{
				name: 'Keep Everything',
				value: 'keep',
				description: 'Every field as the service sent it',
			},
			{
				name: 'Leave Out National ID',
				value: 'leaveOut',
				description:
					'National IDs and authorization codes left out; other identity numbers as ***********',
			},
			{
				name: 'Mask National ID',
				value: 'mask',
				description: 'Identity numbers shown as *********NN; authorization codes left out',
			},
		]);
		const base = {
			displayName: 'Minimise Personal Data',
			name: 'minimisePersonalData',
			type: 'options',
			options: MINIMISE_OPTIONS,
			description: 'd',
		};
		expect(minimiseProperty('d', { operation: ['x'] })).toEqual({
			...base,
			default: 'mask',
			displayOptions: { show: { operation: ['x'] } },
		});
		expect(minimiseProperty('d')).toEqual({ ...base, default: 'mask' });
	});
});
