// Duplicate keys are exact: different webhook ids never collide (numbers beyond 2^53, 1 and
// "1", ids whose bytes are not valid UTF-8), the same id always matches, and long ids are kept
// as fixed-size digests so the remembered set has a known maximum size.
import * as fc from 'fast-check';

import { MAX_REMEMBERED, recordDeliveryShared } from '../../../../nodes/ConsentFlowTrigger/dedupe';
import { parseDelivery } from '../../../support/parse';
import { maxStateBytes, postSigned } from '../../ConsentFlowTrigger/helpers';
import { emitted, useTriggerHarness } from '../../ConsentFlowTrigger/trigger-harness';

const harness = useTriggerHarness();

/** A signed body whose `webhookId` member is exactly the bytes `idToken`. */
const bodyWithId = (idToken: Buffer | string, member = 'webhookId') =>
	Buffer.concat([
		Buffer.from(`{"${member}":`),
		Buffer.isBuffer(idToken) ? idToken : Buffer.from(idToken),
		Buffer.from(',"event":"consent.data","payload":{"flow":"f-1"}}'),
	]);

const ackStatus = (json: unknown) => (json as { status: string }).status;

describe('different ids are different deliveries (over HTTP)', () => {
	it.each([
		['numbers beyond 2^53', '12345678901234567890', '12345678901234567891'],
		['a number and the string of it', '1', '"1"'],
		[
			'two strings whose bytes are not UTF-8',
			Buffer.from([0x22, 0xff, 0x22]),
			Buffer.from([0x22, 0xfe, 0x22]),
		],
		['a lone surrogate and U+FFFD', '"\\ud800"', '"\\ufffd"'],
		['an id with and without surrounding spaces', '"w-1"', '"  w-1 "'],
		['1.0 and 1', '1.0', '1'],
		['the same id under webhookId and a digest-looking id', '"abc"', '"~h:abc"'],
	])('%s: both are emitted, and each repeat is a duplicate', async (_label, a, b) => {
		const h = await harness();
		const first = await postSigned(h.url, bodyWithId(a));
		const second = await postSigned(h.url, bodyWithId(b));
		expect([first.status, second.status]).toEqual([200, 200]);
		expect([ackStatus(first.json), ackStatus(second.json)]).toEqual(['emitted', 'emitted']);
		expect(h.executions).toHaveLength(2);
		expect(ackStatus((await postSigned(h.url, bodyWithId(a))).json)).toBe('duplicate');
		expect(ackStatus((await postSigned(h.url, bodyWithId(b))).json)).toBe('duplicate');
		expect(h.executions).toHaveLength(2);
	});

	it('shows a large numeric id as its exact digits (a string), in the item and the answer', async () => {
		const h = await harness();
		const response = await postSigned(h.url, bodyWithId('12345678901234567891'));
		expect(response.json).toMatchObject({ webhookId: '12345678901234567891', status: 'emitted' });
		expect(emitted(h).json.webhookId).toBe('12345678901234567891');
	});

	it('the same id spelled with an escape is the same delivery (the JSON string value is compared)', async () => {
		const h = await harness();
		expect(ackStatus((await postSigned(h.url, bodyWithId('"abc"'))).json)).toBe('emitted');
		expect(ackStatus((await postSigned(h.url, bodyWithId('"\\u0061bc"'))).json)).toBe('duplicate');
	});

	it('the older `id` member and `webhookId` share one key space', async () => {
		const h = await harness();
		expect(ackStatus((await postSigned(h.url, bodyWithId('"w-9"', 'id'))).json)).toBe('emitted');
		expect(ackStatus((await postSigned(h.url, bodyWithId('"w-9"'))).json)).toBe('duplicate');
		expect(ackStatus((await postSigned(h.url, bodyWithId('9', 'id'))).json)).toBe('emitted');
	});
});

