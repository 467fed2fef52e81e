'use strict';
// Compatibility matrix only (scripts/compat/test-compat.js; not part of `npm test`, whose jest projects
// match *.test.js): the Consent Flow Trigger's two respond modes on one n8n (SQLite), signed
// deliveries sent from here.
//   Immediately                 → 200 with the node's JSON ack ("emitted"), one execution with the
//                                 item on its event's output; the same bytes again → "duplicate",
//                                 no second execution.
//   When the Workflow Finishes  → a downstream that fails each id's first call: the first delivery
//                                 is answered 5xx (the service redelivers), the second 2xx after a
//                                 successful run; a third copy starts nothing.
// Runs against whatever SBL_E2E_VERSIONS selects (an exact version in the matrix).
const crypto = require('node:crypto');
const http = require('node:http');
const { versions, useN8n } = require('../lib/suite');
const { waitFor, sleep } = require('../lib/http');
const W = require('../lib/workflows');
const L = require('../lib/loop');
const D = require('../lib/deliveries');

const TRIGGER = 'Consent Flow Trigger';
const SIGNING = 'consentFlowWebhookSigningApi';

/** A downstream system that fails the first call for each id (500) and accepts every later one. */
async function flakyServer() {
	const seen = new Map();
	const server = http.createServer((req, res) => {
		const id = new URL(req.url, 'http://x').searchParams.get('id') || '';
		const n = (seen.get(id) || 0) + 1;
		seen.set(id, n);
		res.statusCode = n === 1 ? 500 : 200;
		res.setHeader('content-type', 'application/json');
		res.end(JSON.stringify({ id, call: n }));
	});
	await new Promise((r) => server.listen(0, '127.0.0.1', r));
	return {
		url: `http://127.0.0.1:${server.address().port}`,
		seen,
		close: () => new Promise((r) => server.close(r)),
	};
}

const noOp = (name, position = [440, 0]) => ({
	id: crypto.randomUUID(),
	name,
	type: 'n8n-nodes-base.noOp',
	typeVersion: 1,
	position,
	parameters: {},
});

/** Every output of the trigger into `to`. */
function allOutputsTo(to) {
	return {
		[TRIGGER]: {
			main: Array.from({ length: L.TRIGGER_OUTPUTS.length }, () => [
				{ node: to, type: 'main', index: 0 },
			]),
		},
	};
}

/** Executions of a workflow whose trigger emitted the delivery id (any status). */
async function executionsOf(n8n, workflowId, id) {
	const all = await n8n.executions(workflowId, { includeData: true, limit: 250 });
	return all.filter((e) =>
		L.triggerRun(e, TRIGGER).items.some(({ json }) => json.webhookId === id),
	);
}

describe.each(versions())('n8n %s.x: Consent Flow Trigger respond modes', (major) => {
	const ctx = useN8n(major);
	const secret = crypto.randomBytes(24).toString('hex');
	let signing;
	let flaky;
	const tag = () => `c${crypto.randomBytes(3).toString('hex')}`;

	beforeAll(async () => {
		signing = await ctx.n8n.createCredential({
			name: 'compat signing',
			type: SIGNING,
			data: { secret, signatureHeader: '' },
		});
		flaky = await flakyServer();
	}, 60000);

	afterAll(async () => {
		if (flaky) await flaky.close();
	});

	test('Immediately: 200 with the JSON ack "emitted", one execution on the event\'s output; the same bytes again → "duplicate", no second execution', async () => {
		const { n8n } = ctx;
		const trigger = W.packageTriggerNode({
			name: TRIGGER,
			parameters: {},
			credentials: { [SIGNING]: signing },
		});
		const wf = await n8n.deployWorkflow(
			W.workflow('compat immediately', [trigger, noOp('NoOp')], allOutputsTo('NoOp')),
			{
				webhookPaths: [W.triggerWebhookPath(trigger)],
			},
		);
		const [d] = D.signedDeliveries({ count: 1, secret, tag: tag() });
		const url = n8n.webhookUrl(W.triggerWebhookPath(trigger));
		const first = await n8n.callWebhook(W.triggerWebhookPath(trigger), undefined, {
			body: d.body,
			headers: d.headers,
		});
		expect({ status: first.status, json: first.json }).toEqual({
			status: 200,
			json: { received: true, event: d.event, webhookId: d.id, status: 'emitted' },
		});
		const execs = await waitFor(
			async () => {
				const list = (await executionsOf(n8n, wf.id, d.id)).filter(
					(e) => e.finished || e.stoppedAt,
				);
				return list.length >= 1 && list;
			},
			{ timeoutMs: 30000, what: `the execution of ${d.id} at ${url}` },
		);
		expect(execs).toHaveLength(1);
		expect(execs[0].status).toBe('success');
		const outputs = L.triggerRun(execs[0], TRIGGER).outputs;
		expect(outputs[d.output].map((j) => j.webhookId)).toEqual([d.id]);

		const again = await n8n.callWebhook(W.triggerWebhookPath(trigger), undefined, {
			body: d.body,
			headers: d.headers,
		});
		expect({ status: again.status, ack: again.json && again.json.status }).toEqual({
			status: 200,
			ack: 'duplicate',
		});
		await sleep(2000);
		expect(await executionsOf(n8n, wf.id, d.id)).toHaveLength(1);
	}, 120000);

	test('When the Workflow Finishes: a run that fails downstream is answered 5xx, the redelivery 2xx after a successful run; a later copy starts nothing', async () => {
		const { n8n } = ctx;
		const trigger = W.packageTriggerNode({
			name: TRIGGER,
			parameters: { respond: 'lastNode' },
			credentials: { [SIGNING]: signing },
		});
		const downstream = W.httpRequestNode({
			name: 'Downstream',
			url: `={{ '${flaky.url}/record?id=' + encodeURIComponent($json.webhookId) }}`,
		});
		const wf = await n8n.deployWorkflow(
			W.workflow('compat when finished', [trigger, downstream], {
				[TRIGGER]: {
					main: Array.from({ length: L.TRIGGER_OUTPUTS.length }, () => [
						{ node: downstream.name, type: 'main', index: 0 },
					]),
				},
			}),
			{ webhookPaths: [W.triggerWebhookPath(trigger)] },
		);
		const [d] = D.signedDeliveries({ count: 1, secret, tag: tag() });
		const send = () =>
			n8n.callWebhook(W.triggerWebhookPath(trigger), undefined, {
				body: d.body,
				headers: d.headers,
			});

		const first = await send();
		expect(first.status).toBeGreaterThanOrEqual(500);
		const second = await send();
		expect(second.status).toBe(200);
		expect(flaky.seen.get(d.id)).toBe(2);
		const execs = await waitFor(
			async () => {
				const list = (await executionsOf(n8n, wf.id, d.id)).filter(
					(e) => e.finished || e.stoppedAt,
				);
				return list.length >= 2 && list;
			},
			{ timeoutMs: 30000, what: `two executions of ${d.id}` },
		);
		expect(execs.map((e) => e.status).sort()).toEqual(['error', 'success']);

		const third = await send();
		expect(third.status).toBe(200);
		await sleep(2000);
		expect(await executionsOf(n8n, wf.id, d.id)).toHaveLength(2);
		expect(flaky.seen.get(d.id)).toBe(2);
	}, 120000);
});
