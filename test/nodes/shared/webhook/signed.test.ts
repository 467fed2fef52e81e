// Issue 31: only signed facts decide. Every attack made as someone holding one signed body would
// make it, through the trigger's webhook() over real HTTP (the n8n-like harness); each of them ran
// (or suppressed a genuine delivery) on f259bcd. References, not the code:
// - consent-flow-service.md, "Signature": the signature is the hex HMAC-SHA256 of the request
//   payload; node:crypto is the oracle (helpers.sign).
// - CloudEvents HTTP Protocol Binding 3.1 (binary mode: attributes in ce- headers, the body is
//   the data) and 3.2 (structured mode: the whole event in the body).
import { request } from 'undici';

import {
	ACCEPT_UNSIGNED_OPTION,
	UNSIGNED_ANSWERS,
	UNSIGNED_ATTRIBUTES,
	isEnvelopeLike,
	unsignedRefusal,
	withSignedKey,
	type TrustRules,
} from '../../../../nodes/shared/webhook/signed';
import { parseIncoming, type IncomingDelivery } from '../../../../nodes/shared/webhook/cloudevents';
import { ConsentFlowTrigger } from '../../../../nodes/ConsentFlowTrigger/ConsentFlowTrigger.node';
import { flowCreateAndWaitDescription } from '../../../../nodes/ConsentFlow/flow/createAndWait';
import { PUBLISHED_EVENTS, post, sign } from '../../ConsentFlowTrigger/helpers';
import { emitted, useTriggerHarness } from '../../ConsentFlowTrigger/trigger-harness';

const ON = { options: { acceptUnsignedHeaders: true } };

function ce(type: string, id: string, extra: Record<string, string> = {}): Record<string, string> {
	return {
		'ce-specversion': '1.0',
		'ce-type': type,
		'ce-id': id,
		'ce-source': '/sbl',
		'ce-time': new Date().toISOString(),
		...extra,
	};
}

const signed = (body: string, headers: Record<string, string> = {}) => ({
	'x-acme-sbl-signature': sign(body),
	...headers,
});

function envelope(event: string, webhookId: string, extra: Record<string, unknown> = {}): string {
	return JSON.stringify({
		webhookId,
		event,
		timestamp: new Date().toISOString(),
		payload: { flow: `flow-${webhookId}` },
		...extra,
	});
}

const outputOf = (event: string) => PUBLISHED_EVENTS.indexOf(event);

describe('the decision table (signed.ts)', () => {
	const body = (text: string) => Buffer.from(text, 'utf8');
	const binary = (text: string) =>
		parseIncoming(body(text), {
			headers: { 'content-type': 'application/json', ...ce('consent.data', 'x') },
		});
	const rules = (acceptUnsigned: boolean, maxAgeSeconds = 0): TrustRules => ({
		acceptUnsigned,
		maxAgeSeconds,
	});
	const data = '{"flow":"f"}';

	// rows: [what arrives, option, Maximum Age] → refusal (null: it may run)
	const rows: Array<[string, IncomingDelivery, string, boolean, number, string | null]> = [
		[
			'envelope',
			parseIncoming(body(envelope('consent.data', 'w')), { headers: {} }),
			envelope('consent.data', 'w'),
			false,
			300,
			null,
		],
		[
			'structured CloudEvent',
			parseIncoming(body('{"specversion":"1.0","id":"i","source":"s","type":"consent.data"}'), {
				headers: {},
			}),
			'{}',
			false,
			300,
			null,
		],
		['binary data, option off', binary(data), data, false, 0, 'binary-mode'],
		['binary data, option off, Maximum Age', binary(data), data, false, 300, 'binary-mode'],
		['binary data, option on', binary(data), data, true, 0, null],
		['binary data, option on, Maximum Age', binary(data), data, true, 300, 'unsigned-time'],
		[
			'binary envelope, option on',
			binary(envelope('consent.created', 'w')),
			envelope('consent.created', 'w'),
			true,
			0,
			'envelope-in-binary',
		],
		[
			'binary structured event, option on',
			binary('{"specversion":"1.0"}'),
			'{"specversion":"1.0"}',
			true,
			0,
			'envelope-in-binary',
		],
		[
			'binary older envelope (type), option on',
			binary('{"type":"consent.deleted"}'),
			'{"type":"consent.deleted"}',
			true,
			0,
			'envelope-in-binary',
		],
	];
	// titled by the label alone: a title that printed the delivery would hold the time of the run,
	// and Stryker finds a test again by its title
	it.each(rows)('%s', (_label, delivery, raw, accept, maxAge, expected) => {
		expect(unsignedRefusal(delivery, body(raw), rules(accept, maxAge))).toBe(expected);
	});

	it('isEnvelopeLike: members that name an event or id; plain data is not; a BOM does not hide them', () => {
		for (const member of ['webhookId', 'event', 'type', 'payload', 'specversion']) {
			expect([member, isEnvelopeLike(body(JSON.stringify({ [member]: 'x' })))]).toEqual([
				member,
				true,
			]);
		}
		expect(isEnvelopeLike(body('{"flow":"f","nationalId":"1","externalId":"e"}'))).toBe(false);
		expect(isEnvelopeLike(body('\ufeff{"event":"consent.data"}'))).toBe(true);
		expect(isEnvelopeLike(body('not json'))).toBe(false);
	});

	it('withSignedKey: binary mode is keyed on the signed bytes and lists its unsigned attributes; a signed id stays the key; no id gets the bytes', () => {
		const digest = 'ab'.repeat(32);
		const signed = { bodyKeys: () => ['~k:current', '~k:previous'], digests: [digest] };
		expect(withSignedKey(binary(data), signed)).toMatchObject({
			deliveryKey: '~k:current',
			otherKeys: { also: ['~k:previous'], legacy: [`~d:${digest}`] },
			webhookId: 'x',
			cloudEvent: { mode: 'binary', unsigned: [...UNSIGNED_ATTRIBUTES] },
		});
		const env = parseIncoming(body(envelope('consent.data', 'w-1')), { headers: {} });
		expect(withSignedKey(env, signed)).toEqual(env);
		const idless = parseIncoming(body('{"note":1}'), { headers: {} });
		expect(idless.deliveryKey).toBeNull();
		expect(withSignedKey(idless, signed).deliveryKey).toBe('~k:current');
	});
});

