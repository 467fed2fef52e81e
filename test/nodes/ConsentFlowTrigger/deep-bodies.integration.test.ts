// Anything acknowledged must be runnable: n8n has to be able to save the item. A body nested
// deeper than 64 levels (the top-level object or array is level 1) is not parsed; it goes to
// Unrecognised as `too-deep` with at most the first 8,192 characters of its text. Its id, read
// from the raw bytes, is remembered like any other (issue 26: before, every copy ran again).
import fc from 'fast-check';

import { DEDUPE_KEY } from '../../../nodes/ConsentFlowTrigger/dedupe';
import { parseDelivery } from '../../support/parse';
import { nestingDepth, postSigned } from './helpers';
import { emitted, useTriggerHarness } from './trigger-harness';

const harness = useTriggerHarness();

const MAX_DEPTH = 64;
const RAW_LIMIT = 8192;

/** An envelope whose payload nests `levels` objects (the envelope itself is one more level). */
const nestedEnvelope = (webhookId: string, levels: number) =>
	`{"webhookId":"${webhookId}","event":"consent.data","payload":${'{"a":'.repeat(levels - 1)}{}${'}'.repeat(levels - 1)}}`;

describe('nesting depth over HTTP', () => {
	it('a signed body nested 200,000 levels deep goes to Unrecognised as too-deep, savable, its id remembered', async () => {
		const h = await harness();
		const body = nestedEnvelope('deep-1', 200000);
		const first = await postSigned(h.url, body);
		expect(first.status).toBe(200);
		expect(first.json).toEqual({
			received: true,
			event: null,
			webhookId: 'deep-1',
			status: 'emitted',
		});
		const item = emitted(h);
		expect(item.index).toBe(10);
		expect(item.json).toMatchObject({ reason: 'too-deep', event: null, webhookId: 'deep-1' });
		const raw = item.json.rawBody as string;
		expect(raw.length).toBeLessThanOrEqual(RAW_LIMIT);
		expect(body.startsWith(raw)).toBe(true);
		expect(item.json.rawBodyTruncated).toBe(true);
		// n8n can save it: the item serialises.
		expect(() => JSON.stringify(item.json)).not.toThrow();
		// Remembered: a second copy is a duplicate and does not run again; the id was saved.
		const again = await postSigned(h.url, body);
		expect(again.json).toMatchObject({ status: 'duplicate', webhookId: 'deep-1' });
		expect(h.executions).toHaveLength(1);
		expect(h.db.staticData ?? '').toContain('deep-1');
		// The same id in an ordinary body is the same delivery.
		const plain = '{"webhookId":"deep-1","event":"consent.data"}';
		expect((await postSigned(h.url, plain)).json).toMatchObject({ status: 'duplicate' });
	});

	it('64 levels are an ordinary delivery; 65 are too deep', async () => {
		const h = await harness();
		const ok = nestedEnvelope('depth-64', MAX_DEPTH - 1);
		const deep = nestedEnvelope('depth-65', MAX_DEPTH);
		expect([nestingDepth(ok), nestingDepth(deep)]).toEqual([MAX_DEPTH, MAX_DEPTH + 1]);
		await postSigned(h.url, ok);
		expect(emitted(h)).toMatchObject({ index: 4, json: { webhookId: 'depth-64' } });
		expect(() => JSON.stringify(emitted(h).json)).not.toThrow();
		expect(h.db.staticData).toContain('depth-64');
		await postSigned(h.url, deep);
		expect(emitted(h)).toMatchObject({
			index: 10,
			json: { reason: 'too-deep', rawBody: deep, rawBodyTruncated: false },
		});
		expect(h.db.staticData).toContain('depth-65');
	});

	it('is filtered like any unrecognised delivery when Unrecognised is not selected', async () => {
		const h = await harness({ parameters: { events: ['consent.data'] } });
		const r = await postSigned(h.url, nestedEnvelope('deep-2', 1000));
		expect(r.json).toMatchObject({ status: 'filtered', webhookId: 'deep-2' });
		expect(h.executions).toHaveLength(0);
	});
});

describe('depth is measured on the raw bytes', () => {
	it.each([
		['deep arrays', `${'['.repeat(100000)}${']'.repeat(100000)}`, true],
		[
			'brackets inside strings do not count',
			JSON.stringify({ event: 'consent.data', s: '[{'.repeat(5000) }),
			false,
		],
		[
			'escaped quotes inside strings',
			`{"event":"consent.data","s":"\\"${'['.repeat(200)}"}`,
			false,
		],
		['text that is not JSON, with many braces', '{'.repeat(MAX_DEPTH + 1), true],
		['text that is not JSON, shallow', 'x{y[z', false],
	])('%s', (_label, body, tooDeep) => {
		expect(nestingDepth(body) > MAX_DEPTH).toBe(tooDeep);
		const parsed = parseDelivery(body);
		expect(parsed.kind === 'unrecognised' && parsed.reason === 'too-deep').toBe(tooDeep);
	});

	it('reads the id of a too-deep body from its raw bytes: shown and keyed', () => {
		const parsed = parseDelivery(Buffer.from(nestedEnvelope('w-deep', 500)));
		expect(parsed).toMatchObject({
			kind: 'unrecognised',
			reason: 'too-deep',
			webhookId: 'w-deep',
			deliveryKey: 'w-deep',
		});
		expect(JSON.stringify(parsed)).not.toContain(DEDUPE_KEY);
	});
});

describe('every signed id is remembered, parsed or not (issue 26)', () => {
	it('property: a too-deep or unparsable body has the duplicate key of the same id in a plain envelope', () => {
		fc.assert(
			fc.property(
				fc.oneof(fc.string({ minLength: 1, maxLength: 70 }), fc.integer().map(String)),
				fc.integer({ min: MAX_DEPTH, max: 3000 }),
				fc.constantFrom('too-deep', 'truncated'),
				(id, levels, shape) => {
					const token = /^-?\d+$/.test(id) && shape === 'truncated' ? id : JSON.stringify(id);
					const plain = parseDelivery(`{"webhookId":${token},"event":"consent.data"}`);
					fc.pre(plain.deliveryKey !== null);
					const body =
						shape === 'too-deep'
							? `{"webhookId":${token},"event":"consent.data","payload":${'['.repeat(levels)}${']'.repeat(levels)}}`
							: `{"webhookId":${token},"event":"consent.data","payload":{"a":`;
					const parsed = parseDelivery(body);
					expect(parsed).toMatchObject({
						kind: 'unrecognised',
						reason: shape === 'too-deep' ? 'too-deep' : 'not-json',
						deliveryKey: plain.deliveryKey,
						webhookId: plain.webhookId,
					});
				},
			),
			{ numRuns: 200 },
		);
	});

	it('a copy of an unparsable signed body is a duplicate (sent as text/plain: n8n parses no JSON there)', async () => {
		const h = await harness();
		const body = '{"webhookId":"nj-1","event":"consent.data","payload":{"a":';
		const headers = { extraHeaders: { 'content-type': 'text/plain' } };
		expect((await postSigned(h.url, body, headers)).json).toMatchObject({
			status: 'emitted',
			webhookId: 'nj-1',
		});
		expect((await postSigned(h.url, body, headers)).json).toMatchObject({ status: 'duplicate' });
		expect(h.executions).toHaveLength(1);
		expect(emitted(h).json).toMatchObject({ reason: 'not-json', webhookId: 'nj-1' });
	});
});
