// CloudEvents 1.0 deliveries (issue 26), against the published specification, not the code:
// - CloudEvents core spec, "Context Attributes" → "REQUIRED Attributes" (id, source,
//   specversion, type: non-empty strings; specversion "1.0") and "OPTIONAL Attributes" (time).
// - JSON Event Format, "3.1 Handling of data" (`data` or `data_base64`, MUST NOT both).
// - HTTP Protocol Binding, "3.1 Binary Content Mode" (attributes in `ce-` headers, outside the
//   signature: not taken, the signed body alone is read), "3.2 Structured Content Mode"
//   (`application/cloudevents+json`), "3.3 Batched Content Mode"
//   (`application/cloudevents-batch+json`, only when solicited).
import fc from 'fast-check';

import {
	BATCH_ANSWER,
	eventOfType,
	isCloudEventsBatch,
	mediaType,
	type IncomingDelivery,
} from '../../../../nodes/shared/webhook/cloudevents';
import { parseIncoming } from '../../../../nodes/shared/webhook/intake';
import { parseDelivery } from '../../../support/parse';
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

const parse = (body: string): IncomingDelivery => parseIncoming(Buffer.from(body, 'utf8'));

describe('structured mode (3.2 Structured Content Mode)', () => {
	it('maps type → event, id → webhookId, time → timestamp, data → payload', () => {
		const d = parse(structured());
		expect(d).toMatchObject({
			kind: 'event',
			event: 'consent.accepted',
			webhookId: 'ce-1',
			deliveryKey: 'ce-1',
			timestamp: '2030-01-02T03:04:05Z',
			hasTimestamp: true,
			payload: { flow: 'flow-1', externalId: 'loan-1' },
			cloudEvent: {
				specversion: '1.0',
				source: 'https://sbl.example/flows',
				type: 'consent.accepted',
			},
		});
	});

	it('is recognised by its top-level specversion also under application/json (the service envelope never has one)', () => {
		expect(parse(structured())).toMatchObject({
			kind: 'event',
			webhookId: 'ce-1',
		});
		// The service's own envelope is parsed exactly as before.
		const legacy = JSON.stringify({
			webhookId: 'w1',
			event: 'consent.created',
			payload: { flow: 'f' },
		});
		expect(parse(legacy)).toEqual(parseDelivery(Buffer.from(legacy)));
		// Its older form has id and type, but no specversion: still the envelope.
		const older = JSON.stringify({ id: 'o1', type: 'consent.deleted', payload: {} });
		expect(parse(older)).toEqual(parseDelivery(Buffer.from(older)));
	});

	it('routes every published event, also under a reverse-DNS prefix, to the same output as the envelope', () => {
		for (const event of PUBLISHED_EVENTS) {
			const envelope = parseDelivery(Buffer.from(JSON.stringify({ webhookId: 'x', event })));
			for (const type of [event, event.toUpperCase(), `no.example.sbl.${event}`]) {
				const d = parse(structured({ type }));
				expect([type, d.kind, d.kind === 'event' && d.event]).toEqual([
					type,
					'event',
					envelope.kind === 'event' && envelope.event,
				]);
			}
		}
		for (const type of ['com.example.other', 'consent.createdX', 'xconsent.created', 'consent']) {
			expect(parse(structured({ type }))).toMatchObject({
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
			const d = parse(structured(change));
			expect([change, d.kind, d.kind === 'unrecognised' && d.reason]).toEqual([
				change,
				'unrecognised',
				'invalid-cloudevent',
			]);
		}
		// A number id is no CloudEvent id, but it is still the delivery's id (remembered, see dedupe).
		expect(parse(structured({ id: 42 }))).toMatchObject({
			webhookId: '42',
			deliveryKey: '~n:42',
		});
		// Not an object: the body has no specversion, so it is read as the envelope whatever the
		// Content-Type says (issue 31: the unsigned Content-Type never picks the form).
		expect(parse('[1]')).toMatchObject({ reason: 'no-event' });
		expect(parse('{"specversion":"1.0",')).toMatchObject({
			reason: 'not-json',
		});
	});

	it('data_base64 (JSON Event Format 3.1) is not taken apart: Unrecognised; with data as well it is invalid', () => {
		const base64 = { data: undefined, data_base64: Buffer.from('{"flow":"f"}').toString('base64') };
		expect(parse(structured(base64))).toMatchObject({
			kind: 'unrecognised',
			reason: 'unsupported-data',
			webhookId: 'ce-1',
		});
		expect(parse(structured({ data_base64: 'e30=' }))).toMatchObject({
			reason: 'invalid-cloudevent',
		});
		for (const data of ['text', 5, [1, 2]]) {
			expect(parse(structured({ data }))).toMatchObject({
				reason: 'unsupported-data',
			});
		}
		expect(parse(structured({ data: null }))).toMatchObject({ kind: 'event', payload: null });
		expect(parse(structured({ data: undefined }))).toMatchObject({
			kind: 'event',
			payload: null,
		});
	});

	it('property: the id is the same duplicate key as the same webhookId in the envelope', () => {
		fc.assert(
			fc.property(fc.string({ minLength: 1, maxLength: 80 }), (id) => {
				const ce = parse(structured({ id }));
				const envelope = parseDelivery(
					Buffer.from(JSON.stringify({ webhookId: id, event: 'consent.accepted' })),
				);
				expect(ce.deliveryKey).toBe(envelope.deliveryKey);
			}),
			{ numRuns: 300 },
		);
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
		expect(parse(structured({ specversion: 1 }))).toMatchObject({
			reason: 'invalid-cloudevent',
			cloudEvent: { specversion: '' },
		});
		expect(parse(structured({ source: 5 }))).toMatchObject({
			reason: 'invalid-cloudevent',
			cloudEvent: { source: null },
		});
		expect(parse(structured({ type: 7 }))).toMatchObject({
			reason: 'invalid-cloudevent',
			event: null,
			cloudEvent: { type: null },
		});
		// an invalid event still says which event it named
		expect(parse(structured({ source: '' }))).toMatchObject({
			reason: 'invalid-cloudevent',
			event: 'consent.accepted',
		});
		// time is OPTIONAL: absent is valid (and has no time); present, it must be a string
		expect(parse(structured({ time: undefined }))).toMatchObject({
			kind: 'event',
			timestamp: null,
			hasTimestamp: false,
		});
		expect(parse(structured({ time: null }))).toMatchObject({
			reason: 'invalid-cloudevent',
			timestamp: null,
			hasTimestamp: false,
		});
		expect(parse(structured({ time: 1700000000 }))).toMatchObject({
			reason: 'invalid-cloudevent',
			timestamp: null,
			hasTimestamp: true,
		});
		expect(parse(structured({ time: 'not a time' }))).toMatchObject({
			kind: 'event',
			timestamp: 'not a time',
			hasTimestamp: true,
		});
	});

	it('structured mode: a body that is too deep or not JSON keeps its id (remembered), none when it has none', () => {
		const deep = '['.repeat(100) + ']'.repeat(100);
		expect(parse(`{"specversion":"1.0","id":"deep-1","data":${deep}}`)).toMatchObject({
			kind: 'unrecognised',
			reason: 'too-deep',
			webhookId: 'deep-1',
			deliveryKey: 'deep-1',
			cloudEvent: expect.any(Object),
		});
		expect(parse(`{"specversion":"1.0","data":${deep}}`)).toMatchObject({
			reason: 'too-deep',
			webhookId: null,
			deliveryKey: null,
		});
		expect(parse('{"specversion":"1.0","id":"cut-1",')).toMatchObject({
			reason: 'not-json',
			webhookId: 'cut-1',
			deliveryKey: 'cut-1',
			cloudEvent: expect.any(Object),
		});
		expect(parse(structured({ data_base64: 'e30=' }))).toMatchObject({
			reason: 'invalid-cloudevent',
			cloudEvent: expect.any(Object),
		});
		expect(parse('{"specversion":"1.0",')).toMatchObject({
			reason: 'not-json',
			webhookId: null,
			deliveryKey: null,
		});
		// a UTF-8 byte order mark does not hide the specversion
		expect(parse(`\ufeff${structured()}`)).toMatchObject({
			kind: 'event',
			webhookId: 'ce-1',
			cloudEvent: expect.any(Object),
		});
	});

	it('3. HTTP Message Mapping: the media type tells a batch, parameters and case do not; ce- headers are not read', () => {
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
		// binary mode is not taken: event data without the envelope's members is Unrecognised, as any unknown form
		expect(parse(structured({ id: 'from-body' }))).toMatchObject({ webhookId: 'from-body' });
		expect(parse('{"flow":"f"}')).toEqual(parseDelivery(Buffer.from('{"flow":"f"}')));
		expect(parse('{"flow":"f"}')).toMatchObject({ kind: 'unrecognised', webhookId: null });
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
				/^Batched CloudEvents \(application\/cloudevents-batch\+json\) are not accepted: send one event per request, as a structured CloudEvent\. Nothing was run\.$/,
			),
		});
	});
});

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
			cloudEvent: { source: 'https://sbl.example/flows' },
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
		expect((await post(h.url, body)).status).toBe(401);
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
