'use strict';
// Issue 31, in a real n8n: only signed facts decide. The service signs the body only (hex
// HMAC-SHA256 of the raw bytes, consent-flow-service.md "Signature"); CloudEvents binary mode
// carries type, id and time in `ce-` headers (HTTP Protocol Binding 3.1), outside the signature.
// Each attack is made as an attacker holding one signed body would make it; every one ran (or
// suppressed a genuine delivery) on f259bcd.
const crypto = require('node:crypto');
const { request, sleep } = require('./lib/http');
const { useN8n, versions } = require('./lib/suite');
const W = require('./lib/workflows');
const L = require('./lib/loop');

const TRIGGER = 'Consent Flow Trigger';
const SIGNING = 'consentFlowWebhookSigningApi';
const HEADER = 'x-acme-sbl-signature';
// The outputs with every event selected, in the published order (README, Outputs).
const OUTPUT = { 'consent.created': 0, 'consent.accepted': 1, 'consent.data': 4, unrecognised: 10 };

describe.each(versions())('n8n %s.x: only signed facts decide (issue 31)', (major) => {
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
			parameters,
		});
		trigger.typeVersion = 1.1;
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

	it('option off (default): a signed body resent with ce- headers is refused 400 and never runs — downgrade, replay under another type, a stale body', async () => {
		const { post, workflowId } = await deploy('off', { options: { maxAgeSeconds: 300 } });
		const created = envelope('consent.created', `e-${TAG}`);
		expect((await post(created)).json).toMatchObject({ status: 'emitted', webhookId: `e-${TAG}` });
		for (const [type, id] of [
			['consent.data', `fresh-1-${TAG}`],
			['consent.accepted', `fresh-2-${TAG}`],
		]) {
			const r = await post(created, ceHeaders(type, id));
			expect([type, r.status, r.json && r.json.status, r.json && r.json.reason]).toEqual([
				type,
				400,
				'unsigned',
				'binary-mode',
			]);
			expect(r.json.message).toMatch(/Nothing was run\./);
		}
		// two days old: stale as sent; with ce- headers (no ce-time: no age) it is refused, not run
		const old = envelope('consent.data', `old-${TAG}`, {
			timestamp: new Date(Date.now() - 2 * 86400e3).toISOString(),
		});
		expect((await post(old)).json).toMatchObject({ status: 'stale' });
		const aged = ceHeaders('consent.data', `fresh-3-${TAG}`);
		delete aged['ce-time'];
		expect((await post(old, aged)).status).toBe(400);
		// event data (not an envelope) in binary mode: refused as well
		expect(
			(await post(JSON.stringify({ flow: 'f' }), ceHeaders('consent.data', `d-${TAG}`))).status,
		).toBe(400);
		const executions = await finished(workflowId, 1);
		const ledger = L.deliveryLedger(executions, TRIGGER);
		expect([...ledger.keys()]).toEqual([`e-${TAG}`]);
		expect(ledger.get(`e-${TAG}`)).toEqual([
			expect.objectContaining({ output: OUTPUT['consent.created'], status: 'success' }),
		]);
		expect(L.triggerRun(executions[0], TRIGGER).items[0].json).toMatchObject({
			signedWith: 'current',
		});
	}, 120000);

	it('option on: the same bytes never run twice whatever ce-type or ce-id; a ce-id cannot suppress another delivery; copies cannot flush the memory', async () => {
		const { post, workflowId } = await deploy('on', {
			rememberedDeliveries: 5,
			options: { acceptUnsignedHeaders: true },
		});
		const data = JSON.stringify({ flow: `flow-b-${TAG}`, externalId: 'loan-b' });
		// the genuine binary delivery: consent.created
		expect((await post(data, ceHeaders('consent.created', `b-${TAG}`))).json).toMatchObject({
			status: 'emitted',
			event: 'consent.created',
		});
		// replay under another type with a fresh id: the signed bytes are known
		for (const type of ['consent.data', 'consent.accepted']) {
			expect((await post(data, ceHeaders(type, `b-${type}-${TAG}`))).json).toMatchObject({
				status: 'duplicate',
			});
		}
		// suppression: the old body under the id of a genuine delivery that has not arrived yet
		expect((await post(data, ceHeaders('consent.data', `g-${TAG}`))).json).toMatchObject({
			status: 'duplicate',
		});
		expect((await post(envelope('consent.data', `g-${TAG}`))).json).toMatchObject({
			status: 'emitted',
			webhookId: `g-${TAG}`,
		});
		const genuine = JSON.stringify({ flow: `flow-b-${TAG}`, externalId: 'loan-b', n: 2 });
		expect((await post(genuine, ceHeaders('consent.accepted', `g-${TAG}`))).json).toMatchObject({
			status: 'emitted',
		});
		// an envelope (or structured event) in binary mode: its type and id would be unsigned
		const env = envelope('consent.created', `env-${TAG}`);
		expect((await post(env, ceHeaders('consent.data', `x-${TAG}`))).json).toMatchObject({
			status: 'unsigned',
			reason: 'envelope-in-binary',
		});
		// flush: 12 copies with fresh ids against a memory of 5, then the first delivery again
		for (let i = 0; i < 12; i++) {
			expect(
				(await post(data, ceHeaders('consent.created', `flush-${i}-${TAG}`))).json.status,
			).toBe('duplicate');
		}
		expect((await post(data, ceHeaders('consent.created', `b-${TAG}`))).json).toMatchObject({
			status: 'duplicate',
		});
		expect((await post(envelope('consent.data', `g-${TAG}`))).json).toMatchObject({
			status: 'duplicate',
		});
		const executions = await finished(workflowId, 3);
		const ledger = L.deliveryLedger(executions, TRIGGER);
		expect(
			Object.fromEntries([...ledger].map(([id, runs]) => [id, runs.map((r) => r.output)])),
		).toEqual({
			[`b-${TAG}`]: [OUTPUT['consent.created']],
			[`g-${TAG}`]: expect.arrayContaining([OUTPUT['consent.data'], OUTPUT['consent.accepted']]),
		});
		expect(executions).toHaveLength(3);
		const binaryItem = executions
			.flatMap((e) => L.triggerRun(e, TRIGGER).items)
			.find((i) => i.output === OUTPUT['consent.created']).json;
		expect(binaryItem.cloudEvent).toMatchObject({
			mode: 'binary',
			unsigned: ['id', 'source', 'time', 'type'],
		});
	}, 180000);

	it('option on with Maximum Age: binary mode is refused (ce-time is not signed); id-less bodies and content types do not make copies run again', async () => {
		const { post, workflowId } = await deploy('age', {
			options: { acceptUnsignedHeaders: true, maxAgeSeconds: 300 },
		});
		const r = await post(JSON.stringify({ flow: 'f' }), ceHeaders('consent.data', `t-${TAG}`));
		expect([r.status, r.json && r.json.reason]).toEqual([400, 'unsigned-time']);
		// a signed body the trigger does not understand, without an id: once, then a duplicate
		const odd = JSON.stringify({ note: `odd-${TAG}` });
		expect((await post(odd)).json).toMatchObject({ status: 'emitted', webhookId: null });
		expect((await post(odd)).json).toMatchObject({ status: 'duplicate' });
		// the service's envelope under a CloudEvents Content-Type is still the envelope: one delivery
		const env = envelope('consent.accepted', `ct-${TAG}`);
		expect(
			(await post(env, { 'content-type': 'application/cloudevents+json' })).json,
		).toMatchObject({ status: 'emitted', event: 'consent.accepted' });
		expect((await post(env)).json).toMatchObject({ status: 'duplicate' });
		const executions = await finished(workflowId, 2);
		expect(executions).toHaveLength(2);
		const outputs = executions
			.flatMap((e) => L.triggerRun(e, TRIGGER).items.map((i) => i.output))
			.sort((a, b) => a - b);
		expect(outputs).toEqual([OUTPUT['consent.accepted'], OUTPUT.unrecognised]);
	}, 120000);
});
