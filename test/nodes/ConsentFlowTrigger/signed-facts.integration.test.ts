// Issue 31: only signed facts decide. Every attack made as someone holding one signed body would
// make it, through the trigger's webhook() over real HTTP (the n8n-like harness). References, not
// the code: consent-flow-service.md, "Signature" (the hex HMAC-SHA256 of the request payload;
// node:crypto is the oracle, helpers.sign), and CloudEvents HTTP Protocol Binding 3.1 (binary mode:
// attributes in ce- headers, outside the signature), which the trigger does not take: such a
// request is read by its signed body alone.
import { request } from 'undici';

import { PUBLISHED_EVENTS, post, sign } from './helpers';
import { emitted, useTriggerHarness } from './trigger-harness';

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

describe('attacks on the trigger (HTTP harness)', () => {
	const start = useTriggerHarness();

	it('1. the signed bytes of an envelope resent with ce- headers (binary mode) are that envelope: a duplicate, whatever ce-type and ce-id say', async () => {
		const h = await start();
		const created = envelope('consent.created', 'wh-1');
		expect((await post(h.url, created, signed(created))).json).toMatchObject({ status: 'emitted' });
		for (const [type, id] of [
			['consent.data', 'n-1'],
			['consent.accepted', 'n-2'],
		]) {
			expect((await post(h.url, created, signed(created, ce(type, id)))).json).toMatchObject({
				status: 'duplicate',
				event: 'consent.created',
				webhookId: 'wh-1',
			});
		}
		expect(h.executions).toHaveLength(1);
	});

	it('2. event data sent in binary mode lands on Unrecognised, once: its headers neither route it nor make a copy new', async () => {
		const h = await start();
		const data = JSON.stringify({ flow: 'flow-r', externalId: 'loan-r' });
		expect(
			(await post(h.url, data, signed(data, ce('consent.created', 'r-1')))).json,
		).toMatchObject({ status: 'emitted', webhookId: null });
		for (const type of ['consent.data', 'consent.rejected']) {
			expect((await post(h.url, data, signed(data, ce(type, `r-${type}`)))).json).toMatchObject({
				status: 'duplicate',
			});
		}
		expect(h.executions).toHaveLength(1);
		expect(emitted(h, 0).index).toBe(PUBLISHED_EVENTS.length);
	});

	it('3. suppression by id: an old body under the id of a genuine delivery that has not arrived does not make it a duplicate', async () => {
		const h = await start();
		const id = 'genuine-1';
		const old = JSON.stringify({ flow: 'flow-s' });
		const forged = await post(h.url, old, signed(old, ce('consent.created', id)));
		expect(forged.json).toMatchObject({ status: 'emitted', webhookId: null });
		const genuine = envelope('consent.data', id);
		expect((await post(h.url, genuine, signed(genuine))).json).toMatchObject({
			status: 'emitted',
			webhookId: id,
		});
	});

	it('4. flush: copies of one body with fresh ids do not push a real id out of the remembered deliveries', async () => {
		const h = await start({ parameters: { rememberedDeliveries: 3 } });
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

	it('no header decides: each body runs once', async () => {
		await fc.assert(
			fc.asyncProperty(sends, async (list) => {
				start.restart(); // each run is a fresh process: every body may run once again
				const h = await start();
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
					expect([which, ceh, r.status]).toEqual([which, ceh, 200]);
					if (h.executions.length > before) ran.set(which, (ran.get(which) ?? 0) + 1);
				}
				for (const [which, count] of ran) expect([which, count]).toEqual([which, 1]);
				// and every body sent did run
				expect(ran.size).toBe(new Set(list.map(([which]) => which)).size);
				await h.close();
			}),
			{ numRuns: 25 },
		);
	}, 60000);
});
