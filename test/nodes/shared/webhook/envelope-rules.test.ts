/**
 * Rule tests of envelope.ts from the published webhook envelope (consent-flow-service.md:
 * webhookId | older `id`, event | deprecated `type`, optional ISO 8601 timestamp, payload
 * *object* with flow, externalId, nationalId, authorizationCode), RFC 8259 for what is JSON
 * and RFC 3339 for timestamps. Expected values are written out here, not read from the code.
 */
import {
	MAX_DEPTH,
	TOO_DEEP_RAW_LIMIT,
	bodyText,
	canonicalEvent,
	isStale,
	eventItem,
	unrecognisedItem,
	type RecognisedDelivery,
	type UnrecognisedDelivery,
} from '../../../../nodes/shared/webhook/envelope';
import { parseDelivery } from '../../../support/parse';
import { CONSENT_EVENTS } from '../../../../nodes/shared/webhook/events';

const recognised = (body: string | Buffer): RecognisedDelivery => {
	const parsed = parseDelivery(body);
	if (parsed.kind !== 'event') throw new Error(`expected an event, got ${JSON.stringify(parsed)}`);
	return parsed;
};

const unrecognised = (body: string | Buffer): UnrecognisedDelivery => {
	const parsed = parseDelivery(body);
	if (parsed.kind !== 'unrecognised') throw new Error(`expected unrecognised, got ${parsed.kind}`);
	return parsed;
};

/** Object nesting of `levels` levels (the outer envelope is level 1). */
const nested = (levels: number) =>
	`{"webhookId":"deep","event":"consent.data","payload":${'{"a":'.repeat(levels - 2)}{}${'}'.repeat(levels - 2)}}`;

describe('constants', () => {
	it('are the documented limits', () => {
		expect(MAX_DEPTH).toBe(64);
		expect(TOO_DEEP_RAW_LIMIT).toBe(8192);
		expect(CONSENT_EVENTS).toEqual([
			'consent.created',
			'consent.accepted',
			'consent.rejected',
			'consent.deleted',
			'consent.data',
			'consent.timedOut',
			'consent.timedOutDataFailed',
			'user.timedOut',
			'tax.dataFailed',
			'income.dataFailed',
		]);
	});
});

describe('parseDelivery: the whole result', () => {
	it('a current envelope gives every field', () => {
		expect(
			parseDelivery(
				'{"webhookId":"w-1","event":"consent.created","timestamp":"2026-11-22T10:00:00Z","payload":{"flow":"f"}}',
			),
		).toEqual({
			kind: 'event',
			event: 'consent.created',
			webhookId: 'w-1',
			deliveryKey: 'w-1',
			timestamp: '2026-11-22T10:00:00Z',
			hasTimestamp: true,
			payload: { flow: 'f' },
		});
	});

	it('a body that is not JSON carries no fields', () => {
		for (const body of [
			'',
			' ',
			'nope',
			'{',
			"{'event':'consent.data'}",
			'{"event":"consent.data",}',
			'NaN',
		]) {
			expect(parseDelivery(body)).toEqual({
				kind: 'unrecognised',
				reason: 'not-json',
				event: null,
				webhookId: null,
				deliveryKey: null,
				timestamp: null,
				hasTimestamp: false,
			});
		}
	});

	it('JSON that is not an object (RFC 8259 allows any value) is no-event without fields', () => {
		for (const body of [
			'[{"webhookId":"w","event":"consent.data","timestamp":"2026-11-22T10:00:00Z"}]',
			'[]',
			'null',
			'true',
			'1',
			'"consent.data"',
		]) {
			expect([body, parseDelivery(body)]).toEqual([
				body,
				{
					kind: 'unrecognised',
					reason: 'no-event',
					event: null,
					webhookId: null,
					deliveryKey: null,
					timestamp: null,
					hasTimestamp: false,
				},
			]);
		}
	});

	it('an object without event or type keeps id, key and timestamp', () => {
		expect(parseDelivery('{"id":7,"timestamp":"2026-11-22T10:00:00Z"}')).toEqual({
			kind: 'unrecognised',
			reason: 'no-event',
			event: null,
			webhookId: '7',
			deliveryKey: '~n:7',
			timestamp: '2026-11-22T10:00:00Z',
			hasTimestamp: true,
		});
	});

	it('an unknown event keeps the name and the fields', () => {
		expect(parseDelivery('{"webhookId":"w","type":"consent.archived","timestamp":5}')).toEqual({
			kind: 'unrecognised',
			reason: 'unknown-event',
			event: 'consent.archived',
			webhookId: 'w',
			deliveryKey: 'w',
			timestamp: null,
			hasTimestamp: true,
		});
	});

	it('a Buffer and the same string parse alike', () => {
		const body = '{"webhookId":"wø","event":"consent.data","payload":{"flow":"ø"}}';
		expect(parseDelivery(Buffer.from(body, 'utf8'))).toEqual(parseDelivery(body));
		expect(recognised(Buffer.from(body, 'utf8')).webhookId).toBe('wø');
	});
});