describe('what a refusal says, and the option (signed.ts)', () => {
	const body = (text: string) => Buffer.from(text, 'utf8');

	it('binary mode: the attributes taken from ce- headers are listed as unsigned (CloudEvents binding 3.1: id, source, time, type)', () => {
		const delivery = parseIncoming(body('{"flow":"f"}'), {
			headers: { 'content-type': 'application/json', ...ce('consent.data', 'b-1') },
		});
		const signed = { bodyKeys: () => ['~k:cd'], digests: ['cd'.repeat(32)] };
		const keyed = withSignedKey(delivery, signed);
		expect(keyed.cloudEvent?.unsigned).toEqual(['id', 'source', 'time', 'type']);
		expect(keyed).toMatchObject({
			kind: 'event',
			event: 'consent.data',
			webhookId: 'b-1',
			deliveryKey: '~k:cd',
		});
		expect(keyed.cloudEvent).toMatchObject({
			mode: 'binary',
			specversion: '1.0',
			source: '/sbl',
			type: 'consent.data',
		});
		// the parsed delivery is left as it was
		expect(delivery.deliveryKey).toBe('b-1');
		expect(delivery.cloudEvent?.unsigned).toBeUndefined();
		// structured mode: everything is signed, nothing is listed and the signed id stays the key
		const structured = parseIncoming(
			body('{"specversion":"1.0","id":"s-1","source":"/s","type":"consent.data"}'),
			{ headers: {} },
		);
		expect(withSignedKey(structured, signed)).toEqual(structured);
		expect(UNSIGNED_ATTRIBUTES).toEqual(['id', 'source', 'time', 'type']);
	});

	it('each 400 answer says what was unsigned, what to send instead, and that nothing ran', () => {
		const reasons = ['binary-mode', 'envelope-in-binary', 'unsigned-time'] as const;
		expect(Object.keys(UNSIGNED_ANSWERS).sort()).toEqual([...reasons].sort());
		for (const reason of reasons) {
			const answer = UNSIGNED_ANSWERS[reason];
			expect([reason, answer.received, answer.status, answer.reason]).toEqual([
				reason,
				false,
				'unsigned',
				reason,
			]);
			expect([reason, answer.message.endsWith(' Nothing was run.')]).toEqual([reason, true]);
		}
		const { message: binaryMode } = UNSIGNED_ANSWERS['binary-mode'];
		expect(binaryMode).toMatch(
			/^CloudEvents in binary mode carry the event type, id and time in ce- headers, which the signature does not cover/,
		);
		expect(binaryMode).toContain('"Accept Unsigned CloudEvents Headers" is off');
		expect(binaryMode).toContain(
			"Send the event as the service's envelope or as a structured CloudEvent.",
		);
		const { message: envelopeInBinary } = UNSIGNED_ANSWERS['envelope-in-binary'];
		expect(envelopeInBinary).toMatch(
			/^The signed body is itself an envelope or a structured CloudEvent, sent with ce- headers/,
		);
		expect(envelopeInBinary).toContain(
			'would come from unsigned headers. Send it without ce- headers.',
		);
		const { message: unsignedTime } = UNSIGNED_ANSWERS['unsigned-time'];
		expect(unsignedTime).toMatch(
			/^Maximum Age is set, and in binary mode the time \(ce-time\) is not signed/,
		);
		expect(unsignedTime).toContain('cannot be checked.');
	});

	it('the option is on the trigger and on Create and Wait, off by default, and its description says what is unsigned', () => {
		const triggerOptions =
			new ConsentFlowTrigger().description.properties.find((p) => p.name === 'options')?.options ??
			[];
		const waitOptions =
			flowCreateAndWaitDescription.find((p) => p.name === 'options')?.options ?? [];
		// the key the nodes read (options.acceptUnsignedHeaders), as the HTTP tests set it
		const optionIn = (options: typeof triggerOptions) =>
			options.find((o) => 'name' in o && o.name === 'acceptUnsignedHeaders');
		expect(optionIn(triggerOptions)).toBe(ACCEPT_UNSIGNED_OPTION);
		// issue 41: Create and Wait keeps the saved option but says it refuses it (two outcomes with one body)
		expect(optionIn(waitOptions)).toMatchObject({ name: 'acceptUnsignedHeaders', default: false });
		expect((optionIn(waitOptions) as { description: string }).description).toMatch(
			/^Not available with Create and Wait for Outcome: .*could not be told apart/,
		);
		expect(ACCEPT_UNSIGNED_OPTION).toMatchObject({
			displayName: 'Accept Unsigned CloudEvents Headers',
			name: 'acceptUnsignedHeaders',
			type: 'boolean',
			default: false,
		});
		expect(ACCEPT_UNSIGNED_OPTION.description).toMatch(
			/^Whether to accept CloudEvents in binary mode, whose event type, ID and time come in ce- headers that the signature does not cover\./,
		);
		expect(ACCEPT_UNSIGNED_OPTION.description).toContain(
			'Off: such deliveries are refused (400) and nothing runs.',
		);
	});
});

