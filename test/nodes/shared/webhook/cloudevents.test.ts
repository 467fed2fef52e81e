// CloudEvents 1.0 deliveries (issue 26), against the published specification, not the code:
// - CloudEvents core spec, "Context Attributes" → "REQUIRED Attributes" (id, source,
//   specversion, type: non-empty strings; specversion "1.0") and "OPTIONAL Attributes" (time).
// - JSON Event Format, "3.1 Handling of data" (`data` or `data_base64`, MUST NOT both).
// - HTTP Protocol Binding, "3. HTTP Message Mapping" (mode from Content-Type), "3.1 Binary
//   Content Mode" (3.1.3.1 HTTP Header Names: `ce-` + attribute; 3.1.3.2 HTTP Header Values:
//   percent-encoding, invalid UTF-8 MUST be rejected), "3.2 Structured Content Mode"
//   (`application/cloudevents+json`), "3.3 Batched Content Mode"
//   (`application/cloudevents-batch+json`, only when solicited).
import { request } from 'undici';
import fc from 'fast-check';

import {
	BATCH_ANSWER,
	ceHeaders,
	decodeHeaderValue,
	eventOfType,
	isCloudEventsBatch,
	mediaType,
	parseIncoming,
	type IncomingDelivery,
} from '../../../../nodes/shared/webhook/cloudevents';
import { parseDelivery } from '../../../../nodes/shared/webhook/envelope';
import { PUBLISHED_EVENTS, post, sign } from '../../ConsentFlowTrigger/helpers';
import { emitted, useTriggerHarness } from '../../ConsentFlowTrigger/trigger-harness';

const STRUCTURED = 'application/cloudevents+json; charset=utf-8';

/** A structured-mode CloudEvent as the JSON Event Format writes it. */
function structured(overrides: Record<string, unknown> = {}): string {
	return JSON.stringify({
		specversion: '1.0',
		id: 'ce-1',
		source: 'https://sbl.example/flows',
		type: 'consent.accepted',
		time: '2030-01-02T03:04:05Z',
		datacontenttype: 'application/json',
		data: { flow: 'flow-1', externalId: 'loan-1', nationalId: '01010112345' },
		...overrides,
	});
}

/** The binary-mode headers of 3.1.3.1 (values percent-encoded by the test's own encoder). */
function binaryHeaders(overrides: Record<string, string> = {}): Record<string, string> {
	return {
		'content-type': 'application/json',
		'ce-specversion': '1.0',
		'ce-id': 'ce-b1',
		'ce-source': '/sbl/flows',
		'ce-type': 'consent.rejected',
		'ce-time': '2030-01-02T03:04:05Z',
		...overrides,
	};
}

