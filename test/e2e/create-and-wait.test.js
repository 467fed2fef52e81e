'use strict';
// Create and Wait for Outcome, in a real n8n (issue 14). One workflow: Webhook (answers "When Last
// Node Finishes") → Consent Flow (Create and Wait for Outcome) → one No Op per output. The
// simulator's lifecycle (test/simulator/README.md, scenarios picked by externalId `sim:<name>`)
// sends the flow's signed events to the execution's resume URL; asserted on n8n's execution data
// (status, which output held the item, which No Op ran) and on the simulator's delivery log (what
// each delivery was answered).
const crypto = require('node:crypto');
const { request, waitFor } = require('./lib/http');
const { versions, useN8n } = require('./lib/suite');
const W = require('./lib/workflows');
const L = require('./lib/loop');

const SIGNING = 'consentFlowWebhookSigningApi';
const OAUTH = 'consentFlowOAuth2Api';
const NODE = 'Create and Wait';
// The outputs as the issue names them, in order; the fifth exists with Limit Wait Time only.
const OUTPUTS = ['Data Received', 'Rejected', 'Deleted', 'Failed or Timed Out', 'Wait Time Exceeded'];

const PERSON = {
	nationalId: '01017003689',
	lastName: 'Nordmann',
	organizationId: '923456783',
	redirectUrl: 'https://bank.example.com/loan/thank-you',
};

const tag = () => crypto.randomBytes(4).toString('hex');

function noOp(name, position) {
	return { id: crypto.randomUUID(), name, type: 'n8n-nodes-base.noOp', typeVersion: 1, position, parameters: {} };
}

/** Webhook → Create and Wait → one No Op per output. */
function waitWorkflow({ path, oauth, signing, limit }) {
	const hook = W.webhookNode({ path, responseMode: 'lastNode', responseData: 'firstEntryJson' });
	const parameters = {
		resource: 'flow',
		operation: 'createAndWait',
		nationalId: '={{ $json.body.nationalId }}',
		lastName: '={{ $json.body.lastName }}',
		organizationId: '={{ $json.body.organizationId }}',
		redirectUrl: '={{ $json.body.redirectUrl }}',
		additionalFields: { externalId: '={{ $json.body.externalId }}' },
		options: {},
	};
	if (limit) Object.assign(parameters, { limitWaitTime: true, limitAmount: limit.amount, limitUnit: limit.unit });
	const node = {
		id: crypto.randomUUID(),
		name: NODE,
		type: 'n8n-nodes-sbl.consentFlow',
		typeVersion: 1,
		position: [260, 0],
		webhookId: crypto.randomUUID(),
		parameters,
		credentials: { [OAUTH]: { id: oauth.id, name: oauth.name }, [SIGNING]: { id: signing.id, name: signing.name } },
	};
	const outputs = OUTPUTS.slice(0, limit ? 5 : 4);
	const ends = outputs.map((name, i) => noOp(name, [560, i * 160]));
	return {
		name: `Create and Wait ${path}`,
		nodes: [hook, node, ...ends],
		connections: {
			[hook.name]: { main: [[{ node: NODE, type: 'main', index: 0 }]] },
			[NODE]: { main: outputs.map((name) => [{ node: name, type: 'main', index: 0 }]) },
		},
		settings: { executionOrder: 'v1' },
	};
}

