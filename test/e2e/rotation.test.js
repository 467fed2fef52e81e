'use strict';
// Secret rotation (issue 26) in a real n8n, the signing credential edited through n8n's REST API
// as a user saves the form: deliveries signed with the old secret; then the new secret with the
// old one kept as Previous Signing Secret and a mix of both (copies re-signed with the other
// secret among them); then the new one only; then the previous secret removed. Every delivery
// answered "emitted" ran exactly once; after the removal the old secret gets 401. Stripe ("roll
// endpoint secrets") and Standard Webhooks ("key rotation") verify against several active
// secrets in the same way. The credential is cached per process for CREDENTIAL_TTL_MS (5 s), so
// each change is waited for with a probe delivery (itself a delivery that must run once).
const crypto = require('node:crypto');
const { sleep } = require('./lib/http');
const { useN8n, versions } = require('./lib/suite');
const W = require('./lib/workflows');
const L = require('./lib/loop');
const D = require('./lib/deliveries');
const { send } = require('./lib/sender');

const TRIGGER = 'Consent Flow Trigger';
const SIGNING = 'consentFlowWebhookSigningApi';

describe.each(versions())('n8n %s.x: rotating the webhook signing secret', (major) => {
	const ctx = useN8n(major);
	// Made at run time: never a fixed secret in the repository.
	const OLD = crypto.randomBytes(24).toString('hex');
	const NEW = crypto.randomBytes(24).toString('hex');
	let url;
	let workflowId;
	let cred;

	beforeAll(async () => {
		const { n8n } = ctx;
		cred = await n8n.createCredential({
			name: 'Rotating signing',
			type: SIGNING,
			data: { secret: OLD, signatureHeader: '' },
		});
		const trigger = W.packageTriggerNode({ name: TRIGGER, credentials: { [SIGNING]: cred } });
		const wf = await n8n.deployWorkflow(
			W.workflow(`rotation ${crypto.randomBytes(3).toString('hex')}`, [trigger], {}),
			{
				webhookPaths: [W.triggerWebhookPath(trigger)],
			},
		);
		workflowId = wf.id;
		url = n8n.webhookUrl(W.triggerWebhookPath(trigger));
	}, 120000);

	/** Saves the credential's fields as the form does (REST, login cookie). */
	async function saveCredential(data) {
		await ctx.n8n.rest('PATCH', `/rest/credentials/${cred.id}`, {
			name: cred.name,
			type: SIGNING,
			data: { signatureHeader: '', ...data },
		});
	}

	const tag = `rot${crypto.randomBytes(3).toString('hex')}`;
	let seq = 0;
	/** A fresh delivery signed with `secret` (the shared builder, re-signed). */
	function delivery(secret, id = `${tag}-${++seq}`) {
		const [d] = D.signedDeliveries({ count: 1, secret, tag: id });
		return { ...d, id: `${id}-0` };
	}
	/** The same bytes signed with another secret (a copy sent during the rotation). */
	function resigned(d, secret) {
		return { ...d, headers: { ...d.headers, [D.HEADER]: D.sign(secret, d.body) } };
	}
	async function post(d) {
		const { records } = await send({
			urls: [url],
			deliveries: [d],
			concurrency: 1,
			retry: { maxAttempts: 1 },
		});
		return { status: records[0].status, ack: D.ackStatus(records[0]) };
	}
	/** Sends fresh deliveries signed with `secret` until one gets `status` (the 5 s credential cache). */
	async function probeUntil(secret, status, emitted) {
		const until = Date.now() + 30000;
		for (;;) {
			const d = delivery(secret);
			const answer = await post(d);
			if (answer.ack === 'emitted') emitted.push(d.id);
			if (answer.status === status) return;
			if (Date.now() > until)
				throw new Error(
					`no ${status} for a delivery signed with the ${secret === OLD ? 'old' : 'new'} secret within 30 s`,
				);
			await sleep(500);
		}
	}

	it('old, mixed, new: every delivery runs once; after the previous secret is removed the old one gets 401', async () => {
		const emitted = [];
		const statuses = [];
		const batch = async (list) => {
			const { records } = await send({
				urls: [url],
				deliveries: list,
				concurrency: 4,
				retry: { maxAttempts: 5, backoffMs: 200 },
			});
			for (const r of records) {
				statuses.push(r.status);
				if (D.ackStatus(r) === 'emitted') emitted.push(r.id);
			}
			return records;
		};

		// 1. The old secret only.
		const before = Array.from({ length: 20 }, () => delivery(OLD));
		await batch(before);

		// 2. Rotation: the new secret, the old one kept as previous; the service switches over
		//    while deliveries are in flight, so both signatures arrive, and copies re-signed.
		await saveCredential({ secret: NEW, previousSecret: OLD });
		await probeUntil(NEW, 200, emitted);
		const mixed = Array.from({ length: 40 }, (_, i) => delivery(i % 2 === 0 ? OLD : NEW));
		const copies = [
			...before.slice(0, 5).map((d) => resigned(d, NEW)),
			...mixed.slice(0, 6).map((d, i) => resigned(d, i % 2 === 0 ? NEW : OLD)),
		];
		const mixedRecords = await batch(D.shuffle([...mixed, ...copies], 0x26));
		expect(mixedRecords.filter((r) => r.status !== 200).map((r) => [r.id, r.status])).toEqual([]);

		// 3. The service signs with the new secret only.
		await batch(Array.from({ length: 20 }, () => delivery(NEW)));

		// 4. The previous secret removed: the old one is refused, the new one still runs.
		await saveCredential({ secret: NEW, previousSecret: '' });
		await probeUntil(OLD, 401, emitted);
		const late = Array.from({ length: 5 }, () => delivery(OLD));
		const lateRecords = (
			await send({ urls: [url], deliveries: late, concurrency: 2, retry: { maxAttempts: 1 } })
		).records;
		expect(lateRecords.map((r) => r.status)).toEqual([401, 401, 401, 401, 401]);
		const after = Array.from({ length: 5 }, () => delivery(NEW));
		await batch(after);

		expect(statuses.filter((s) => s !== 200)).toEqual([]);
		// Every delivery of steps 1–3 and 4 (new) was emitted once; the copies were duplicates.
		const expectedIds = [...before, ...mixed, ...after].map((d) => d.id);
		expect(expectedIds.filter((id) => !emitted.includes(id))).toEqual([]);

		let executions = [];
		const until = Date.now() + 60000;
		while (Date.now() < until) {
			executions = await L.allExecutions(ctx.n8n, workflowId, { includeData: false });
			if (executions.length >= emitted.length && executions.every((e) => e.stoppedAt)) break;
			await sleep(500);
		}
		executions = await L.allExecutions(ctx.n8n, workflowId, { includeData: true, pageSize: 50 });
		const ledger = L.deliveryLedger(executions, TRIGGER);
		const ranOnce = emitted.filter(
			(id) => (ledger.get(id) || []).filter((e) => e.status === 'success').length === 1,
		);
		expect(ranOnce.length).toBe(emitted.length);
		expect(executions.length).toBe(emitted.length);
		// Nothing signed with the old secret after the removal ran.
		expect(late.filter((d) => ledger.has(d.id))).toEqual([]);
		// No secret in n8n's log or in any stored execution.
		const stored = JSON.stringify(executions);
		for (const secret of [OLD, NEW]) {
			expect(ctx.n8n.logs().includes(secret)).toBe(false);
			expect(stored.includes(secret)).toBe(false);
		}
		console.log(
			`rotation (n8n ${ctx.n8n.version}): ${emitted.length} emitted (${before.length} old, ${mixed.length} mixed + ${copies.length} re-signed copies, ${after.length + 20} new, probes), ${executions.length} executions; old secret after removal: ${late.length} × 401`,
		);
	}, 300000);
});
