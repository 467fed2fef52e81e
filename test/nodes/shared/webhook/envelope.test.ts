import {
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

const recognised = (body: string): RecognisedDelivery => {
	const parsed = parseDelivery(body);
	if (parsed.kind !== 'event') throw new Error(`expected an event, got ${JSON.stringify(parsed)}`);
	return parsed;
};

const unrecognised = (body: string): UnrecognisedDelivery => {
	const parsed = parseDelivery(body);
	if (parsed.kind !== 'unrecognised') throw new Error(`expected unrecognised, got ${parsed.kind}`);
	return parsed;
};

describe('parseDelivery', () => {
	it.each(CONSENT_EVENTS.map((event, index) => [event, index] as const))(
		'maps %s to output %i',
		(event, index) => {
			const parsed = recognised(
				JSON.stringify({ webhookId: 'w', event, timestamp: '2026-11-22T10:00:00Z', payload: {} }),
			);
			expect(parsed.event).toBe(event);
			expect(CONSENT_EVENTS[index]).toBe(parsed.event);
		},
	);

	it('reads the deprecated `type` when `event` is absent, and prefers `event`', () => {
		expect(recognised('{"webhookId":"w","type":"consent.rejected","payload":{}}').event).toBe(
			'consent.rejected',
		);
		expect(
			recognised('{"webhookId":"w","type":"consent.rejected","event":"consent.deleted"}').event,
		).toBe('consent.deleted');
		// An empty `event` falls back to `type`.
		expect(recognised('{"event":"","type":"consent.deleted"}').event).toBe('consent.deleted');
	});

	it('reads the id from `webhookId`, else the older `id` (numbers become strings)', () => {
		expect(recognised('{"webhookId":"abc","id":"old","event":"consent.data"}').webhookId).toBe(
			'abc',
		);
		expect(recognised('{"id":"old-1","type":"consent.data"}').webhookId).toBe('old-1');
		expect(recognised('{"id":42,"type":"consent.data"}').webhookId).toBe('42');
		expect(recognised('{"event":"consent.data"}').webhookId).toBeNull();
	});

	it('accepts the published rejected/deleted form (webhookId, type, payload with flow and nationalId)', () => {
		for (const event of ['consent.rejected', 'consent.deleted']) {
			const body = JSON.stringify({
				webhookId: 'w-9',
				type: event,
				payload: { flow: 'flow-9', nationalId: '01817000173' },
			});
			const parsed = recognised(body);
			expect(parsed.timestamp).toBeNull();
			expect(parsed.hasTimestamp).toBe(false);
			const item = eventItem(parsed, '2026-11-22T10:00:00.000Z');
			expect(item).toEqual({
				event,
				webhookId: 'w-9',
				timestamp: null,
				flowId: 'flow-9',
				externalId: null,
				nationalId: '01817000173',
				payload: { flow: 'flow-9', nationalId: '01817000173' },
				receivedAt: '2026-11-22T10:00:00.000Z',
			});
			expect('authorizationCode' in item).toBe(false);
		}
	});

	it('carries authorizationCode where present', () => {
		const item = eventItem(
			recognised(
				'{"webhookId":"w","event":"consent.created","timestamp":"2026-11-22T10:00:00Z","payload":{"externalId":"e","flow":"f","nationalId":"n","authorizationCode":"code-1"}}',
			),
			'now',
		);
		expect(item).toMatchObject({
			flowId: 'f',
			externalId: 'e',
			nationalId: 'n',
			authorizationCode: 'code-1',
			timestamp: '2026-11-22T10:00:00Z',
		});
	});

	it('maps event names case-insensitively to the canonical name', () => {
		expect(canonicalEvent('CONSENT.TIMEDOUT')).toBe('consent.timedOut');
		expect(canonicalEvent('consent.timedout')).toBe('consent.timedOut');
		expect(canonicalEvent('consent.archived')).toBeNull();
		expect(recognised('{"event":"Tax.DataFailed"}').event).toBe('tax.dataFailed');
	});

	it('reports a body that is not JSON as not-json', () => {
		expect(parseDelivery('event=consent.created')).toMatchObject({
			kind: 'unrecognised',
			reason: 'not-json',
			event: null,
			webhookId: null,
		});
		expect(parseDelivery('')).toMatchObject({ reason: 'not-json' });
		expect(parseDelivery('{"event":"consent.created"')).toMatchObject({ reason: 'not-json' });
	});

	it('reports JSON without an event as no-event, keeping the id', () => {
		expect(unrecognised('{"webhookId":"w-1","payload":{}}')).toMatchObject({
			reason: 'no-event',
			event: null,
			webhookId: 'w-1',
		});
		expect(unrecognised('[1,2,3]').reason).toBe('no-event');
		expect(unrecognised('"consent.created"').reason).toBe('no-event');
		expect(unrecognised('{"event":42}').reason).toBe('no-event');
	});

	it('reports an unknown event as unknown-event with its name (e.g. a CloudEvents type)', () => {
		expect(
			unrecognised('{"id":"ce-1","type":"com.example.consent.created","specversion":"1.0"}'),
		).toMatchObject({
			reason: 'unknown-event',
			event: 'com.example.consent.created',
			webhookId: 'ce-1',
		});
	});

	it('drops a UTF-8 byte-order mark before parsing', () => {
		const raw = Buffer.concat([
			Buffer.from([0xef, 0xbb, 0xbf]),
			Buffer.from('{"event":"consent.data"}'),
		]);
		expect(bodyText(raw)).toBe('{"event":"consent.data"}');
		expect(parseDelivery(raw).kind).toBe('event');
	});
});

describe('unrecognisedItem', () => {
	it('keeps the raw text and adds webhookId only when there is one', () => {
		const text = '{"webhookId":"w-2","event":"consent.archived","n":12345678901234567890}';
		expect(unrecognisedItem(unrecognised(text), text, 'at')).toEqual({
			event: 'consent.archived',
			reason: 'unknown-event',
			rawBody: text,
			receivedAt: 'at',
			webhookId: 'w-2',
		});
		const item = unrecognisedItem(unrecognised('not json'), 'not json', 'at');
		expect(item).toEqual({
			event: null,
			reason: 'not-json',
			rawBody: 'not json',
			receivedAt: 'at',
		});
	});
});

describe('isStale', () => {
	const now = Date.parse('2026-11-22T12:00:00Z');
	const at = (timestamp: unknown) =>
		parseDelivery(JSON.stringify({ event: 'consent.data', timestamp }));

	it('is off when the maximum age is 0', () => {
		expect(isStale(at('1999-01-01T00:00:00Z'), 0, now)).toBe(false);
		expect(isStale(at('garbage'), 0, now)).toBe(false);
	});

	it('passes a timestamp within the window, either side of now', () => {
		expect(isStale(at('2026-11-22T11:55:01Z'), 300, now)).toBe(false);
		expect(isStale(at('2026-11-22T12:04:00Z'), 300, now)).toBe(false);
		expect(isStale(at('2026-11-22T13:55:00+02:00'), 300, now)).toBe(false);
	});

	it('marks timestamps beyond the window as stale (past and future)', () => {
		expect(isStale(at('2026-11-22T11:54:59Z'), 300, now)).toBe(true);
		expect(isStale(at('2026-11-22T12:05:01Z'), 300, now)).toBe(true);
	});

	it('marks present but unparsable timestamps stale', () => {
		expect(isStale(at('yesterday'), 300, now)).toBe(true);
		expect(isStale(at(1763812800), 300, now)).toBe(true);
		expect(isStale(at('2026-11-22'), 300, now)).toBe(true);
		expect(isStale(at('2026-13-45T99:00:00Z'), 300, now)).toBe(true);
	});

	it('does not mark envelopes without a timestamp stale', () => {
		expect(isStale(parseDelivery('{"type":"consent.rejected"}'), 300, now)).toBe(false);
		expect(isStale(parseDelivery('not json'), 300, now)).toBe(false);
	});
});