describe('attacks on the trigger (HTTP harness)', () => {
	const start = useTriggerHarness();

	it('1. downgrade (option off): the exact signed bytes of an envelope, resent with ce- headers, are refused 400 — never emitted again', async () => {
		const h = await start({ parameters: { options: { maxAgeSeconds: 300 } } });
		const created = envelope('consent.created', 'wh-1');
		expect((await post(h.url, created, signed(created))).json).toMatchObject({ status: 'emitted' });
		for (const [type, id] of [
			['consent.data', 'n-1'],
			['consent.accepted', 'n-2'],
			['consent.data', 'n-3'],
		]) {
			const r = await post(h.url, created, signed(created, ce(type, id)));
			expect(r).toMatchObject({
				status: 400,
				json: { received: false, status: 'unsigned', reason: 'binary-mode' },
			});
			expect((r.json as { message: string }).message).toMatch(/Nothing was run\./);
		}
		// two days old: stale as sent, and no ce- header makes it run
		const old = envelope('consent.data', 'wh-old', {
			timestamp: new Date(Date.now() - 2 * 86400e3).toISOString(),
		});
		expect((await post(h.url, old, signed(old))).json).toMatchObject({ status: 'stale' });
		const noTime = ce('consent.data', 'n-4');
		delete noTime['ce-time'];
		expect((await post(h.url, old, signed(old, noTime))).status).toBe(400);
		expect(h.executions).toHaveLength(1);
	});

	it('2. replay under another type (option on): the same signed bytes are one delivery whatever ce-type and ce-id say', async () => {
		const h = await start({ parameters: ON });
		const data = JSON.stringify({ flow: 'flow-r', externalId: 'loan-r' });
		expect(
			(await post(h.url, data, signed(data, ce('consent.created', 'r-1')))).json,
		).toMatchObject({ status: 'emitted', event: 'consent.created' });
		for (const type of ['consent.data', 'consent.rejected', 'consent.accepted']) {
			expect((await post(h.url, data, signed(data, ce(type, `r-${type}`)))).json).toMatchObject({
				status: 'duplicate',
			});
		}
		expect(h.executions).toHaveLength(1);
		expect(emitted(h, 0).index).toBe(outputOf('consent.created'));
		// an envelope in binary mode: its event and id would come from the headers
		const env = envelope('consent.created', 'wh-e');
		expect((await post(h.url, env, signed(env, ce('consent.data', 'r-x')))).json).toMatchObject({
			status: 'unsigned',
			reason: 'envelope-in-binary',
		});
		const structured = JSON.stringify({
			specversion: '1.0',
			id: 's-1',
			source: '/s',
			type: 'consent.created',
			data: {},
		});
		expect(
			(await post(h.url, structured, signed(structured, ce('consent.data', 'r-y')))).status,
		).toBe(400);
		expect(h.executions).toHaveLength(1);
	});

	it('3. suppression by id: an old body under the id of a genuine delivery that has not arrived does not make it a duplicate', async () => {
		for (const [parameters, id] of [
			[{}, 'genuine-off'],
			[ON, 'genuine-on'],
		] as const) {
			const h = await start({ parameters });
			const old = JSON.stringify({ flow: 'flow-s' });
			// the old body is seen once first (as a genuine binary delivery would have been)
			if (parameters === ON) await post(h.url, old, signed(old, ce('consent.created', 'first')));
			const forged = await post(h.url, old, signed(old, ce('consent.created', id)));
			expect(forged.status).toBe(parameters === ON ? 200 : 400);
			const genuine = envelope('consent.data', id);
			expect([id, (await post(h.url, genuine, signed(genuine))).json]).toEqual([
				id,
				expect.objectContaining({ status: 'emitted', webhookId: id }),
			]);
			if (parameters === ON) {
				// a genuine binary delivery whose ce-id another body used: it runs too
				const other = JSON.stringify({ flow: 'flow-s', n: 2 });
				expect(
					(await post(h.url, other, signed(other, ce('consent.accepted', id)))).json,
				).toMatchObject({ status: 'emitted' });
			}
			await h.close();
		}
	});

	it('4. flush: copies of one body with fresh ids do not push a real id out of the remembered deliveries', async () => {
		const h = await start({ parameters: { ...ON, rememberedDeliveries: 3 } });
		const real = envelope('consent.accepted', 'real-1');
		expect((await post(h.url, real, signed(real))).json).toMatchObject({ status: 'emitted' });
		const copy = JSON.stringify({ flow: 'flow-f' });
		const answers: string[] = [];
		for (let i = 0; i < 50; i++) {
			answers.push(
				(
					(await post(h.url, copy, signed(copy, ce('consent.created', `flush-${i}`)))).json as {
						status: string;
					}
				).status,
			);
		}
		expect(answers.filter((a) => a === 'emitted')).toHaveLength(1);
		expect((await post(h.url, real, signed(real))).json).toMatchObject({ status: 'duplicate' });
		expect(h.executions).toHaveLength(2);
	});

	it('6. an envelope under Content-Type application/cloudevents+json is the envelope (its id de-duplicates), and id-less bodies run once', async () => {
		const h = await start();
		const env = envelope('consent.accepted', 'ct-1');
		const first = await post(
			h.url,
			env,
			signed(env, { 'content-type': 'application/cloudevents+json' }),
		);
		expect(first.json).toMatchObject({
			status: 'emitted',
			event: 'consent.accepted',
			webhookId: 'ct-1',
		});
		expect((await post(h.url, env, signed(env))).json).toMatchObject({ status: 'duplicate' });
		expect(
			(await post(h.url, env, signed(env, { 'content-type': 'application/cloudevents+json' })))
				.json,
		).toMatchObject({ status: 'duplicate' });
		const odd = '{"note":"no id"}';
		expect((await post(h.url, odd, signed(odd))).json).toMatchObject({
			status: 'emitted',
			webhookId: null,
		});
		for (const type of ['application/json', 'text/plain', 'application/cloudevents+json']) {
			expect((await post(h.url, odd, signed(odd, { 'content-type': type }))).json).toMatchObject({
				status: 'duplicate',
			});
		}
		expect(h.executions).toHaveLength(2);
		expect(emitted(h, 1).index).toBe(PUBLISHED_EVENTS.length);
	});

	it('Maximum Age cannot be met by an unsigned ce-time (option on): 400, nothing run', async () => {
		const h = await start({
			parameters: { options: { acceptUnsignedHeaders: true, maxAgeSeconds: 600 } },
		});
		const data = '{"flow":"f-age"}';
		const r = await post(h.url, data, signed(data, ce('consent.data', 'age-1')));
		expect(r).toMatchObject({ status: 400, json: { reason: 'unsigned-time' } });
		expect(h.executions).toHaveLength(0);
	});

	it('repeated ce- headers or a query string change nothing that decides', async () => {
		const h = await start();
		const env = envelope('consent.data', 'q-1');
		const viaQuery = await post(
			`${h.url}?event=consent.rejected&webhookId=other`,
			env,
			signed(env),
		);
		expect(viaQuery.json).toMatchObject({
			status: 'emitted',
			event: 'consent.data',
			webhookId: 'q-1',
		});
		const response = await request(h.url, {
			method: 'POST',
			body: env,
			headers: [
				'content-type',
				'application/json',
				'x-acme-sbl-signature',
				sign(env),
				'ce-type',
				'consent.rejected',
				'ce-type',
				'consent.deleted',
			],
		});
		// no ce-specversion: not binary mode; the headers are only shown, the signed id decides
		expect(JSON.parse(await response.body.text())).toMatchObject({
			status: 'duplicate',
			webhookId: 'q-1',
		});
		expect(h.executions).toHaveLength(1);
	});
});