describe('payload must be an object', () => {
	it.each(['[]', '[{"flow":"f"}]', '"f"', '1', 'null', 'true'])('payload %s is null', (payload) => {
		const parsed = recognised(`{"event":"consent.data","payload":${payload}}`);
		expect(parsed.payload).toBeNull();
		expect(eventItem(parsed, 'at')).toEqual({
			event: 'consent.data',
			webhookId: null,
			timestamp: null,
			flowId: null,
			externalId: null,
			nationalId: null,
			payload: null,
			receivedAt: 'at',
		});
	});

	it('an empty object payload is kept', () => {
		expect(recognised('{"event":"consent.data","payload":{}}').payload).toEqual({});
	});
});

describe('event names', () => {
	it('surrounding whitespace is ignored; a blank event falls back to type', () => {
		expect(recognised('{"event":"  consent.data\\n"}').event).toBe('consent.data');
		expect(recognised('{"event":" \\t ","type":"consent.deleted"}').event).toBe('consent.deleted');
		expect(recognised('{"event":null,"type":"consent.deleted"}').event).toBe('consent.deleted');
		expect(recognised('{"event":["consent.data"],"type":"consent.deleted"}').event).toBe(
			'consent.deleted',
		);
		expect(unrecognised('{"event":"  ","type":"  "}').reason).toBe('no-event');
		expect(unrecognised('{"type":""}').reason).toBe('no-event');
	});

	it('an unknown trimmed name is reported trimmed', () => {
		expect(unrecognised('{"event":" consent.archived "}').event).toBe('consent.archived');
	});

	it.each(CONSENT_EVENTS.map((e) => [e]))(
		'%s is found exactly, upper-cased and lower-cased',
		(event) => {
			expect(canonicalEvent(event)).toBe(event);
			expect(canonicalEvent(event.toUpperCase())).toBe(event);
			expect(canonicalEvent(event.toLowerCase())).toBe(event);
		},
	);

	it('no near miss is an event', () => {
		for (const name of [
			'',
			'consent',
			'consent.',
			'consent.created ',
			'consent_created',
			'created',
			'consent.createdx',
		]) {
			expect([name, canonicalEvent(name)]).toEqual([name, null]);
		}
	});
});

describe('timestamp fields', () => {
	it.each([
		['"2026-11-22T10:00:00Z"', '2026-11-22T10:00:00Z', true],
		['""', '', true],
		['0', null, true],
		['false', null, true],
		['{}', null, true],
		['null', null, false],
	])('timestamp %s: timestamp %p, hasTimestamp %p', (json, timestamp, has) => {
		const parsed = recognised(`{"event":"consent.data","timestamp":${json}}`);
		expect(parsed.timestamp).toBe(timestamp);
		expect(parsed.hasTimestamp).toBe(has);
	});

	it('no timestamp member at all', () => {
		const parsed = recognised('{"event":"consent.data"}');
		expect(parsed.timestamp).toBeNull();
		expect(parsed.hasTimestamp).toBe(false);
	});
});