describe.each(versions())('n8n %s.x: Consent Flow → Create and Wait for Outcome', (major) => {
	const ctx = useN8n(major, { simulator: true });
	const s = { oauth: null, signing: null, path: null, wf: null };

	beforeAll(async () => {
		const { n8n, sim } = ctx;
		s.signing = await n8n.createCredential({
			name: 'SBL webhook signing',
			type: SIGNING,
			data: { secret: sim.signingSecret, signatureHeader: '' },
		});
		const client = sim.clients.consent;
		s.oauth = await n8n.createCredential({
			name: 'SBL Consent Flow (simulator)',
			type: OAUTH,
			data: {
				environment: 'test',
				identityProviderUrl: sim.authUrl,
				realm: 'sbl',
				apiBaseUrl: sim.consentBaseUrl,
				clientId: client.clientId,
				clientSecret: client.clientSecret,
				authentication: 'header',
				scopes: ['sbl'],
				additionalScopes: '',
			},
		});
		s.path = W.uniquePath('wait');
		s.wf = await ctx.n8n.deployWorkflow(waitWorkflow({ path: s.path, oauth: s.oauth, signing: s.signing }), {
			webhookPaths: [{ path: s.path, method: 'POST' }],
		});
	}, 120000);

	/** Starts one applicant; returns the waiting item n8n answered with and the execution id. */
	async function startApplicant(externalId, { path = s.path, person = PERSON } = {}) {
		const res = await ctx.n8n.callWebhook(path, { ...person, externalId });
		let error;
		if (res.status !== 200) {
			const [latest] = await ctx.n8n.executions(s.wf.id, { includeData: true, limit: 1 });
			error = latest && W.executionError(latest);
		}
		expect({ status: res.status, text: res.status === 200 ? 'ok' : res.text, error }).toEqual({ status: 200, text: 'ok', error: undefined });
		return res.json;
	}

	/** The execution whose Create and Wait created `flowId`. */
	async function executionOf(workflowId, flowId) {
		const list = await ctx.n8n.executions(workflowId, { includeData: true, limit: 100 });
		return list.find((e) => {
			const runs = e.data?.resultData?.runData?.[NODE] || [];
			return JSON.stringify(runs).includes(flowId);
		});
	}

	async function waitForStatus(workflowId, flowId, statuses, what) {
		return waitFor(
			async () => {
				const e = await executionOf(workflowId, flowId);
				return e && statuses.includes(e.status) ? e : undefined;
			},
			{ timeoutMs: 90000, what },
		);
	}

	/** Only `output` of Create and Wait held an item, and only its No Op ran after it. */
	function expectOutcome(exec, output) {
		const idx = OUTPUTS.indexOf(output);
		const runs = exec.data.resultData.runData;
		const last = runs[NODE].at(-1).data.main.map((items) => (items || []).length);
		expect({ output, perOutput: last }).toEqual({ output, perOutput: last.map((_, i) => (i === idx ? 1 : 0)) });
		const ran = Object.keys(runs).filter((n) => OUTPUTS.includes(n));
		expect(ran).toEqual([output]);
		expect(exec.status).toBe('success');
		return runs[output][0].data.main[0][0].json;
	}

	test('the execution waits with the flow (href) as answer, and resumes on Data Received with the events seen (happy scenario)', async () => {
		const externalId = `sim:happy:${tag()}`;
		const waiting = await startApplicant(externalId);
		expect(waiting).toMatchObject({ status: 'waiting', externalId, href: expect.stringContaining('/consent/flows/') });
		const flowId = waiting.flowId;
		expect(waiting.flow.webhookUrl).toMatch(new RegExp(`^${ctx.n8n.url}/webhook-waiting/\\d+`));
		const exec = await waitForStatus(s.wf.id, flowId, ['success', 'error'], 'the happy execution to finish');
		const item = expectOutcome(exec, 'Data Received');
		expect(item).toMatchObject({
			outcome: 'dataReceived',
			event: 'consent.data',
			flowId,
			externalId,
			flow: { id: flowId, externalId },
			outcomeEvent: { event: 'consent.data', flowId, payload: { flow: flowId, data: expect.any(Object) } },
		});
		expect(item.events.map((e) => e.event)).toEqual(['consent.created', 'consent.accepted']);
		// The simulator saw every delivery answered 200.
		const sent = await L.deliveries(ctx.sim, { flowId });
		expect(sent.map((d) => [d.event, d.status])).toEqual([
			['consent.created', 200],
			['consent.accepted', 200],
			['consent.data', 200],
		]);
	}, 120000);
});