/** 3.1.3.2, "Steps to encode a Unicode character", written from the text of the spec. */
function percentEncode(value: string): string {
	let out = '';
	for (const ch of value) {
		const code = ch.codePointAt(0)!;
		if (code === 0x20 || code === 0x22 || code === 0x25 || code < 0x21 || code > 0x7e) {
			for (const byte of Buffer.from(ch, 'utf8'))
				out += `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
		} else out += ch;
	}
	return out;
}

const parse = (
	body: string,
	headers: Record<string, string>,
	rawHeaders?: string[],
): IncomingDelivery => parseIncoming(Buffer.from(body, 'utf8'), { headers, rawHeaders });

describe('structured mode (3.2 Structured Content Mode)', () => {
	it('maps type → event, id → webhookId, time → timestamp, data → payload', () => {
		const d = parse(structured(), { 'content-type': STRUCTURED });
		expect(d).toMatchObject({
			kind: 'event',
			event: 'consent.accepted',
			webhookId: 'ce-1',
			deliveryKey: 'ce-1',
			timestamp: '2030-01-02T03:04:05Z',
			hasTimestamp: true,
			payload: { flow: 'flow-1', externalId: 'loan-1' },
			cloudEvent: {
				mode: 'structured',
				specversion: '1.0',
				source: 'https://sbl.example/flows',
				type: 'consent.accepted',
			},
		});
	});

	it('is recognised by its top-level specversion also under application/json (the service envelope never has one)', () => {
		expect(parse(structured(), { 'content-type': 'application/json' })).toMatchObject({
			kind: 'event',
			webhookId: 'ce-1',
		});
		// The service's own envelope is parsed exactly as before.
		const legacy = JSON.stringify({
			webhookId: 'w1',
			event: 'consent.created',
			payload: { flow: 'f' },
		});
		expect(parse(legacy, { 'content-type': 'application/json' })).toEqual(
			parseDelivery(Buffer.from(legacy)),
		);
		// Its older form has id and type, but no specversion: still the envelope.
		const older = JSON.stringify({ id: 'o1', type: 'consent.deleted', payload: {} });
		expect(parse(older, {})).toEqual(parseDelivery(Buffer.from(older)));
	});

	it('routes every published event, also under a reverse-DNS prefix, to the same output as the envelope', () => {
		for (const event of PUBLISHED_EVENTS) {
			const envelope = parseDelivery(Buffer.from(JSON.stringify({ webhookId: 'x', event })));
			for (const type of [event, event.toUpperCase(), `no.example.sbl.${event}`]) {
				const d = parse(structured({ type }), { 'content-type': STRUCTURED });
				expect([type, d.kind, d.kind === 'event' && d.outputIndex]).toEqual([
					type,
					'event',
					envelope.kind === 'event' && envelope.outputIndex,
				]);
			}
		}
		for (const type of ['com.example.other', 'consent.createdX', 'xconsent.created', 'consent']) {
			expect(parse(structured({ type }), { 'content-type': STRUCTURED })).toMatchObject({
				kind: 'unrecognised',
				reason: 'unknown-event',
				event: type,
				webhookId: 'ce-1',
			});
		}
	});

	it('a missing or mistyped REQUIRED attribute: Unrecognised (invalid-cloudevent)', () => {
		const invalid = [
			{ specversion: '0.3' },
			{ specversion: 1 },
			{ id: 42 },
			{ id: '' },
			{ id: '   ' },
			{ id: null },
			{ source: '' },
			{ source: undefined },
			{ type: '' },
			{ type: ['consent.accepted'] },
			{ time: 1700000000 },
		];
		for (const change of invalid) {
			const d = parse(structured(change), { 'content-type': STRUCTURED });
			expect([change, d.kind, d.kind === 'unrecognised' && d.reason]).toEqual([
				change,
				'unrecognised',
				'invalid-cloudevent',
			]);
		}
		// A number id is no CloudEvent id, but it is still the delivery's id (remembered, see dedupe).
		expect(parse(structured({ id: 42 }), { 'content-type': STRUCTURED })).toMatchObject({
			webhookId: '42',
			deliveryKey: '~n:42',
		});
		// Not an object: the body has no specversion, so it is read as the envelope whatever the
		// Content-Type says (issue 31: the unsigned Content-Type never picks the form).
		expect(parse('[1]', { 'content-type': STRUCTURED })).toMatchObject({ reason: 'no-event' });
		expect(parse('{"specversion":"1.0",', { 'content-type': STRUCTURED })).toMatchObject({
			reason: 'not-json',
		});
	});

	it('data_base64 (JSON Event Format 3.1) is not taken apart: Unrecognised; with data as well it is invalid', () => {
		const base64 = { data: undefined, data_base64: Buffer.from('{"flow":"f"}').toString('base64') };
		expect(parse(structured(base64), { 'content-type': STRUCTURED })).toMatchObject({
			kind: 'unrecognised',
			reason: 'unsupported-data',
			webhookId: 'ce-1',
		});
		expect(
			parse(structured({ data_base64: 'e30=' }), { 'content-type': STRUCTURED }),
		).toMatchObject({
			reason: 'invalid-cloudevent',
		});
		for (const data of ['text', 5, [1, 2]]) {
			expect(parse(structured({ data }), { 'content-type': STRUCTURED })).toMatchObject({
				reason: 'unsupported-data',
			});
		}
		expect(parse(structured({ data: null }), {})).toMatchObject({ kind: 'event', payload: null });
		expect(parse(structured({ data: undefined }), {})).toMatchObject({
			kind: 'event',
			payload: null,
		});
	});

	it('property: the id is the same duplicate key as the same webhookId in the envelope', () => {
		fc.assert(
			fc.property(fc.string({ minLength: 1, maxLength: 80 }), (id) => {
				const ce = parse(structured({ id }), { 'content-type': STRUCTURED });
				const envelope = parseDelivery(
					Buffer.from(JSON.stringify({ webhookId: id, event: 'consent.accepted' })),
				);
				expect(ce.deliveryKey).toBe(envelope.deliveryKey);
			}),
			{ numRuns: 300 },
		);
	});
});

describe('binary mode (3.1 Binary Content Mode)', () => {
	it('reads the attributes from ce- headers and the body as data', () => {
		const body = JSON.stringify({ flow: 'flow-9', nationalId: '01010112345' });
		expect(parse(body, binaryHeaders())).toMatchObject({
			kind: 'event',
			event: 'consent.rejected',
			webhookId: 'ce-b1',
			deliveryKey: 'ce-b1',
			timestamp: '2030-01-02T03:04:05Z',
			payload: { flow: 'flow-9' },
			cloudEvent: {
				mode: 'binary',
				specversion: '1.0',
				source: '/sbl/flows',
				type: 'consent.rejected',
			},
		});
		// An empty body: no data.
		expect(parse('', binaryHeaders())).toMatchObject({ kind: 'event', payload: null });
	});

	it('3.1.3.2: header values are percent-decoded (and double-quoted ones unquoted); invalid UTF-8 is rejected', () => {
		const id = 'id med ø, "€" og 😀';
		expect(parse('{}', binaryHeaders({ 'ce-id': percentEncode(id) }))).toMatchObject({
			webhookId: id,
			kind: 'event',
		});
		expect(decodeHeaderValue('Euro%20%E2%82%AC%20%F0%9F%98%80')).toBe('Euro € 😀');
		expect(decodeHeaderValue('%e2%82%ac')).toBe('€');
		expect(decodeHeaderValue('"a b\\"c"')).toBe('a b"c');
		expect(decodeHeaderValue('%C0%A0')).toBeNull();
		expect(decodeHeaderValue('%zz')).toBeNull();
		expect(decodeHeaderValue('abc%')).toBeNull();
		expect(decodeHeaderValue('ø')).toBeNull();
		expect(parse('{}', binaryHeaders({ 'ce-id': '%C0%A0' }))).toMatchObject({
			reason: 'invalid-cloudevent',
			deliveryKey: null,
		});
	});

	it('property: decoding what the spec says to encode gives the value back', () => {
		fc.assert(
			fc.property(fc.string({ unit: 'grapheme', maxLength: 40 }), (value) => {
				expect(decodeHeaderValue(percentEncode(value))).toBe(value);
			}),
			{ numRuns: 300 },
		);
	});

	it('a ce- header sent twice (as raw headers, or joined into an array) makes the event invalid', () => {
		const headers = binaryHeaders();
		const raw = Object.entries(headers).flat();
		const twice = [...raw, 'ce-id', 'ce-other'];
		expect(parse('{}', headers, twice)).toMatchObject({
			kind: 'unrecognised',
			reason: 'invalid-cloudevent',
			deliveryKey: null,
		});
		const typeTwice = [...raw, 'CE-Type', 'consent.accepted'];
		expect(parse('{}', headers, typeTwice)).toMatchObject({ reason: 'invalid-cloudevent' });
		const extensionTwice = [...raw, 'ce-traceparent', 'a', 'ce-traceparent', 'b'];
		expect(parse('{}', headers, extensionTwice)).toMatchObject({ reason: 'invalid-cloudevent' });
		expect(ceHeaders({ headers: { 'ce-id': ['a', 'b'] } }).get('ce-id')).toEqual(['a', 'b']);
		expect(parse('{}', { ...headers, 'ce-id': ['a', 'b'] } as never)).toMatchObject({
			reason: 'invalid-cloudevent',
		});
	});

	it('missing attributes, a body that is not JSON, too deep or not an object', () => {
		for (const missing of ['ce-id', 'ce-source', 'ce-type']) {
			const headers = binaryHeaders();
			delete headers[missing];
			expect(parse('{}', headers)).toMatchObject({
				kind: 'unrecognised',
				reason: 'invalid-cloudevent',
			});
		}
		expect(parse('{}', binaryHeaders({ 'ce-specversion': '1.1' }))).toMatchObject({
			reason: 'invalid-cloudevent',
		});
		expect(parse('not json', binaryHeaders())).toMatchObject({
			reason: 'not-json',
			webhookId: 'ce-b1',
		});
		expect(parse('"text"', binaryHeaders())).toMatchObject({ reason: 'unsupported-data' });
		expect(parse('['.repeat(100) + ']'.repeat(100), binaryHeaders())).toMatchObject({
			reason: 'too-deep',
			webhookId: 'ce-b1',
		});
		expect(parse('{}', binaryHeaders({ 'ce-type': 'com.example.unknown' }))).toMatchObject({
			reason: 'unknown-event',
			event: 'com.example.unknown',
		});
	});

	it('Content-Type application/cloudevents… wins over ce- headers (3. HTTP Message Mapping)', () => {
		const d = parse(structured({ id: 'from-body' }), binaryHeaders({ 'content-type': STRUCTURED }));
		expect(d).toMatchObject({ webhookId: 'from-body', cloudEvent: { mode: 'structured' } });
	});
});

describe('batched mode (3.3 Batched Content Mode)', () => {
	it('is told by its Content-Type', () => {
		expect(
			isCloudEventsBatch({ 'content-type': 'application/cloudevents-batch+json; charset=UTF-8' }),
		).toBe(true);
		expect(isCloudEventsBatch({ 'content-type': 'Application/CloudEvents-Batch+JSON' })).toBe(true);
		expect(isCloudEventsBatch({ 'content-type': STRUCTURED })).toBe(false);
		expect(isCloudEventsBatch({})).toBe(false);
	});
});

describe('eventOfType', () => {
	it('takes the event name or a dotted prefix before it, nothing else', () => {
		expect(eventOfType('consent.timedOutDataFailed')).toBe('consent.timedOutDataFailed');
		expect(eventOfType('com.example.consent.timedout')).toBe('consent.timedOut');
		expect(eventOfType('com.example.user.timedOut')).toBe('user.timedOut');
		expect(eventOfType('com.example-consent.created')).toBeNull();
		expect(eventOfType('')).toBeNull();
	});
});

describe('the edges of each rule (issue 31, mutation testing)', () => {
	it('Context Attributes: what the item shows of an attribute that is absent, empty or of the wrong type', () => {
		expect(parse(structured({ specversion: 1 }), {})).toMatchObject({
			reason: 'invalid-cloudevent',
			cloudEvent: { specversion: '' },
		});
		expect(parse(structured({ source: 5 }), {})).toMatchObject({
			reason: 'invalid-cloudevent',
			cloudEvent: { source: null },
		});
		expect(parse(structured({ type: 7 }), {})).toMatchObject({
			reason: 'invalid-cloudevent',
			event: null,
			cloudEvent: { type: null },
		});
		// an invalid event still says which event it named
		expect(parse(structured({ source: '' }), {})).toMatchObject({
			reason: 'invalid-cloudevent',
			event: 'consent.accepted',
		});
		// time is OPTIONAL: absent is valid (and has no time); present, it must be a string
		expect(parse(structured({ time: undefined }), {})).toMatchObject({
			kind: 'event',
			timestamp: null,
			hasTimestamp: false,
		});
		expect(parse(structured({ time: null }), {})).toMatchObject({
			reason: 'invalid-cloudevent',
			timestamp: null,
			hasTimestamp: false,
		});
		expect(parse(structured({ time: 1700000000 }), {})).toMatchObject({
			reason: 'invalid-cloudevent',
			timestamp: null,
			hasTimestamp: true,
		});
		expect(parse(structured({ time: 'not a time' }), {})).toMatchObject({
			kind: 'event',
			timestamp: 'not a time',
			hasTimestamp: true,
		});
	});

	it('structured mode: a body that is too deep or not JSON keeps its id (remembered), none when it has none', () => {
		const deep = '['.repeat(100) + ']'.repeat(100);
		expect(
			parse(`{"specversion":"1.0","id":"deep-1","data":${deep}}`, { 'content-type': STRUCTURED }),
		).toMatchObject({
			kind: 'unrecognised',
			reason: 'too-deep',
			webhookId: 'deep-1',
			deliveryKey: 'deep-1',
			cloudEvent: { mode: 'structured' },
		});
		expect(parse(`{"specversion":"1.0","data":${deep}}`, {})).toMatchObject({
			reason: 'too-deep',
			webhookId: null,
			deliveryKey: null,
		});
		expect(parse('{"specversion":"1.0","id":"cut-1",', {})).toMatchObject({
			reason: 'not-json',
			webhookId: 'cut-1',
			deliveryKey: 'cut-1',
			cloudEvent: { mode: 'structured' },
		});
		expect(parse(structured({ data_base64: 'e30=' }), {})).toMatchObject({
			reason: 'invalid-cloudevent',
			cloudEvent: { mode: 'structured' },
		});
		expect(parse('{"specversion":"1.0",', {})).toMatchObject({
			reason: 'not-json',
			webhookId: null,
			deliveryKey: null,
		});
		// a UTF-8 byte order mark does not hide the specversion
		expect(parse(`\ufeff${structured()}`, {})).toMatchObject({
			kind: 'event',
			webhookId: 'ce-1',
			cloudEvent: { mode: 'structured' },
		});
	});

	it('binary mode: every outcome says it was binary mode', () => {
		const binary = { cloudEvent: { mode: 'binary' } };
		expect(parse('', binaryHeaders())).toMatchObject({ kind: 'event', ...binary });
		expect(parse('['.repeat(100) + ']'.repeat(100), binaryHeaders())).toMatchObject({
			reason: 'too-deep',
			...binary,
		});
		expect(parse('not json', binaryHeaders())).toMatchObject({ reason: 'not-json', ...binary });
		// an invalid event still shows the attributes it had (not the id)
		expect(parse('{}', binaryHeaders({ 'ce-source': '%zz' }))).toMatchObject({
			reason: 'invalid-cloudevent',
			event: 'consent.rejected',
			webhookId: null,
			cloudEvent: { mode: 'binary', specversion: '1.0', type: 'consent.rejected', source: null },
		});
		// an undecodable ce-id makes the event invalid before its body is read
		for (const body of ['not json', '['.repeat(100) + ']'.repeat(100)]) {
			expect(parse(body, binaryHeaders({ 'ce-id': '%C0%A0' }))).toMatchObject({
				reason: 'invalid-cloudevent',
				webhookId: null,
			});
		}
	});

	it('binary mode: an attribute header that cannot be decoded (3.1.3.2) makes the event invalid, and its ce-id is not remembered', () => {
		for (const name of ['ce-specversion', 'ce-type', 'ce-source', 'ce-time', 'ce-id']) {
			for (const bad of ['%zz', '%C0%A0']) {
				const d = parse('{}', binaryHeaders({ [name]: bad }));
				expect([name, bad, d]).toEqual([
					name,
					bad,
					expect.objectContaining({
						kind: 'unrecognised',
						reason: 'invalid-cloudevent',
						webhookId: null,
						deliveryKey: null,
					}),
				]);
			}
		}
		for (const name of ['ce-specversion', 'ce-source', 'ce-time']) {
			const raw = [...Object.entries(binaryHeaders()).flat(), name, 'again'];
			expect([name, parse('{}', binaryHeaders(), raw)]).toEqual([
				name,
				expect.objectContaining({ reason: 'invalid-cloudevent', webhookId: null }),
			]);
		}
		// a blank or absent ce-id: no id, nothing remembered
		for (const id of ['', '   ', '%20']) {
			expect([id, parse('{}', binaryHeaders({ 'ce-id': id }))]).toEqual([
				id,
				expect.objectContaining({
					reason: 'invalid-cloudevent',
					webhookId: null,
					deliveryKey: null,
				}),
			]);
		}
		const noId = binaryHeaders();
		delete noId['ce-id'];
		expect(parse('{}', noId)).toMatchObject({ webhookId: null, deliveryKey: null });
		// no ce-time: valid, without a time
		const noTime = binaryHeaders();
		delete noTime['ce-time'];
		expect(parse('{}', noTime)).toMatchObject({
			kind: 'event',
			timestamp: null,
			hasTimestamp: false,
		});
		// the body is the data: JSON null is no data, an array is not an object
		expect(parse('null', binaryHeaders())).toMatchObject({ kind: 'event', payload: null });
		expect(parse('[{"flow":"f"}]', binaryHeaders())).toMatchObject({
			reason: 'unsupported-data',
			webhookId: 'ce-b1',
		});
	});

	it('3.1.3.2: decoding is lenient only where the binding says so', () => {
		// surrounding whitespace is not part of the value (RFC 7230 3.2); raw spaces and quotes
		// inside were allowed by older versions
		expect(decodeHeaderValue('  a b  ')).toBe('a b');
		expect(decodeHeaderValue('a"b')).toBe('a"b');
		// unnecessarily percent-encoded values MUST be accepted
		expect(decodeHeaderValue('%41%62%7e')).toBe('Ab~');
		expect(decodeHeaderValue('%41bc%2e')).toBe('Abc.');
		// quoted strings: the quotes and backslash escapes go, then one round of percent-decoding
		expect(decodeHeaderValue('""')).toBe('');
		expect(decodeHeaderValue('"a\\\\b"')).toBe('a\\b');
		expect(decodeHeaderValue('"%2541"')).toBe('%41');
		// not a quoted string: only one quote at either end, or a lone quote
		expect(decodeHeaderValue('"abc')).toBe('"abc');
		expect(decodeHeaderValue('abc"')).toBe('abc"');
		expect(decodeHeaderValue('"')).toBe('"');
		// printable US-ASCII only (U+0020–U+007E): both ends are in, the neighbours are out
		expect(decodeHeaderValue('~ !')).toBe('~ !');
		for (const bad of [
			'a\u007fb',
			'a\u001fb',
			'a\u0080b',
			'a\u00e9b',
			'%4',
			'%4g',
			'%g4',
			'%%41',
			'%zz41',
			'a%',
		]) {
			expect([bad, decodeHeaderValue(bad)]).toEqual([bad, null]);
		}
	});

	it('ceHeaders: ce- headers only, any case, every value; raw headers when there are any', () => {
		const fromHeaders = ceHeaders({
			headers: {
				'CE-Id': 'a',
				'ce-type': ['t1', 't2'],
				'content-type': 'application/json',
				'ce-none': undefined,
			},
		});
		expect([...fromHeaders.entries()]).toEqual([
			['ce-id', ['a']],
			['ce-type', ['t1', 't2']],
		]);
		expect(ceHeaders({}).size).toBe(0);
		// raw headers win (they tell a repeated header from a joined one); a name without a value is dropped
		const raw = ceHeaders({
			headers: { 'ce-id': 'joined, value' },
			rawHeaders: ['CE-ID', 'x', 'Content-Type', 'text/plain', 'ce-id', 'y', 'ce-lonely'],
		});
		expect([...raw.entries()]).toEqual([['ce-id', ['x', 'y']]]);
		expect(ceHeaders({ headers: { 'ce-id': 'a' }, rawHeaders: [] }).size).toBe(0);
	});

	it('3. HTTP Message Mapping: the media type decides, parameters and case do not; a batch is not binary mode', () => {
		expect(mediaType(' Application/CloudEvents+JSON ; charset=UTF-8')).toBe(
			'application/cloudevents+json',
		);
		expect(mediaType(['application/cloudevents+json', 'text/plain'])).toBe(
			'application/cloudevents+json',
		);
		expect(mediaType(undefined)).toBe('');
		expect(mediaType(42)).toBe('');
		expect(isCloudEventsBatch(undefined)).toBe(false);
		expect(isCloudEventsBatch({ 'content-type': ['application/cloudevents-batch+json'] })).toBe(
			true,
		);
		expect(isCloudEventsBatch({ 'content-type': 'application/json' })).toBe(false);
		// binary mode needs ce-specversion; a structured Content-Type (any case) turns it off
		const headers = binaryHeaders({ 'content-type': 'Application/CloudEvents+JSON' });
		expect(parse(structured({ id: 'from-body' }), headers)).toMatchObject({
			webhookId: 'from-body',
			cloudEvent: { mode: 'structured' },
		});
		const noVersion = binaryHeaders();
		delete noVersion['ce-specversion'];
		expect(parse('{"flow":"f"}', noVersion)).toEqual(parseDelivery(Buffer.from('{"flow":"f"}')));
		expect(parse('{"flow":"f"}', binaryHeaders({ 'content-type': 'text/plain' }))).toMatchObject({
			kind: 'event',
			cloudEvent: { mode: 'binary' },
		});
		// "prefixed with application/cloudevents-batch … batched mode. Otherwise … binary mode": a batch
		// (answered 415 before parsing) is never read as binary mode
		const batch = binaryHeaders({ 'content-type': 'application/cloudevents-batch+json' });
		expect(parse('{"flow":"f"}', batch)).toEqual(parseDelivery(Buffer.from('{"flow":"f"}')));
	});

	it('a request with raw headers only (no parsed headers object) is read the same', () => {
		const raw = Object.entries(binaryHeaders()).flat();
		expect(parseIncoming(Buffer.from('{"flow":"f"}'), { rawHeaders: raw })).toMatchObject({
			kind: 'event',
			webhookId: 'ce-b1',
			cloudEvent: { mode: 'binary' },
		});
	});

	it('eventOfType: the reverse-DNS suffix is compared without case', () => {
		expect(eventOfType('COM.EXAMPLE.CONSENT.ACCEPTED')).toBe('consent.accepted');
		expect(eventOfType('no.example.User.TimedOut')).toBe('user.timedOut');
		expect(eventOfType('.consent.data')).toBe('consent.data');
		expect(eventOfType('consent.data.')).toBeNull();
	});

	it('the batch answer says what is refused, what to send, and that nothing ran', () => {
		expect(BATCH_ANSWER).toEqual({
			received: false,
			status: 'unsupported',
			message: expect.stringMatching(
				/^Batched CloudEvents \(application\/cloudevents-batch\+json\) are not accepted: send one event per request, in binary or structured mode\. Nothing was run\.$/,
			),
		});
	});
});

/** POSTs with headers given as name, value, name, value… (a name may repeat: several lines). */
async function rawPost(
	url: string,
	body: string,
	headers: string[],
): Promise<{ status: number; json: unknown }> {
	const response = await request(url, { method: 'POST', body, headers });
	const text = await response.body.text();
	let json: unknown;
	try {
		json = JSON.parse(text);
	} catch {
		json = undefined;
	}
	return { status: response.statusCode, json };
}

describe('the trigger with CloudEvents (HTTP harness)', () => {
	const start = useTriggerHarness();

	it('structured mode: verified over the exact body, emitted on the event output, a copy is a duplicate', async () => {
		const h = await start();
		const body = structured({ id: 'ce-s1' });
		const first = await post(h.url, body, {
			'content-type': STRUCTURED,
			'x-acme-sbl-signature': sign(body),
		});
		expect(first).toMatchObject({
			status: 200,
			json: { status: 'emitted', webhookId: 'ce-s1', event: 'consent.accepted' },
		});
		const { index, json } = emitted(h);
		expect(index).toBe(PUBLISHED_EVENTS.indexOf('consent.accepted'));
		expect(json).toMatchObject({
			event: 'consent.accepted',
			webhookId: 'ce-s1',
			timestamp: '2030-01-02T03:04:05Z',
			flowId: 'flow-1',
			externalId: 'loan-1',
			cloudEvent: { mode: 'structured', source: 'https://sbl.example/flows' },
		});
		const again = await post(h.url, body, {
			'content-type': STRUCTURED,
			'x-acme-sbl-signature': sign(body),
		});
		expect(again.json).toMatchObject({ status: 'duplicate' });
		// The same id in the service's envelope is the same delivery.
		const legacy = JSON.stringify({ webhookId: 'ce-s1', event: 'consent.accepted', payload: {} });
		expect(
			(await post(h.url, legacy, { 'x-acme-sbl-signature': sign(legacy) })).json,
		).toMatchObject({ status: 'duplicate' });
		// Unsigned, or signed over other bytes: 401, as for every delivery.
		expect((await post(h.url, body, { 'content-type': STRUCTURED })).status).toBe(401);
		expect(
			(
				await post(h.url, ` ${body}`, {
					'content-type': STRUCTURED,
					'x-acme-sbl-signature': sign(body),
				})
			).status,
		).toBe(401);
		expect(h.executions).toHaveLength(1);
	});

	it('binary mode is refused (400, nothing run) unless Accept Unsigned CloudEvents Headers is on', async () => {
		const h = await start();
		const body = JSON.stringify({ flow: 'flow-b', externalId: 'loan-b' });
		const headers = {
			...binaryHeaders({ 'ce-id': 'ce-bin-1' }),
			'x-acme-sbl-signature': sign(body),
		};
		const answer = await post(h.url, body, headers);
		expect(answer).toMatchObject({
			status: 400,
			json: { received: false, status: 'unsigned', reason: 'binary-mode' },
		});
		expect((answer.json as { message: string }).message).toMatch(/not cover.*Nothing was run\./);
		expect(h.executions).toHaveLength(0);
	});

	it('binary mode, option on: attributes from ce- headers (listed as unsigned), duplicates by the signed bytes', async () => {
		const h = await start({ parameters: { options: { acceptUnsignedHeaders: true } } });
		const body = JSON.stringify({ flow: 'flow-b', externalId: 'loan-b' });
		const headers = {
			...binaryHeaders({ 'ce-id': 'ce-bin-1' }),
			'x-acme-sbl-signature': sign(body),
		};
		expect((await post(h.url, body, headers)).json).toMatchObject({
			status: 'emitted',
			webhookId: 'ce-bin-1',
			event: 'consent.rejected',
		});
		const { index, json } = emitted(h);
		expect(index).toBe(PUBLISHED_EVENTS.indexOf('consent.rejected'));
		expect(json).toMatchObject({
			flowId: 'flow-b',
			payload: { flow: 'flow-b' },
			signedWith: 'current',
			cloudEvent: {
				mode: 'binary',
				source: '/sbl/flows',
				unsigned: ['id', 'source', 'time', 'type'],
			},
		});
		expect((await post(h.url, body, headers)).json).toMatchObject({ status: 'duplicate' });
		// a fresh ce-id does not make the same signed bytes a new delivery
		const fresh = { ...headers, 'ce-id': 'ce-bin-2' };
		expect((await post(h.url, body, fresh)).json).toMatchObject({ status: 'duplicate' });
		expect(h.executions).toHaveLength(1);
	});

	it('binary mode, option on, with a ce-id sent twice: Unrecognised, nothing lost, remembered by its bytes', async () => {
		const h = await start({ parameters: { options: { acceptUnsignedHeaders: true } } });
		const body = JSON.stringify({ flow: 'flow-d' });
		const headers = [
			...Object.entries(binaryHeaders({ 'ce-id': 'one' })).flat(),
			'ce-id',
			'two',
			'x-acme-sbl-signature',
			sign(body),
		];
		const answer = await rawPost(h.url, body, headers);
		expect(answer).toMatchObject({ status: 200, json: { status: 'emitted', webhookId: null } });
		const { index, json } = emitted(h);
		expect(index).toBe(PUBLISHED_EVENTS.length);
		expect(json).toMatchObject({ reason: 'invalid-cloudevent', cloudEvent: { mode: 'binary' } });
		expect((await rawPost(h.url, body, headers)).json).toMatchObject({ status: 'duplicate' });
		expect(h.executions).toHaveLength(1);
	});

	it('an unknown type goes to Unrecognised, with its id remembered', async () => {
		const h = await start();
		const body = structured({ id: 'ce-u1', type: 'com.example.loan.approved' });
		const headers = { 'content-type': STRUCTURED, 'x-acme-sbl-signature': sign(body) };
		expect((await post(h.url, body, headers)).json).toMatchObject({
			status: 'emitted',
			event: 'com.example.loan.approved',
		});
		expect(emitted(h).json).toMatchObject({ reason: 'unknown-event', webhookId: 'ce-u1' });
		expect((await post(h.url, body, headers)).json).toMatchObject({ status: 'duplicate' });
	});

	it('a batch: 415 with a clear message, nothing run; unsigned: 401 first', async () => {
		const h = await start();
		const body = JSON.stringify([
			JSON.parse(structured({ id: 'b1' })),
			JSON.parse(structured({ id: 'b2' })),
		]);
		const type = 'application/cloudevents-batch+json; charset=utf-8';
		expect((await post(h.url, body, { 'content-type': type })).status).toBe(401);
		const answer = await post(h.url, body, {
			'content-type': type,
			'x-acme-sbl-signature': sign(body),
		});
		expect(answer.status).toBe(415);
		expect(answer.json).toMatchObject({
			received: false,
			status: 'unsupported',
			message: expect.stringMatching(/one event per request/),
		});
		expect(h.executions).toHaveLength(0);
	});
});

describe('Include Headers under Minimise Personal Data (issue 31, item 7)', () => {
	const start = useTriggerHarness();

	// issue 42: by allow-list in every mode; x-note only when named in Additional Headers
	it('ce-subject and ce- extensions are left out in every mode; identity numbers in kept headers are masked', async () => {
		const body = JSON.stringify({
			webhookId: 'inc-1',
			event: 'consent.accepted',
			payload: { flow: 'f' },
		});
		const headers = {
			'x-acme-sbl-signature': sign(body),
			'ce-subject': 'applicant 01817000092',
			'ce-traceparent': '00-abc-01',
			'ce-source': '/sbl',
			'x-note': 'row 3 01817000092',
		};
		for (const [minimise, note] of [
			['mask', 'row 3 *********92'],
			['leaveOut', 'row 3 ***********'],
			['keep', 'row 3 01817000092'],
		]) {
			const options = { includeHeaders: true, additionalHeaders: 'x-note' };
			const h = await start({
				typeVersion: 1.1,
				parameters: { minimisePersonalData: minimise, options },
			});
			expect((await post(h.url, body, headers)).json).toMatchObject({ status: 'emitted' });
			const kept = emitted(h).json.headers as Record<string, unknown>;
			expect([minimise, kept['x-note'], kept['ce-subject'], 'ce-traceparent' in kept]).toEqual([
				minimise,
				note,
				undefined,
				false,
			]);
			expect(kept['ce-source']).toBe('/sbl');
			if (minimise !== 'keep') expect(JSON.stringify(kept)).not.toContain('01817000092');
			await h.close();
			start.restart();
		}
	});
});