describe('delivery id', () => {
	it('a blank or non-id webhookId falls back to id', () => {
		expect(recognised('{"webhookId":"  ","id":"old","event":"consent.data"}').webhookId).toBe(
			'old',
		);
		expect(recognised('{"webhookId":true,"id":3,"event":"consent.data"}').webhookId).toBe('3');
		expect(recognised('{"webhookId":null,"event":"consent.data"}')).toMatchObject({
			webhookId: null,
			deliveryKey: null,
		});
	});

	it('numbers are shown and keyed as written', () => {
		expect(recognised('{"webhookId":1.50,"event":"consent.data"}')).toMatchObject({
			webhookId: '1.50',
			deliveryKey: '~n:1.50',
		});
	});
});

describe('nesting depth (top-level object is level 1)', () => {
	it('64 levels parse, 65 are too deep with the id shown and keyed (read from the raw bytes)', () => {
		const ok = nested(MAX_DEPTH);
		expect(recognised(ok).webhookId).toBe('deep');
		expect(recognised(ok).deliveryKey).toBe('deep');
		expect(parseDelivery(nested(MAX_DEPTH + 1))).toEqual({
			kind: 'unrecognised',
			reason: 'too-deep',
			event: null,
			webhookId: 'deep',
			deliveryKey: 'deep',
			timestamp: null,
			hasTimestamp: false,
		});
		expect(parseDelivery('[[[' + '['.repeat(70) + ']'.repeat(70) + ']]]')).toMatchObject({
			reason: 'too-deep',
			webhookId: null,
		});
	});
});

describe('bodyText', () => {
	it('decodes UTF-8 and drops only a leading byte-order mark', () => {
		expect(bodyText(Buffer.from('{"a":"ø"}', 'utf8'))).toBe('{"a":"ø"}');
		expect(bodyText(Buffer.from('\ufeffx\ufeff', 'utf8'))).toBe('x\ufeff');
		expect(bodyText(Buffer.from('x\ufeff', 'utf8'))).toBe('x\ufeff');
		expect(bodyText(Buffer.from('\ufeff\ufeff', 'utf8'))).toBe('\ufeff');
		expect(bodyText(Buffer.alloc(0))).toBe('');
	});
});

describe('eventItem fields from the payload', () => {
	const item = (payload: string) =>
		eventItem(recognised(`{"webhookId":"w","event":"consent.created","payload":${payload}}`), 'at');

	it('strings are copied as they are, finite numbers as written by String()', () => {
		expect(item('{"flow":" f ","externalId":"","nationalId":12,"authorizationCode":0}')).toEqual({
			event: 'consent.created',
			webhookId: 'w',
			timestamp: null,
			flowId: ' f ',
			externalId: '',
			nationalId: '12',
			authorizationCode: '0',
			payload: { flow: ' f ', externalId: '', nationalId: 12, authorizationCode: 0 },
			receivedAt: 'at',
		});
	});

	it('other types, and numbers JSON.parse turns into Infinity, give null (authorizationCode: absent)', () => {
		const got = item(
			'{"flow":1e400,"externalId":true,"nationalId":{"a":1},"authorizationCode":[1]}',
		);
		expect(got.flowId).toBeNull();
		expect(got.externalId).toBeNull();
		expect(got.nationalId).toBeNull();
		expect('authorizationCode' in got).toBe(false);
		expect(item('{"authorizationCode":-1e400}')).not.toHaveProperty('authorizationCode');
		expect(item('{"authorizationCode":null}')).not.toHaveProperty('authorizationCode');
		expect(item('{"authorizationCode":""}').authorizationCode).toBe('');
	});
});

