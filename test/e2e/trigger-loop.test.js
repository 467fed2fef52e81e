'use strict';
// "The loop", in a real n8n: workflow A (examples/consent-loop-events.json) listens with the
// Consent Flow Trigger, one No Op per output; workflow B (examples/consent-loop-start.json) creates
// and deletes flows with the Consent Flow node, giving A's production URL as webhookUrl. The
// simulator then sends each flow's signed events to A. Asserted on A's execution data (which
// output of the trigger held the item, which branch ran) and on the simulator's request and
// delivery logs. Signature failures, the unrecognised output, duplicate deliveries (also across an
// n8n restart) and the acknowledgement body are covered too.
const crypto = require('node:crypto');
const { request, waitFor } = require('./lib/http');
const { versions, useN8n, simRequests, simMark } = require('./lib/suite');
const W = require('./lib/workflows');
const L = require('./lib/loop');

const TRIGGER = 'Consent Flow Trigger';
const TRIGGER_TYPE = 'n8n-nodes-sbl.consentFlowTrigger';
const SIGNING = 'consentFlowWebhookSigningApi';
const OAUTH = 'consentFlowOAuth2Api';
const START_PATH = 'sbl-consent-loop-start';
const DELETE_PATH = 'sbl-consent-loop-delete';

const PERSON = {
	nationalId: '01817000092',
	lastName: 'Nordmann',
	organizationId: '923456783',
	redirectUrl: 'https://bank.example.com/loan/thank-you',
};

// The simulator's lifecycle scenarios (test/simulator/README.md) and the events each one sends.
const SCENARIOS = {
	happy: ['consent.created', 'consent.accepted', 'consent.data'],
	rejected: ['consent.created', 'consent.rejected'],
	'user-timeout': ['consent.created', 'user.timedOut'],
	'consent-timeout': ['consent.created', 'consent.accepted', 'consent.data', 'consent.timedOut'],
	'consent-timeout-data-failed': [
		'consent.created',
		'consent.accepted',
		'consent.timedOutDataFailed',
	],
	'tax-failed': ['consent.created', 'consent.accepted', 'tax.dataFailed'],
	'income-failed': ['consent.created', 'consent.accepted', 'income.dataFailed'],
};
// Published in the older envelope form { id, type, payload: { flow, nationalId } }.
const OLD_FORM_EVENTS = new Set(['consent.rejected', 'consent.deleted']);
const TEN_EVENTS = L.TRIGGER_OUTPUTS.slice(0, L.UNRECOGNISED_INDEX);

const tag = () => crypto.randomBytes(4).toString('hex');