describe('property: whatever headers come with a few signed bodies, each body runs at most once (HTTP harness)', () => {
	const start = useTriggerHarness();
	const fc: typeof import('fast-check') = jest.requireActual('fast-check');

	const bodies = [
		envelope('consent.created', 'p-env-1'),
		envelope('consent.data', 'p-env-2'),
		JSON.stringify({ flow: 'p-flow', externalId: 'p-ext' }),
		JSON.stringify({
			specversion: '1.0',
			id: 'p-ce-1',
			source: '/s',
			type: 'consent.accepted',
			data: { flow: 'p' },
		}),
		'{"note":"no id"}',
	];
	const header = fc.record(
		{
			specversion: fc.constantFrom('1.0', '0.3'),
			type: fc.constantFrom(...PUBLISHED_EVENTS, 'com.example.other'),
			id: fc.constantFrom('p-env-1', 'p-env-2', 'p-ce-1', 'fresh-a', 'fresh-b'),
			time: fc.constantFrom(new Date().toISOString(), '2000-01-01T00:00:00Z'),
			contentType: fc.constantFrom(
				'application/json',
				'application/cloudevents+json',
				'text/plain',
			),
		},
		{ requiredKeys: ['contentType'] },
	);
	const sends = fc.array(fc.tuple(fc.nat(bodies.length - 1), header), {
		minLength: 1,
		maxLength: 25,
	});

	it.each([[false], [true]])(
		'Accept Unsigned CloudEvents Headers %s',
		async (accept) => {
			await fc.assert(
				fc.asyncProperty(sends, async (list) => {
					start.restart(); // each run is a fresh process: every body may run once again
					const h = await start({ parameters: { options: { acceptUnsignedHeaders: accept } } });
					const ran = new Map<number, number>();
					for (const [which, ceh] of list) {
						const body = bodies[which];
						const headers: Record<string, string> = { 'content-type': ceh.contentType };
						if (ceh.specversion !== undefined) headers['ce-specversion'] = ceh.specversion;
						if (ceh.type !== undefined) headers['ce-type'] = ceh.type;
						if (ceh.id !== undefined) headers['ce-id'] = ceh.id;
						if (ceh.time !== undefined) headers['ce-time'] = ceh.time;
						headers['ce-source'] = '/s';
						const before = h.executions.length;
						const r = await post(h.url, body, signed(body, headers));
						const binary =
							ceh.specversion !== undefined && ceh.contentType !== 'application/cloudevents+json';
						// the reference: binary mode runs only with the option on and a body that is event data
						if (binary && (!accept || (which !== 2 && which !== 4)))
							expect([which, ceh, r.status]).toEqual([which, ceh, 400]);
						else expect([which, ceh, r.status]).toEqual([which, ceh, 200]);
						if (h.executions.length > before) ran.set(which, (ran.get(which) ?? 0) + 1);
					}
					for (const [which, count] of ran) expect([which, count]).toEqual([which, 1]);
					// and the bodies the reference lets through did run
					const mayRun = list.filter(
						([which, ceh]) =>
							!(
								ceh.specversion !== undefined && ceh.contentType !== 'application/cloudevents+json'
							) ||
							(accept && (which === 2 || which === 4)),
					);
					expect(ran.size).toBe(new Set(mayRun.map(([which]) => which)).size);
					await h.close();
				}),
				{ numRuns: 25 },
			);
		},
		60000,
	);
});