describe('unrecognisedItem for too-deep bodies', () => {
	const deep = unrecognised(nested(MAX_DEPTH + 1));

	it('keeps a short text whole and says it is not truncated', () => {
		const text = 'x'.repeat(TOO_DEEP_RAW_LIMIT);
		expect(unrecognisedItem(deep, text, 'at')).toEqual({
			event: null,
			reason: 'too-deep',
			rawBody: text,
			rawBodyTruncated: false,
			receivedAt: 'at',
			webhookId: 'deep',
		});
	});

	it('keeps the first 8192 characters of a longer text', () => {
		const text = 'y'.repeat(TOO_DEEP_RAW_LIMIT + 1);
		const got = unrecognisedItem(deep, text, 'at');
		expect(got.rawBody).toBe('y'.repeat(TOO_DEEP_RAW_LIMIT));
		expect(got.rawBodyTruncated).toBe(true);
	});

	it('does not cut a surrogate pair in half', () => {
		const text = `${'z'.repeat(TOO_DEEP_RAW_LIMIT - 1)}😀tail`;
		const got = unrecognisedItem(deep, text, 'at');
		expect(got.rawBody).toBe('z'.repeat(TOO_DEEP_RAW_LIMIT - 1));
		expect(got.rawBodyTruncated).toBe(true);
		// a pair that ends exactly at the limit is kept
		const whole = `${'z'.repeat(TOO_DEEP_RAW_LIMIT - 2)}😀tail`;
		expect(unrecognisedItem(deep, whole, 'at').rawBody).toBe(whole.slice(0, TOO_DEEP_RAW_LIMIT));
		// a text of exactly the limit ending in a (lone) high surrogate is not truncated at all
		const lone = `${'z'.repeat(TOO_DEEP_RAW_LIMIT - 1)}\ud83d`;
		expect(unrecognisedItem(deep, lone, 'at')).toMatchObject({
			rawBody: lone,
			rawBodyTruncated: false,
		});
		// a low surrogate at the cut is not half of a pair that was cut
		const low = `${'z'.repeat(TOO_DEEP_RAW_LIMIT - 1)}\ude00tail`;
		expect(unrecognisedItem(deep, low, 'at').rawBody).toBe(low.slice(0, TOO_DEEP_RAW_LIMIT));
	});

	it('other reasons keep the whole text and carry no rawBodyTruncated', () => {
		const text = 'q'.repeat(TOO_DEEP_RAW_LIMIT + 10);
		const got = unrecognisedItem(unrecognised('{"event":"x.y","webhookId":"w"}'), text, 'at');
		expect(got).toEqual({
			event: 'x.y',
			reason: 'unknown-event',
			rawBody: text,
			receivedAt: 'at',
			webhookId: 'w',
		});
	});
});

describe('isStale', () => {
	const now = Date.parse('2026-11-22T12:00:00Z');
	const at = (timestamp: string) => ({ timestamp, hasTimestamp: true });

	it('the window is inclusive: exactly maxAge either side is fresh, one millisecond more is stale', () => {
		expect(isStale(at('2026-11-22T11:55:00Z'), 300, now)).toBe(false);
		expect(isStale(at('2026-11-22T12:05:00Z'), 300, now)).toBe(false);
		expect(isStale(at('2026-11-22T11:54:59.999Z'), 300, now)).toBe(true);
		expect(isStale(at('2026-11-22T12:05:00.001Z'), 300, now)).toBe(true);
		expect(isStale(at('2026-11-22T12:00:00Z'), 1, now)).toBe(false);
		expect(isStale(at('2026-11-22T12:00:01Z'), 1, now)).toBe(false);
		expect(isStale(at('2026-11-22T12:00:02Z'), 1, now)).toBe(true);
	});

	it('a non-positive or non-number maximum age switches the check off', () => {
		for (const off of [0, -1, Number.NaN, -Infinity]) {
			expect(isStale(at('1999-01-01T00:00:00Z'), off, now)).toBe(false);
			expect(isStale({ timestamp: null, hasTimestamp: false }, off, now)).toBe(false);
		}
		expect(isStale(at('1999-01-01T00:00:00Z'), Infinity, now)).toBe(false);
	});

	it('absent: not stale; non-string or unparsable: stale', () => {
		expect(isStale({ timestamp: null, hasTimestamp: false }, 300, now)).toBe(false);
		expect(isStale({ timestamp: null, hasTimestamp: true }, 300, now)).toBe(true);
		expect(isStale(at(''), 300, now)).toBe(true);
		expect(isStale(at('1763812800'), 300, now)).toBe(true);
	});
});
