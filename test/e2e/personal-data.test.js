'use strict';
// Personal data in what n8n stores (issue 25), read back through n8n's public API
// (GET /api/v1/executions/<id>?includeData=true) from a real n8n:
// - Create and Wait for Outcome (Minimise Personal Data at its default): while the execution waits, its stored data holds
//   the flow's ids, href and the names and times of the events seen — no national ID, no
//   authorization code, no payload, no resume URL or its signature; at the outcome the wait
//   state is gone and the outcome event's national ID is masked (the default), its data kept.
// - Consent Flow Trigger (Minimise Personal Data at its default): the stored execution has no
//   authorization code and only a masked national ID; Keep Everything keeps both.
// The applicant's national ID is a fixed parameter of the node, not in the request that starts the
// execution, so that anything of it in the execution's data came from the nodes.
const crypto = require('node:crypto');
const { waitFor } = require('./lib/http');
const { versions, useN8n, simFire } = require('./lib/suite');
const W = require('./lib/workflows');
const L = require('./lib/loop');
const S = require('./lib/scenarios');
const { SIGNING, OAUTH, OUTPUTS, noOp, executionIdOf } = require('./lib/wait');
const { syntheticNationalId } = require('../support/synthetic-ids');

const NATIONAL_ID = syntheticNationalId(7);
const MASKED = `*********${NATIONAL_ID.slice(-2)}`;
const NODE = 'Create and Wait';
const TRIGGER = 'Consent Flow Trigger';
const tag = () => crypto.randomBytes(4).toString('hex');

/** The simulator's authorization code of a flow (test/simulator/lib/webhooks.js). */
const authorizationCodeOf = (flowId) =>
	crypto
		.createHash('sha256')
		.update(`auth-code:${flowId}`)
		.digest()
		.toString('base64url')
		.slice(0, 32);