describe.each(versions())(
	'n8n %s.x: the consent loop (Consent Flow → service → Consent Flow Trigger)',
	(major) => {
		const ctx = useN8n(major, { simulator: true });
		const s = {
			wfA: null, // workflow A as stored
			trigger: null, // A's trigger node (from the example)
			triggerUrl: null,
			wfB: null,
			oauth: null,
			signing: null,
			emitted: [], // every delivery (simulator record) the trigger acknowledged as emitted
		};

		beforeAll(async () => {
			const { n8n, sim } = ctx;
			s.signing = await n8n.createCredential({
				name: 'SBL webhook signing (header from x-*-sbl-signature)',
				type: SIGNING,
				data: { secret: sim.signingSecret, signatureHeader: '' },
			});
			const client = sim.clients.consent;
			s.oauth = await n8n.createCredential({
				name: 'SBL Consent Flow (simulator)',
				type: OAUTH,
				data: {
					service: 'consentFlow',
					environment: 'test',
					identityProviderUrl: sim.authUrl,
					realm: 'sbl',
					apiBaseUrl: sim.consentBaseUrl,
					clientId: client.clientId,
					clientSecret: client.clientSecret,
					authentication: 'header',
					additionalScopes: '',
				},
			});

			const a = W.loadExample('consent-loop-events.json', {
				credentials: { [SIGNING]: s.signing },
			});
			s.trigger = a.nodes.find((n) => n.type === TRIGGER_TYPE);
			s.wfA = await n8n.deployWorkflow(a, {
				webhookPaths: [{ path: L.triggerPath(s.trigger), method: 'POST' }],
			});
			s.triggerUrl = n8n.webhookUrl(L.triggerPath(s.trigger));

			const b = W.loadExample('consent-loop-start.json', {
				credentials: { [OAUTH]: s.oauth },
				values: { N8N_URL: n8n.url },
			});
			s.exampleB = b;
			s.wfB = await n8n.deployWorkflow(b);
		}, 120000);

		// ---- helpers -----------------------------------------------------------------------------

		/** Starts a flow through workflow B; returns the flow the Consent Flow node output. */
		async function createFlow(externalId, person = PERSON) {
			const res = await ctx.n8n.callWebhook(START_PATH, { ...person, externalId });
			expect({ status: res.status, body: res.status === 200 ? 'ok' : res.text }).toEqual({
				status: 200,
				body: 'ok',
			});
			expect(res.json).toHaveLength(1);
			const flow = res.json[0];
			expect(flow).toMatchObject({
				id: expect.any(String),
				webhookUrl: s.triggerUrl,
				externalId,
				nationalId: person.nationalId,
			});
			return flow;
		}

		/** Waits until every delivery (by webhookId, or by a predicate) has an execution of A; returns all executions. */
		function waitForEmitted(matchers, what) {
			return L.waitForTriggerExecutions(
				ctx.n8n,
				s.wfA.id,
				(list) => matchers.every((m) => L.executionsWith(list, TRIGGER, m).length >= 1),
				{ what: `${what} (workflow A)` },
			);
		}

		const byWebhookId = (id) => (json) => json.webhookId === id;

		// Workflow A's trigger (the example): Minimise Personal Data at its default (Mask National ID)
		// shows the national ID as its last two digits and leaves out the authorization code (issue 25).
		const masked = (id) =>
			typeof id === 'string' ? '*'.repeat(Math.max(0, id.length - 2)) + id.slice(-2) : id;
		function minimisedPayload(payload) {
			const { authorizationCode: _code, ...rest } = payload;
			return 'nationalId' in rest ? { ...rest, nationalId: masked(rest.nationalId) } : rest;
		}

		/** The acknowledgement of an emitted delivery, from the simulator's record. */
		function expectEmittedAck(
			delivery,
			{ event = delivery.event, webhookId = delivery.webhookId } = {},
		) {
			expect({ status: delivery.status, error: delivery.error }).toEqual({
				status: 200,
				error: null,
			});
			expect(L.ackOf(delivery)).toEqual({ received: true, event, webhookId, status: 'emitted' });
			s.emitted.push(delivery);
		}

		/**
		 * The execution of one event delivery: the item is on the event's own output and nowhere else,
		 * it carries what was sent (webhookId from `webhookId`, or from `id` in the older form, whose
		 * timestamp is then null), and only the No Op of that branch ran.
		 */
		function expectEventExecution(exec, delivery) {
			const sent = JSON.parse(delivery.body);
			const event = delivery.event;
			const idx = L.TRIGGER_OUTPUTS.indexOf(event);
			expect(idx).toBeGreaterThanOrEqual(0);
			expect(idx).toBeLessThan(L.UNRECOGNISED_INDEX);
			const { outputs } = L.triggerRun(exec, TRIGGER);
			expect({ event, perOutput: outputs.map((o) => o.length) }).toEqual({
				event,
				perOutput: L.TRIGGER_OUTPUTS.map((_, i) => (i === idx ? 1 : 0)),
			});
			const item = outputs[idx][0];
			expect(item).toMatchObject({
				event,
				flowId: sent.payload.flow,
				nationalId: masked(sent.payload.nationalId),
				externalId: sent.payload.externalId ?? null,
				payload: minimisedPayload(sent.payload),
				receivedAt: expect.any(String),
			});
			expect(item.payload).toEqual(minimisedPayload(sent.payload));
			if ('webhookId' in sent) {
				expect(item.webhookId).toBe(sent.webhookId);
				expect(item.timestamp).toBe(sent.timestamp);
			} else {
				// Older form: the delivery id comes from `id`; there is no timestamp.
				expect(Object.keys(sent).sort()).toEqual(['id', 'payload', 'type']);
				expect(item.webhookId).toBe(sent.id);
				expect(item.timestamp).toBeNull();
			}
			expect(item).not.toHaveProperty('authorizationCode');
			expect(L.nodesThatRan(exec)).toEqual([TRIGGER, L.TRIGGER_OUTPUTS[idx]].sort());
			expect(W.nodeOutput(exec, L.TRIGGER_OUTPUTS[idx])).toEqual([item]);
			expect({ status: exec.status, mode: exec.mode }).toEqual({
				status: 'success',
				mode: 'webhook',
			});
			return item;
		}

		/** The only execution of A whose trigger item matches; fails when there are none or several. */
		function onlyExecution(executions, pred, what) {
			const mine = L.executionsWith(executions, TRIGGER, pred);
			expect({ what, executions: mine.length }).toEqual({ what, executions: 1 });
			return mine[0];
		}

		/** A flow created through B that sends no events by itself (externalId sim:none…). */
		async function quietFlow(label) {
			return createFlow(`sim:none:${label}-${tag()}`);
		}

		// ---- the loop ----------------------------------------------------------------------------

		test("workflow B's webhookUrl is the trigger's production URL /webhook/<webhookId>/webhook, and a signed delivery is acknowledged with JSON", async () => {
			const { n8n, sim } = ctx;
			// The URL form: n8n prefixes the node's webhookId to the webhook's path `webhook`.
			expect(s.triggerUrl).toBe(`${n8n.url}/webhook/${s.trigger.webhookId}/webhook`);
			const create = s.exampleB.nodes.find((n) => n.parameters.operation === 'create');
			expect(create.parameters.webhookUrl).toBe(s.triggerUrl);
			// Nothing listens on the test URL or on the path without the webhookId.
			for (const url of [
				`${n8n.url}/webhook-test/${s.trigger.webhookId}/webhook`,
				`${n8n.url}/webhook/webhook`,
			]) {
				const r = await request('POST', url, { json: {} });
				expect({ url, status: r.status }).toEqual({ url, status: 404 });
			}

			// A delivery signed here (not by the simulator): the answer is the node's own JSON, not
			// n8n's onReceived text ("firstEntryJson" / "Workflow was started").
			const webhookId = crypto.randomUUID();
			const body = JSON.stringify({
				webhookId,
				type: 'consent.created',
				event: 'consent.created',
				timestamp: new Date().toISOString(),
				payload: {
					externalId: 'direct',
					flow: crypto.randomUUID(),
					nationalId: PERSON.nationalId,
					authorizationCode: 'abc',
				},
			});
			const r = await L.signedPost(s.triggerUrl, body, {
				secret: sim.signingSecret,
				header: 'x-direct-sbl-signature',
			});
			expect(r.status).toBe(200);
			expect(r.headers['content-type']).toMatch(/^application\/json/);
			expect(r.json).toEqual({
				received: true,
				event: 'consent.created',
				webhookId,
				status: 'emitted',
			});
			expect(r.text).not.toMatch(/firstEntryJson|Workflow was started/);

			const execs = await waitForEmitted(
				[byWebhookId(webhookId)],
				`the direct delivery ${webhookId}`,
			);
			const exec = onlyExecution(execs, byWebhookId(webhookId), 'direct delivery');
			expectEventExecution(exec, { event: 'consent.created', body });
		}, 60000);

		test.each(Object.entries(SCENARIOS))(
			'scenario %s: B creates the flow, the service sends %j, each event runs A once on its own output',
			async (scenario, events) => {
				const { n8n, sim } = ctx;
				const externalId = `sim:${scenario}:loan-${tag()}`;
				const mark = await simMark(sim);
				const started = Date.now();
				const flow = await createFlow(externalId);
				expect(flow.coveredBy).toBe(PERSON.organizationId);

				// The create request the service got: Bearer token, webhookUrl = the trigger's URL.
				const creates = await simRequests(sim, {
					since: mark,
					pathPrefix: '/consent/api/flow-definitions/sbl',
				});
				expect(creates.map((c) => [c.method, c.status, c.authScheme])).toEqual([
					['POST', 201, 'Bearer'],
				]);
				expect(creates[0].body).toEqual({ ...PERSON, webhookUrl: s.triggerUrl, externalId });
				expect((await L.simFlow(sim, flow.id)).scenario).toBe(scenario);

				const ds = await waitFor(
					async () => {
						const d = await L.deliveries(sim, { flowId: flow.id });
						return d.length >= events.length && d;
					},
					{ timeoutMs: 30000, what: `${events.length} deliveries of flow ${flow.id}` },
				);
				expect(ds.map((d) => [d.event, d.source, d.url])).toEqual(
					events.map((e) => [e, 'lifecycle', s.triggerUrl]),
				);
				for (const d of ds) {
					expectEmittedAck(d);
					// Each event in its published envelope form.
					const sent = JSON.parse(d.body);
					if (OLD_FORM_EVENTS.has(d.event))
						expect(sent).toEqual({
							id: d.webhookId,
							type: d.event,
							payload: { flow: flow.id, nationalId: PERSON.nationalId },
						});
					else
						expect(sent).toMatchObject({
							webhookId: d.webhookId,
							event: d.event,
							type: d.event,
							timestamp: expect.any(String),
							payload: { externalId, flow: flow.id },
						});
				}

				const execs = await waitForEmitted(
					ds.map((d) => byWebhookId(d.webhookId)),
					`${scenario}: ${events.join(', ')}`,
				);
				const items = ds.map((d) =>
					expectEventExecution(onlyExecution(execs, byWebhookId(d.webhookId), d.event), d),
				);
				const ofFlow = L.executionsWith(execs, TRIGGER, (j) => j.flowId === flow.id);
				expect(ofFlow).toHaveLength(events.length);
				// Nothing further was sent for this flow while A ran.
				expect((await L.deliveries(sim, { flowId: flow.id })).length).toBe(events.length);
				if (events.includes('consent.data')) {
					const data = items[events.indexOf('consent.data')];
					expect(data.payload.data).toEqual({
						tax: expect.any(Object),
						income: expect.any(Object),
					});
				}
				console.log(
					`n8n ${n8n.version} ${scenario}: ${events.length} events → ${ofFlow.length} executions of A in ${Date.now() - started} ms`,
				);
			},
			60000,
		);

		test('every one of the ten events, sent in the other envelope form, also lands on its own output', async () => {
			const { sim } = ctx;
			const flow = await quietFlow('forms');
			const sent = [];
			for (const event of TEN_EVENTS) {
				const envelope = OLD_FORM_EVENTS.has(event) ? 'new' : 'old';
				const r = await L.fire(sim, flow.id, { event, envelope });
				const body = JSON.parse(r.sentBody);
				expect(envelope === 'old' ? Object.keys(body).sort() : Object.keys(body)).toEqual(
					envelope === 'old'
						? ['id', 'payload', 'type']
						: expect.arrayContaining(['webhookId', 'event', 'timestamp']),
				);
				const d = { ...r, event, body: r.sentBody, responseBody: r.body, error: r.error };
				expectEmittedAck(d, { event, webhookId: r.webhookId });
				sent.push(d);
			}
			const execs = await waitForEmitted(
				sent.map((d) => byWebhookId(d.webhookId)),
				'ten events in the other form',
			);
			const seen = new Set();
			for (const d of sent) {
				const item = expectEventExecution(
					onlyExecution(execs, byWebhookId(d.webhookId), d.event),
					d,
				);
				seen.add(item.event);
			}
			expect([...seen].sort()).toEqual([...TEN_EVENTS].sort());
		}, 60000);

		test('a signed delivery with an unknown event or a non-JSON body lands on Unrecognised (output 10)', async () => {
			const { n8n, sim } = ctx;
			const flow = await quietFlow('unrecognised');
			const before = (await L.finishedExecutions(n8n, s.wfA.id)).length;

			// Not JSON but sent as application/json (the simulator's content type): n8n's own body
			// parser answers 422 before any node runs, so the trigger never sees it.
			const xml = `<?xml version="1.0"?><event name="consent.created" flow="${flow.id}"/>`;
			const asJson = await L.fire(sim, flow.id, { rawBody: xml });
			expect(asJson.sentHeaders['content-type']).toBe('application/json');
			expect(asJson.status).toBe(422);
			expect(asJson.body).toMatch(/Failed to parse request body/);

			const future = await L.fire(sim, flow.id, { event: 'consent.someFutureEvent' });
			expect(future.status).toBe(200);
			expect(JSON.parse(future.body)).toEqual({
				received: true,
				event: 'consent.someFutureEvent',
				webhookId: future.webhookId,
				status: 'emitted',
			});
			s.emitted.push({
				deliveryId: future.deliveryId,
				event: 'consent.someFutureEvent',
				webhookId: future.webhookId,
				url: future.url,
			});

			// Not JSON with a content type n8n does not parse as JSON: signed, so it is emitted.
			const rawBody = `event=consent.created&flow=${flow.id} (not JSON)`;
			const plain = await L.signedPost(s.triggerUrl, rawBody, {
				secret: sim.signingSecret,
				header: sim.signatureHeader,
				headers: { 'content-type': 'text/plain' },
			});
			expect(plain.status).toBe(200);
			expect(plain.json).toEqual({
				received: true,
				event: null,
				webhookId: null,
				status: 'emitted',
			});

			const isFuture = (j) => j.webhookId === future.webhookId;
			// Unrecognised items carry the body's length, not the body (Minimise Personal Data)
			const isRaw = (j) => j.reason === 'not-json' && j.rawBodyLength === rawBody.length;
			const execs = await waitForEmitted([isFuture, isRaw], 'two unrecognised deliveries');
			// Exactly these two: the 422 started nothing.
			expect(execs.length).toBe(before + 2);
			for (const [pred, want] of [
				[
					isFuture,
					{
						event: 'consent.someFutureEvent',
						reason: 'unknown-event',
						rawBodyLength: future.sentBody.length,
						webhookId: future.webhookId,
					},
				],
				[isRaw, { event: null, reason: 'not-json', rawBodyLength: rawBody.length }],
			]) {
				const exec = onlyExecution(execs, pred, want.reason);
				const { outputs } = L.triggerRun(exec, TRIGGER);
				expect(outputs.map((o) => o.length)).toEqual(
					L.TRIGGER_OUTPUTS.map((_, i) => (i === L.UNRECOGNISED_INDEX ? 1 : 0)),
				);
				expect(outputs[L.UNRECOGNISED_INDEX][0]).toMatchObject(want);
				expect(outputs[L.UNRECOGNISED_INDEX][0]).not.toHaveProperty('rawBody');
				expect(L.nodesThatRan(exec)).toEqual([TRIGGER, 'Unrecognised'].sort());
				expect(W.nodeOutput(exec, 'Unrecognised')).toEqual(outputs[L.UNRECOGNISED_INDEX]);
			}
		}, 60000);

		test('deleting the flow through B sends consent.deleted (older envelope form), which lands on output 3', async () => {
			const { n8n, sim } = ctx;
			const flow = await quietFlow('delete');
			const mark = await simMark(sim);
			const res = await n8n.callWebhook(DELETE_PATH, { flowId: flow.id });
			expect(res.status).toBe(200);
			expect(res.json).toEqual([expect.objectContaining({ flowId: flow.id, deleted: true })]);
			const calls = await simRequests(sim, { since: mark, pathPrefix: '/consent/api/flows/' });
			expect(calls.map((c) => [c.method, c.path, c.status, c.authScheme])).toEqual([
				['DELETE', `/consent/api/flows/${flow.id}`, 200, 'Bearer'],
			]);
			expect((await L.simFlow(sim, flow.id)).deleted).toBe(true);

			const [d] = await waitFor(
				async () => {
					const list = await L.deliveries(sim, { flowId: flow.id });
					return list.length >= 1 && list;
				},
				{ timeoutMs: 30000, what: `consent.deleted for flow ${flow.id}` },
			);
			expect([d.event, d.source]).toEqual(['consent.deleted', 'delete']);
			expectEmittedAck(d);
			expect(JSON.parse(d.body)).toEqual({
				id: d.webhookId,
				type: 'consent.deleted',
				payload: { flow: flow.id, nationalId: PERSON.nationalId },
			});
			const execs = await waitForEmitted([byWebhookId(d.webhookId)], 'consent.deleted');
			const item = expectEventExecution(
				onlyExecution(execs, byWebhookId(d.webhookId), 'consent.deleted'),
				d,
			);
			expect(L.TRIGGER_OUTPUTS.indexOf(item.event)).toBe(3);
			expect(item.timestamp).toBeNull();
		}, 60000);

		test('a wrong, a missing or an unrecognised signature header is answered 401 and starts nothing', async () => {
			const { n8n, sim } = ctx;
			const flow = await quietFlow('signature');
			const before = (await L.finishedExecutions(n8n, s.wfA.id)).length;
			const refused = [];
			for (const opts of [
				{ badSignature: true },
				{ noSignature: true },
				{ headerName: 'x-signature' },
				{ signatureCase: 'upper', badSignature: true },
			]) {
				const r = await L.fire(sim, flow.id, { event: 'consent.accepted', ...opts });
				expect({ opts, status: r.status, body: r.body }).toEqual({
					opts,
					status: 401,
					body: 'Unauthorized',
				});
				refused.push(r.webhookId);
			}
			// Any x-<name>-sbl-signature header works when the credential names none; this accepted
			// delivery, sent last, marks the point by which the refused ones would have run.
			const ok = await L.fire(sim, flow.id, {
				event: 'consent.accepted',
				headerName: 'x-otherbank-sbl-signature',
			});
			expect(JSON.parse(ok.body)).toEqual({
				received: true,
				event: 'consent.accepted',
				webhookId: ok.webhookId,
				status: 'emitted',
			});
			s.emitted.push({
				deliveryId: ok.deliveryId,
				event: 'consent.accepted',
				webhookId: ok.webhookId,
				url: ok.url,
			});
			const execs = await waitForEmitted(
				[byWebhookId(ok.webhookId)],
				'the delivery after the refused ones',
			);
			expect(execs.length).toBe(before + 1);
			for (const id of refused)
				expect(L.executionsWith(execs, TRIGGER, byWebhookId(id))).toHaveLength(0);
			// The simulator saw the 401s.
			const log = await L.deliveries(sim, { flowId: flow.id });
			expect(log.map((d) => d.status)).toEqual([401, 401, 401, 401, 200]);
		}, 60000);

		test('with Signature Header set in the credential only that header is accepted', async () => {
			const { n8n, sim } = ctx;
			const signing = await n8n.createCredential({
				name: 'SBL webhook signing (named header)',
				type: SIGNING,
				data: { secret: sim.signingSecret, signatureHeader: sim.signatureHeader.toUpperCase() },
			});
			const a2 = W.loadExample('consent-loop-events.json', { credentials: { [SIGNING]: signing } });
			a2.name = `${a2.name} (named header ${tag()})`;
			const trig = a2.nodes.find((n) => n.type === TRIGGER_TYPE);
			trig.webhookId = crypto.randomUUID();
			const wf = await n8n.deployWorkflow(a2, {
				webhookPaths: [{ path: L.triggerPath(trig), method: 'POST' }],
			});
			const url = n8n.webhookUrl(L.triggerPath(trig));
			try {
				const flow = await quietFlow('named-header');
				const other = await L.fire(sim, flow.id, {
					event: 'consent.created',
					url,
					headerName: 'x-otherbank-sbl-signature',
				});
				expect([other.status, other.body]).toEqual([401, 'Unauthorized']);
				const good = await L.fire(sim, flow.id, { event: 'consent.created', url });
				expect(good.sentHeaders).toHaveProperty(sim.signatureHeader);
				expect(JSON.parse(good.body)).toEqual({
					received: true,
					event: 'consent.created',
					webhookId: good.webhookId,
					status: 'emitted',
				});
				const execs = await L.waitForTriggerExecutions(n8n, wf.id, (list) => list.length >= 1, {
					what: 'the named-header workflow',
				});
				expect(execs).toHaveLength(1);
				expect(L.triggerRun(execs[0], TRIGGER).items).toEqual([
					{ output: 0, json: expect.objectContaining({ webhookId: good.webhookId }) },
				]);
			} finally {
				await n8n.deactivateWorkflow(wf.id).catch(() => {});
			}
		}, 60000);

		test("imported by hand (nothing filled in), Create Consent Flow's Webhook URL expression is the trigger's Production URL on this n8n", async () => {
			const { n8n } = ctx;
			const suffix = tag();
			// No N8N_URL: the webhookUrl stays the example's expression, read from the execution's resume URL.
			const b = W.loadExample('consent-loop-start.json', {
				credentials: { [OAUTH]: s.oauth },
				pathSuffix: suffix,
			});
			const create = b.nodes.find((n) => n.name === 'Create Consent Flow');
			expect(create.parameters.webhookUrl).toContain(W.N8N_BASE_EXPRESSION);
			b.name = `${b.name} (as imported ${suffix})`;
			const wf = await n8n.deployWorkflow(b);
			try {
				const res = await n8n.callWebhook(`${START_PATH}-${suffix}`, {
					...PERSON,
					externalId: `sim:none:by-hand-${suffix}`,
				});
				expect({ status: res.status, text: res.status === 200 ? 'ok' : res.text }).toEqual({
					status: 200,
					text: 'ok',
				});
				expect(res.json[0].webhookUrl).toBe(s.triggerUrl);
			} finally {
				await n8n.deactivateWorkflow(wf.id).catch(() => {});
			}
		}, 60000);

		test('outputs follow Events: a subset gets one handle per selected event (in table order), One for All Events a single "Event" output', async () => {
			const { n8n, sim } = ctx;
			/** A trigger with these parameters, each output wired to a No Op named after it. */
			async function deploy(label, parameters, followUps) {
				const trig = W.packageTriggerNode({
					parameters,
					credentials: { [SIGNING]: s.signing },
					position: [0, 0],
				});
				const noOps = followUps.map((name, i) => ({
					id: crypto.randomUUID(),
					name,
					type: 'n8n-nodes-base.noOp',
					typeVersion: 1,
					position: [300, i * 160],
					parameters: {},
				}));
				const connections = {
					[TRIGGER]: { main: followUps.map((name) => [{ node: name, type: 'main', index: 0 }]) },
				};
				const wf = await n8n.deployWorkflow(
					W.workflow(`outputs ${label} ${tag()}`, [trig, ...noOps], connections),
					{
						webhookPaths: [{ path: L.triggerPath(trig), method: 'POST' }],
					},
				);
				return { wf, url: n8n.webhookUrl(L.triggerPath(trig)) };
			}
			const flow = await quietFlow('outputs');
			// Selected out of table order, and the expression-free form the editor stores: the outputs are
			// still in table order (Accepted, Data, Unrecognised).
			const subset = await deploy(
				'subset',
				{ events: ['unrecognised', 'consent.data', 'consent.accepted'] },
				['On Accepted', 'On Data', 'On Unrecognised'],
			);
			const single = await deploy(
				'single',
				{ events: ['consent.created', 'consent.rejected'], outputMode: 'single' },
				['Every Event'],
			);
			try {
				const fired = {};
				for (const event of [
					'consent.created',
					'consent.accepted',
					'consent.data',
					'consent.someFutureEvent',
				]) {
					fired[`subset ${event}`] = await L.fire(sim, flow.id, { event, url: subset.url });
				}
				for (const event of ['consent.created', 'consent.rejected', 'consent.data']) {
					fired[`single ${event}`] = await L.fire(sim, flow.id, { event, url: single.url });
				}
				const acks = Object.fromEntries(
					Object.entries(fired).map(([k, r]) => [k, JSON.parse(r.body).status]),
				);
				expect(acks).toEqual({
					'subset consent.created': 'filtered',
					'subset consent.accepted': 'emitted',
					'subset consent.data': 'emitted',
					'subset consent.someFutureEvent': 'emitted',
					'single consent.created': 'emitted',
					'single consent.rejected': 'emitted',
					'single consent.data': 'filtered',
				});
				const subsetExecs = await L.waitForTriggerExecutions(
					n8n,
					subset.wf.id,
					(list) => list.length >= 3,
					{ what: 'the subset workflow' },
				);
				const singleExecs = await L.waitForTriggerExecutions(
					n8n,
					single.wf.id,
					(list) => list.length >= 2,
					{ what: 'the single-output workflow' },
				);
				expect(subsetExecs).toHaveLength(3);
				expect(singleExecs).toHaveLength(2);
				const routed = (execs, key) => {
					const exec = onlyExecution(execs, byWebhookId(fired[key].webhookId), key);
					const { outputs } = L.triggerRun(exec, TRIGGER);
					expect(exec.status).toBe('success');
					return {
						perOutput: outputs.map((o) => o.length),
						ran: L.nodesThatRan(exec).filter((n) => n !== TRIGGER),
						event: L.triggerRun(exec, TRIGGER).items[0].json.event,
					};
				};
				expect(routed(subsetExecs, 'subset consent.accepted')).toEqual({
					perOutput: [1, 0, 0],
					ran: ['On Accepted'],
					event: 'consent.accepted',
				});
				expect(routed(subsetExecs, 'subset consent.data')).toEqual({
					perOutput: [0, 1, 0],
					ran: ['On Data'],
					event: 'consent.data',
				});
				expect(routed(subsetExecs, 'subset consent.someFutureEvent')).toEqual({
					perOutput: [0, 0, 1],
					ran: ['On Unrecognised'],
					event: 'consent.someFutureEvent',
				});
				expect(routed(singleExecs, 'single consent.created')).toEqual({
					perOutput: [1],
					ran: ['Every Event'],
					event: 'consent.created',
				});
				expect(routed(singleExecs, 'single consent.rejected')).toEqual({
					perOutput: [1],
					ran: ['Every Event'],
					event: 'consent.rejected',
				});
			} finally {
				await n8n.deactivateWorkflow(subset.wf.id).catch(() => {});
				await n8n.deactivateWorkflow(single.wf.id).catch(() => {});
			}
		}, 90000);

		// ---- duplicates --------------------------------------------------------------------------

		/** Redelivers each delivery byte for byte; every answer must be 200 "duplicate". */
		async function redeliverAll(list) {
			const answers = [];
			for (const d of list) {
				const r = await L.redeliver(ctx.sim, d.deliveryId);
				answers.push({
					deliveryId: d.deliveryId,
					event: d.event,
					status: r.status,
					ack: L.ackOf({ responseBody: r.body }),
				});
			}
			return answers;
		}

		const dupAnswer = (d) => ({
			deliveryId: d.deliveryId,
			event: d.event,
			status: 200,
			ack: { received: true, event: d.event, webhookId: d.webhookId, status: 'duplicate' },
		});

		/** Count of executions per webhookId of the given deliveries (all must be exactly 1). */
		function countsPerWebhookId(execs, list) {
			return Object.fromEntries(
				list.map((d) => [
					d.webhookId,
					L.executionsWith(execs, TRIGGER, byWebhookId(d.webhookId)).length,
				]),
			);
		}

		/** Fires one new delivery and waits for its execution; returns all executions. */
		async function sentinel(flowId, label) {
			const r = await L.fire(ctx.sim, flowId, { event: 'consent.accepted' });
			expect(JSON.parse(r.body)).toMatchObject({ status: 'emitted', webhookId: r.webhookId });
			s.emitted.push({
				deliveryId: r.deliveryId,
				event: 'consent.accepted',
				webhookId: r.webhookId,
				url: r.url,
			});
			return waitForEmitted([byWebhookId(r.webhookId)], `sentinel ${label}`);
		}

		/** The remembered ids in A's static data, as stored in n8n's database (public API). */
		async function rememberedIds() {
			const wf = await ctx.n8n.getWorkflow(s.wfA.id);
			let sd = wf.staticData;
			if (typeof sd === 'string') sd = JSON.parse(sd);
			if (sd === undefined)
				throw Object.assign(new Error('the public API shows no staticData'), { fatal: true });
			// version 3 (docs/architecture.md): the keys, oldest first, one per line
			const saved = sd?.[`node:${TRIGGER}`]?.consentFlowDeliveries;
			if (saved === undefined) return [];
			expect(saved.version).toBe(3);
			return saved.keys === '' ? [] : saved.keys.split('\n');
		}

		test('a redelivered webhook is answered 200 "duplicate" and starts nothing; also after an n8n restart', async () => {
			const { n8n, sim } = ctx;
			const flow = await quietFlow('duplicate');
			const originals = [];
			for (const [event, envelope] of [
				['consent.accepted', 'new'],
				['consent.rejected', 'old'],
			]) {
				const r = await L.fire(sim, flow.id, { event, envelope });
				const d = {
					deliveryId: r.deliveryId,
					event,
					webhookId: r.webhookId,
					url: r.url,
					status: r.status,
					error: r.error,
					responseBody: r.body,
					body: r.sentBody,
				};
				expectEmittedAck(d);
				originals.push(d);
				// n8n writes the remembered id to the workflow's static data after the node answered:
				// wait until it is stored before the next delivery (see the last test for why).
				await waitFor(async () => (await rememberedIds()).includes(d.webhookId), {
					timeoutMs: 15000,
					what: `${d.webhookId} in the static data of A`,
				});
			}
			let execs = await waitForEmitted(
				originals.map((d) => byWebhookId(d.webhookId)),
				'the two original deliveries',
			);
			const total0 = execs.length;

			const again = await redeliverAll(originals);
			expect(again).toEqual(originals.map(dupAnswer));
			execs = await sentinel(flow.id, 'after the redeliveries');
			expect(execs.length).toBe(total0 + 1);
			expect(countsPerWebhookId(execs, originals)).toEqual(
				Object.fromEntries(originals.map((d) => [d.webhookId, 1])),
			);
			const total1 = execs.length;

			// Restart n8n (same database and user folder): the memory is in the workflow's static data.
			const pid = n8n.pid;
			const r0 = Date.now();
			await n8n.restart();
			expect(n8n.pid).not.toBe(pid);
			await n8n.waitForWebhook(L.triggerPath(s.trigger));
			console.log(
				`n8n ${n8n.version}: restarted, trigger listening again after ${Date.now() - r0} ms`,
			);

			const afterRestart = await redeliverAll(originals);
			expect(afterRestart).toEqual(originals.map(dupAnswer));
			execs = await sentinel(flow.id, 'after the restart');
			expect(execs.length).toBe(total1 + 1);
			expect(countsPerWebhookId(execs, originals)).toEqual(
				Object.fromEntries(originals.map((d) => [d.webhookId, 1])),
			);

			// The redeliveries really reached the trigger (recorded by the simulator), twice each.
			const redelivered = (await L.deliveries(sim)).filter((d) => d.source === 'redeliver');
			for (const d of originals)
				expect(
					redelivered.filter((x) => x.redeliveryOf === d.deliveryId).map((x) => x.status),
				).toEqual([200, 200]);
		}, 150000);

		test('after the restart the whole loop still works: B creates a flow, A runs once per event', async () => {
			const { sim } = ctx;
			await ctx.n8n.waitForWebhook(START_PATH);
			const events = SCENARIOS['tax-failed'];
			const flow = await createFlow(`sim:tax-failed:after-restart-${tag()}`);
			const ds = await waitFor(
				async () => {
					const d = await L.deliveries(sim, { flowId: flow.id });
					return d.length >= events.length && d;
				},
				{ timeoutMs: 30000, what: `deliveries of flow ${flow.id}` },
			);
			expect(ds.map((d) => d.event)).toEqual(events);
			for (const d of ds) expectEmittedAck(d);
			const execs = await waitForEmitted(
				ds.map((d) => byWebhookId(d.webhookId)),
				'tax-failed after the restart',
			);
			for (const d of ds)
				expectEventExecution(onlyExecution(execs, byWebhookId(d.webhookId), d.event), d);
		}, 60000);

		// Runs last: a delivery that was forgotten is emitted again here.
		test('every delivery emitted in this file — lifecycle events 20 ms apart, back-to-back fires, before and after the restart — is remembered: redelivering it is a duplicate', async () => {
			const { n8n } = ctx;
			const emitted = s.emitted.filter(
				(d) => d.webhookId && d.deliveryId && d.url === s.triggerUrl,
			);
			expect(emitted.length).toBeGreaterThanOrEqual(35);
			const ids = await rememberedIds();
			const missingFromStaticData = emitted
				.filter((d) => !ids.includes(d.webhookId))
				.map((d) => `${d.event} ${d.webhookId}`);
			const before = (await L.finishedExecutions(n8n, s.wfA.id)).length;
			const t0 = Date.now();
			const answers = await redeliverAll(emitted);
			const notDuplicate = answers
				.filter((a) => a.status !== 200 || a.ack?.status !== 'duplicate')
				.map((a) => `${a.event} → ${a.status} ${a.ack?.status}`);
			console.log(
				`n8n ${n8n.version}: ${emitted.length} emitted deliveries, ${emitted.length - missingFromStaticData.length} in static data; ` +
					`${answers.length - notDuplicate.length} redeliveries answered "duplicate" in ${Date.now() - t0} ms`,
			);
			expect({ missingFromStaticData, notDuplicate }).toEqual({
				missingFromStaticData: [],
				notDuplicate: [],
			});
			const flow = await quietFlow('final');
			const execs = await sentinel(flow.id, 'after redelivering everything');
			expect(execs.length).toBe(before + 1);
			expect(countsPerWebhookId(execs, emitted)).toEqual(
				Object.fromEntries(emitted.map((d) => [d.webhookId, 1])),
			);
		}, 120000);
	},
);