describe('which member is the id (as JSON.parse reads the object)', () => {
	it.each([
		[
			'a nested webhookId is not the id',
			'{"payload":{"webhookId":"inner"},"event":"consent.data"}',
			null,
		],
		[
			'the last of repeated members wins',
			'{"webhookId":"a","event":"consent.data","webhookId":"b"}',
			'b',
		],
		['member names are compared decoded', '{"webhook\\u0049d":"x","event":"consent.data"}', 'x'],
		[
			'a null webhookId falls back to id',
			'{"webhookId":null,"id":"old","type":"consent.data"}',
			'old',
		],
		['a blank webhookId falls back to id', '{"webhookId":" ","id":7,"type":"consent.data"}', '7'],
		['an object id is no id', '{"webhookId":{"v":1},"type":"consent.data"}', null],
		['spaces around the colon', '{ "webhookId" :\t"sp" , "type":"consent.data"}', 'sp'],
	])('%s', (_label, body, expected) => {
		expect(parseDelivery(body).webhookId).toBe(expected);
	});
});

describe('long ids are remembered as fixed-size digests', () => {
	it('five signed deliveries with 2 MB ids: all emitted, repeats are duplicates, static data stays small', async () => {
		const h = await harness();
		const ids = ['a', 'b', 'c', 'd', 'e'].map((c) => c.repeat(2 * 1024 * 1024));
		for (const id of ids) {
			const r = await postSigned(h.url, bodyWithId(JSON.stringify(id)));
			expect(ackStatus(r.json)).toBe('emitted');
		}
		// One character more or less is another id.
		const shorter = await postSigned(h.url, bodyWithId(JSON.stringify(ids[0].slice(1))));
		expect(ackStatus(shorter.json)).toBe('emitted');
		expect(ackStatus((await postSigned(h.url, bodyWithId(JSON.stringify(ids[2])))).json)).toBe(
			'duplicate',
		);
		expect(h.db.staticData).not.toBeNull();
		expect(Buffer.byteLength(h.db.staticData!)).toBeLessThan(1000);
	}, 30000);

	it(`${MAX_REMEMBERED} remembered worst-case ids stay within maxStateBytes`, () => {
		// Ids at the edge of being kept as they are, just beyond it, escapes, and numbers.
		const ids: string[] = [];
		for (let i = 0; ids.length < MAX_REMEMBERED + 50; i++) {
			const n = String(i).padStart(6, '0');
			ids.push(
				JSON.stringify(`${'ø'.repeat(29)}${n}`),
				JSON.stringify(`${'ø'.repeat(30)}${n}`),
				JSON.stringify(`\u0001"\\${'x'.repeat(60)}${n}`),
				`${'9'.repeat(70)}${n}`,
				JSON.stringify(`${'€'.repeat(19)}${n}`),
			);
		}
		const keys = ids.map((token) => parseDelivery(bodyWithId(token)).deliveryKey);
		expect(keys).not.toContain(null);
		expect(new Set(keys).size).toBe(keys.length);
		// The database holds all but the last; the last delivery is recorded on top.
		const stored = { version: 3, keys: keys.slice(0, -1).join('\n') };
		const { state } = recordDeliveryShared(
			'wf\u0000T',
			stored,
			keys[keys.length - 1]!,
			MAX_REMEMBERED,
		);
		// what is saved (version 3): the keys, oldest first, one per line
		const json = JSON.stringify({ version: 3, keys: state.ids.join('\n') });
		expect(state.ids).toHaveLength(MAX_REMEMBERED);
		expect(Buffer.byteLength(json)).toBeLessThanOrEqual(maxStateBytes(MAX_REMEMBERED));
		expect(maxStateBytes(MAX_REMEMBERED)).toBe(690021);
	});
});

// ---- the rule, against a second implementation --------------------------------------------

/** An id token as it appears in a body: its bytes and what it stands for. */
interface IdToken {
	bytes: Buffer;
	kind: 'string' | 'bytes' | 'number';
	/** string: the JSON string value; bytes: the raw bytes in hex; number: the literal. */
	value: string;
}