describe.each(versions())('n8n %s.x: personal data in stored executions (issue 25)', (major) => {
	const ctx = useN8n(major, {
		simulator: true,
		simulatorOptions: { webhookRetries: 8, webhookRetryDelayMs: 250 },
	});
	const s = { oauth: null, signing: null };

	beforeAll(async () => {
		const { n8n, sim } = ctx;
		s.signing = await n8n.createCredential({
			name: 'SBL webhook signing',
			type: SIGNING,
			data: { secret: sim.signingSecret, signatureHeader: '' },
		});
		s.oauth = await S.consentCredential(ctx, 'SBL Consent Flow (simulator)');
	}, 120000);

	/** Webhook (answers When Last Node Finishes) → Create and Wait (Minimise at its default), national ID fixed → No Ops. */
	function waitWorkflow(path) {
		const hook = W.webhookNode({ path, responseMode: 'lastNode', responseData: 'firstEntryJson' });
		const node = {
			id: crypto.randomUUID(),
			name: NODE,
			type: 'n8n-nodes-sbl.consentFlow',
			typeVersion: 1,
			position: [260, 0],
			webhookId: crypto.randomUUID(),
			parameters: {
				resource: 'flow',
				operation: 'createAndWait',
				nationalId: NATIONAL_ID,
				lastName: 'Nordmann',
				organizationId: '923456783',
				redirectUrl: 'https://bank.example.com/loan/thank-you',
				additionalFields: { externalId: '={{ $json.body.externalId }}' },
				options: {},
			},
			credentials: {
				[OAUTH]: { id: s.oauth.id, name: s.oauth.name },
				[SIGNING]: { id: s.signing.id, name: s.signing.name },
			},
		};
		const outputs = OUTPUTS.slice(0, 4);
		return {
			name: `Personal data ${path}`,
			nodes: [hook, node, ...outputs.map((name, i) => noOp(name, [560, i * 160]))],
			connections: {
				[hook.name]: { main: [[{ node: NODE, type: 'main', index: 0 }]] },
				[NODE]: { main: outputs.map((name) => [{ node: name, type: 'main', index: 0 }]) },
			},
			settings: { executionOrder: 'v1' },
		};
	}

	/** Paths in `value` (a.b[0].c) whose key or text contains `needle`. */
	function pathsWith(value, needle, at = '$', out = []) {
		if (typeof value === 'string') {
			if (value.includes(needle)) out.push(at);
		} else if (value && typeof value === 'object') {
			for (const [key, child] of Object.entries(value)) {
				const here = Array.isArray(value) ? `${at}[${key}]` : `${at}.${key}`;
				if (key.includes(needle)) out.push(here);
				pathsWith(child, needle, here, out);
			}
		}
		return out;
	}

	/**
	 * What n8n keeps of a waiting execution whatever the node does: the node's own parameters in its
	 * copy of the node on the execution stack (here the national ID typed into it), and on n8n 2.x
	 * the resume token it checks the resume URL's signature against (`resumeToken`).
	 */
	const N8N_OWN = [
		/^\$\.executionData\.nodeExecutionStack\[\d+\]\.node\.parameters\./,
		/^\$\.resumeToken$/,
	];

	/** Fails when the stored execution data holds anything the issue says must not be kept, naming where. */
	function expectNothingStored(data, { flowId, resumeUrl, what }) {
		const needles = {
			nationalId: NATIONAL_ID,
			nationalIdKey: 'nationalId',
			authorizationCode: authorizationCodeOf(flowId),
			authorizationCodeKey: 'authorizationCode',
			payload: 'payload',
			resumeUrl: 'webhook-waiting',
			signature: 'signature=',
		};
		const token = new URL(resumeUrl).searchParams.get('signature');
		if (token) needles.signatureToken = token;
		const found = Object.fromEntries(
			Object.entries(needles).map(([name, needle]) => [
				name,
				pathsWith(data, needle).filter((at) => !N8N_OWN.some((own) => own.test(at))),
			]),
		);
		expect({ what, found }).toEqual({
			what,
			found: Object.fromEntries(Object.keys(found).map((k) => [k, []])),
		});
	}

	test('Create and Wait for Outcome: the waiting execution stores ids, href and event names/times only; the outcome clears it and masks the ID', async () => {
		const { n8n, sim } = ctx;
		const path = W.uniquePath('personal-wait');
		const wf = await n8n.deployWorkflow(waitWorkflow(path), {
			webhookPaths: [{ path, method: 'POST' }],
		});
		const externalId = `sim:none:personal-${tag()}`;
		const res = await n8n.callWebhook(path, { externalId });
		expect(res.status).toBe(200);
		const waiting = res.json;
		expect(waiting).toMatchObject({
			status: 'waiting',
			externalId,
			href: expect.stringContaining('/consent/flows/'),
		});
		const flowId = waiting.flowId;
		// The service got the resume URL; the caller did not.
		const flow = await L.simFlow(sim, flowId);
		expect(flow.nationalId).toBe(NATIONAL_ID);
		const resumeUrl = flow.webhookUrl;
		const id = executionIdOf(resumeUrl);
		expect(id).toEqual(expect.any(String));
		expect(JSON.stringify(waiting)).not.toContain('webhook-waiting');
		expect(JSON.stringify(waiting)).not.toContain(NATIONAL_ID);

		// consent.created carries the national ID and the authorization code.
		const created = await L.fire(sim, flowId, { event: 'consent.created' });
		expect(created.status).toBe(200);
		const stateOf = (e) => e?.data?.executionData?.contextData?.[`node:${NODE}`]?.sblWait;
		const waitingExec = await waitFor(
			async () => {
				const e = await n8n.execution(id, { includeData: true });
				return e.status === 'waiting' && stateOf(e)?.events?.length === 1 ? e : undefined;
			},
			{ timeoutMs: 60000, what: 'the execution waiting again after consent.created' },
		);
		expect(stateOf(waitingExec)).toEqual({
			waiting: true,
			flowId,
			externalId,
			// the External ID as sent, as a keyed hash: matched (issue 49), never shown
			externalIdKey: expect.stringMatching(/^~m:[0-9a-f]{64}$/),
			href: waiting.href,
			// key: the duplicate key from signed bytes (issue 31) — here the signed webhookId, no personal data
			events: [
				{
					event: 'consent.created',
					webhookId: created.webhookId,
					key: created.webhookId,
					timestamp: expect.any(String),
					receivedAt: expect.any(String),
				},
			],
			startedAt: expect.any(String),
			deadline: null,
		});
		expectNothingStored(waitingExec.data, { flowId, resumeUrl, what: 'the waiting execution' });
		// n8n's own copy of the node's parameters is the only place the ID is (see N8N_OWN)
		expect(pathsWith(waitingExec.data, NATIONAL_ID)).toEqual([
			'$.executionData.nodeExecutionStack[0].node.parameters.nationalId',
		]);

		// The outcome: Data Received with the data, the ID masked (the default), no wait state left.
		expect((await L.fire(sim, flowId, { event: 'consent.data' })).status).toBe(200);
		const done = await waitFor(
			async () => {
				const e = await n8n.execution(id, { includeData: true });
				return ['success', 'error'].includes(e.status) ? e : undefined;
			},
			{ timeoutMs: 60000, what: 'the execution to finish' },
		);
		expect(done.status).toBe('success');
		expect(stateOf(done)).toBeUndefined();
		const item = done.data.resultData.runData['Data Received'][0].data.main[0][0].json;
		expect(item).toMatchObject({
			outcome: 'dataReceived',
			flowId,
			externalId,
			href: waiting.href,
			outcomeEvent: {
				event: 'consent.data',
				nationalId: MASKED,
				payload: { flow: flowId, nationalId: MASKED, data: expect.any(Object) },
			},
		});
		expect(item).not.toHaveProperty('flow');
		const own = (at) => N8N_OWN.some((re) => re.test(at));
		expect({
			nationalId: pathsWith(done.data, NATIONAL_ID).filter((at) => !own(at)),
			authorizationCode: pathsWith(done.data, authorizationCodeOf(flowId)),
			signature: pathsWith(done.data, 'signature='),
		}).toEqual({ nationalId: [], authorizationCode: [], signature: [] });
		await n8n.deactivateWorkflow(wf.id).catch(() => {});
	}, 180000);

	test('Consent Flow Trigger: at its default it stores no authorization code and a masked national ID; Keep Everything keeps both', async () => {
		const { n8n, sim } = ctx;
		const deploy = async (minimisePersonalData) => {
			const trig = W.packageTriggerNode({
				credentials: { [SIGNING]: s.signing },
				parameters: { minimisePersonalData },
			});
			const wf = await n8n.deployWorkflow(
				W.workflow(`personal trigger ${minimisePersonalData} ${tag()}`, [trig], {}),
				{
					webhookPaths: [{ path: L.triggerPath(trig), method: 'POST' }],
				},
			);
			return { wf, url: n8n.webhookUrl(L.triggerPath(trig)) };
		};
		const byDefault = await deploy(undefined);
		const keep = await deploy('keep');
		try {
			const flowId = crypto.randomUUID();
			const code = authorizationCodeOf(flowId);
			for (const target of [byDefault, keep]) {
				const sent = await simFire(sim, {
					url: target.url,
					event: 'consent.created',
					flowId,
					nationalId: NATIONAL_ID,
					externalId: 'loan-pd',
				});
				expect(sent.status).toBe(200);
			}
			const [minimised] = await L.waitForTriggerExecutions(
				n8n,
				byDefault.wf.id,
				(list) => list.length >= 1,
				{ what: 'the default trigger execution' },
			);
			const [kept] = await L.waitForTriggerExecutions(n8n, keep.wf.id, (list) => list.length >= 1, {
				what: 'the Keep Everything trigger execution',
			});

			const item = L.triggerRun(minimised, TRIGGER).items[0].json;
			expect(item).toMatchObject({
				event: 'consent.created',
				flowId,
				externalId: 'loan-pd',
				nationalId: MASKED,
				payload: { flow: flowId, nationalId: MASKED },
			});
			expect(item).not.toHaveProperty('authorizationCode');
			expect(item.payload).not.toHaveProperty('authorizationCode');
			// the whole stored execution, as n8n's API returns it
			const stored = JSON.stringify(
				(await n8n.execution(minimised.id, { includeData: true })).data,
			);
			expect(stored).not.toContain(code);
			expect(stored).not.toContain('authorizationCode');
			expect(stored).not.toContain(NATIONAL_ID);

			const before = L.triggerRun(kept, TRIGGER).items[0].json;
			expect(before).toMatchObject({
				nationalId: NATIONAL_ID,
				authorizationCode: code,
				payload: { nationalId: NATIONAL_ID, authorizationCode: code },
			});
		} finally {
			await n8n.deactivateWorkflow(byDefault.wf.id).catch(() => {});
			await n8n.deactivateWorkflow(keep.wf.id).catch(() => {});
		}
	}, 120000);
});
