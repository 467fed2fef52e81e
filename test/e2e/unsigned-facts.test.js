'use strict';
// Issue 31, in a real n8n: only signed facts decide. The service signs the body only (hex
// HMAC-SHA256 of the raw bytes, consent-flow-service.md "Signature"); CloudEvents binary mode
// carries type, id and time in `ce-` headers (HTTP Protocol Binding 3.1), outside the signature,
// and the trigger does not take it: a request is read by its signed body alone (issue 51). Each
// attack is made as an attacker holding one signed body would make it.
const crypto = require('node:crypto');
const { request, sleep } = require('./lib/http');
const { useN8n, firstVersion } = require('./lib/suite');
const W = require('./lib/workflows');
const L = require('./lib/loop');

const TRIGGER = 'Consent Flow Trigger';
const SIGNING = 'consentFlowWebhookSigningApi';
const HEADER = 'x-acme-sbl-signature';
// The outputs with every event selected, in the published order (README, Outputs).
const OUTPUT = { 'consent.created': 0, 'consent.accepted': 1, 'consent.data': 4, unrecognised: 10 };

// The decisions are the trigger's own (the raw bytes n8n hands over are checked on every major
// by cloudevents.test.js, the answer path by trigger-loop, hang-up and burst): run on the first
// major of the run only.
describe.each(firstVersion())('n8n %s.x: only signed facts decide (issue 31)', (major) => {
	const ctx = useN8n(major);
	const secret = crypto.randomBytes(24).toString('hex');
	const TAG = crypto.randomBytes(3).toString('hex');
	let cred;

	beforeAll(async () => {
		cred = await ctx.n8n.createCredential({
			name: 'Unsigned facts signing',
			type: SIGNING,
			data: { secret, signatureHeader: '' },
		});
	}, 120000);

	async function deploy(label, parameters) {
		const trigger = W.packageTriggerNode({
			name: TRIGGER,
			credentials: { [SIGNING]: cred },
			// the node's default Minimise Personal Data
			parameters: { minimisePersonalData: undefined, ...parameters },
		});
		const wf = await ctx.n8n.deployWorkflow(W.workflow(`unsigned ${label} ${TAG}`, [trigger], {}), {
			webhookPaths: [W.triggerWebhookPath(trigger)],
		});
		const url = ctx.n8n.webhookUrl(W.triggerWebhookPath(trigger));
		const post = async (body, headers = {}) => {
			const signature = crypto.createHmac('sha256', secret).update(body).digest('hex');
			const r = await request('POST', url, {
				body: Buffer.from(body, 'utf8'),
				headers: { 'content-type': 'application/json', [HEADER]: signature, ...headers },
			});
			return { status: r.status, json: r.json };
		};
		return { post, workflowId: wf.id };
	}

	/** The workflow's executions once `count` have finished (and no more arrive for a moment). */
	async function finished(workflowId, count) {
		let list = [];
		for (let i = 0; i < 80; i++) {
			list = await L.allExecutions(ctx.n8n, workflowId, { includeData: false });
			if (list.length >= count && list.every((e) => e.stoppedAt)) break;
			await sleep(250);
		}
		await sleep(1000);
		return L.allExecutions(ctx.n8n, workflowId, { includeData: true });
	}

	const ceHeaders = (type, id, extra = {}) => ({
		'ce-specversion': '1.0',
		'ce-type': type,
		'ce-id': id,
		'ce-source': '/sbl',
		'ce-time': new Date().toISOString(),
		...extra,
	});
	const envelope = (event, webhookId, extra = {}) =>
		JSON.stringify({
			webhookId,
			event,
			timestamp: new Date().toISOString(),
			payload: { flow: `flow-${webhookId}` },
			...extra,
		});

	it('a signed body resent with ce- headers is that body: an envelope is a duplicate whatever ce-type or ce-id; a stale one stays stale; event data lands once on Unrecognised', async () => {
		const { post, workflowId } = await deploy('bytes', {
			rememberedDeliveries: 5,
			options: { maxAgeSeconds: 300 },
		});
		const created = envelope('consent.created', `e-${TAG}`);
		expect((await post(created)).json).toMatchObject({ status: 'emitted', webhookId: `e-${TAG}` });
		for (const [type, id] of [
			['consent.data', `fresh-1-${TAG}`],
			['consent.accepted', `fresh-2-${TAG}`],
		]) {
			expect((await post(created, ceHeaders(type, id))).json).toMatchObject({
				status: 'duplicate',
				event: 'consent.created',
				webhookId: `e-${TAG}`,
			});
		}
		// two days old: stale as sent, and no ce-time makes it young
		const old = envelope('consent.data', `old-${TAG}`, {
			timestamp: new Date(Date.now() - 2 * 86400e3).toISOString(),
		});
		expect((await post(old)).json).toMatchObject({ status: 'stale' });
		expect((await post(old, ceHeaders('consent.data', `fresh-3-${TAG}`))).json).toMatchObject({
			status: 'stale',
		});
		// event data in binary mode: Unrecognised once, its bytes its key; flushing with fresh ce-ids fails
		const data = JSON.stringify({ flow: `flow-b-${TAG}` });
		expect((await post(data, ceHeaders('consent.created', `b-${TAG}`))).json).toMatchObject({
			status: 'emitted',
			webhookId: null,
		});
		for (let i = 0; i < 12; i++) {
			expect((await post(data, ceHeaders('consent.data', `flush-${i}-${TAG}`))).json.status).toBe(
				'duplicate',
			);
		}
		expect((await post(created)).json).toMatchObject({ status: 'duplicate' });
		const executions = await finished(workflowId, 2);
		expect(executions).toHaveLength(2);
		const outputs = executions
			.flatMap((e) => L.triggerRun(e, TRIGGER).items.map((i) => i.output))
			.sort((x, y) => x - y);
		expect(outputs).toEqual([OUTPUT['consent.created'], OUTPUT.unrecognised]);
	}, 120000);

	it('a ce-id cannot suppress a genuine delivery; an envelope under a CloudEvents Content-Type is the envelope', async () => {
		const { post, workflowId } = await deploy('ids', {});
		const data = JSON.stringify({ flow: `flow-g-${TAG}` });
		expect((await post(data, ceHeaders('consent.data', `g-${TAG}`))).json).toMatchObject({
			status: 'emitted',
		});
		expect((await post(envelope('consent.data', `g-${TAG}`))).json).toMatchObject({
			status: 'emitted',
			webhookId: `g-${TAG}`,
		});
		const env = envelope('consent.accepted', `ct-${TAG}`);
		expect(
			(await post(env, { 'content-type': 'application/cloudevents+json' })).json,
		).toMatchObject({ status: 'emitted', event: 'consent.accepted' });
		expect((await post(env)).json).toMatchObject({ status: 'duplicate' });
		const executions = await finished(workflowId, 3);
		expect(executions).toHaveLength(3);
	}, 120000);
});