/** Escapes every character of `s` as \uXXXX (another spelling of the same JSON string). */
const escapeAll = (s: string) =>
	`"${Array.from({ length: s.length }, (_, i) => `\\u${s.charCodeAt(i).toString(16).padStart(4, '0')}`).join('')}"`;

// Strings that look like the tagged key forms are ids like any other.
const lookalike = fc.constantFrom('', '', '', '~', '~s:"', '~n:1', '~b:ff', '~h:');

const stringToken = fc
	.tuple(lookalike, fc.string({ unit: 'binary', maxLength: 90 }), fc.boolean())
	.map(([prefix, rest, escaped]) => [prefix + rest, escaped] as const)
	.filter(([s]) => s.trim() !== '')
	.map(
		([s, escaped]): IdToken => ({
			bytes: Buffer.from(escaped ? escapeAll(s) : JSON.stringify(s)),
			kind: 'string',
			value: s,
		}),
	);

// Raw bytes inside the quotes that are not valid UTF-8 (no quote, backslash or control byte).
const invalidUtf8Token = fc
	.tuple(
		// ASCII around the bad byte, so that the bad byte can never complete a valid sequence.
		fc
			.uint8Array({ minLength: 0, maxLength: 40 })
			.map((a) => a.filter((b) => b >= 0x20 && b < 0x7f && b !== 0x22 && b !== 0x5c)),
		fc.constantFrom(0x80, 0xbf, 0xc0, 0xc1, 0xf5, 0xff, 0xed),
		fc.nat(40),
	)
	.map(([base, bad, at]): IdToken => {
		const inner = Buffer.from(base);
		const i = Math.min(at, inner.length);
		const raw = Buffer.concat([inner.subarray(0, i), Buffer.from([bad, 0x41]), inner.subarray(i)]);
		return {
			bytes: Buffer.concat([Buffer.from('"'), raw, Buffer.from('"')]),
			kind: 'bytes',
			value: raw.toString('hex'),
		};
	});

const numberToken = fc
	.tuple(
		fc.boolean(),
		fc.oneof(fc.constant('0'), fc.stringMatching(/^[1-9][0-9]{0,80}$/)),
		fc.option(fc.stringMatching(/^[0-9]{1,5}$/), { nil: undefined }),
		fc.option(fc.stringMatching(/^[eE][+-]?[0-9]{1,3}$/), { nil: undefined }),
	)
	.map(([minus, int, frac, exp]): IdToken => {
		const literal = `${minus ? '-' : ''}${int}${frac === undefined ? '' : `.${frac}`}${exp ?? ''}`;
		return { bytes: Buffer.from(literal), kind: 'number', value: literal };
	});

const idToken = fc.oneof(stringToken, invalidUtf8Token, numberToken);

/** The rule: two ids are the same delivery iff same kind and same value. */
const sameId = (a: IdToken, b: IdToken) => a.kind === b.kind && a.value === b.value;

const keyOf = (token: IdToken) => parseDelivery(bodyWithId(token.bytes)).deliveryKey;

describe('deliveryKey (property, against the rule)', () => {
	it('equal keys exactly for equal ids; every key at most 67 characters of JSON-safe text', () => {
		fc.assert(
			fc.property(idToken, idToken, (a, b) => {
				const [ka, kb] = [keyOf(a), keyOf(b)];
				expect(ka).not.toBeNull();
				expect(ka === kb).toBe(sameId(a, b));
				for (const k of [ka!, kb!])
					expect(Buffer.byteLength(JSON.stringify(k))).toBeLessThanOrEqual(69);
			}),
			{ numRuns: 3000 },
		);
	});

	it('two spellings of one JSON string give one key; a lone surrogate is not U+FFFD', () => {
		fc.assert(
			fc.property(stringToken, (t) => {
				const escaped: IdToken = { ...t, bytes: Buffer.from(escapeAll(t.value)) };
				expect(keyOf(escaped)).toBe(keyOf(t));
			}),
			{ numRuns: 500 },
		);
	});
});
