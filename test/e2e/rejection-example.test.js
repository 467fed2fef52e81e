'use strict';
// The example examples/consent-rejection-by-flow-id.json, in a real n8n against the simulator
// (issue 33). The service's consent.rejected (and consent.deleted) carry `flow` and `nationalId`
// only (consent-flow-service.md, Webhook payload), so an application is found by the flow's id:
// Create's `id` is stored with the application in an n8n data table, and the Consent Flow
// Trigger's Rejected output looks the row up by the event's `flowId` and marks it rejected.
// Asserted on the data table's rows, on n8n's execution data and on the simulator's delivery log.
const crypto = require('node:crypto');
const { request, waitFor } = require('./lib/http');
const { versions, useN8n } = require('./lib/suite');
const W = require('./lib/workflows');
const L = require('./lib/loop');
const S = require('./lib/scenarios');

const FILE = 'consent-rejection-by-flow-id.json';
const TRIGGER = 'Consent Flow Trigger';
const OAUTH = 'consentFlowOAuth2Api';
const SIGNING = 'consentFlowWebhookSigningApi';
const START_PATH = 'sbl-rejection-start';

// Synthetic identity numbers (month + 80). The simulator picks the scenario from the sum of the
// digits modulo 7 when the externalId does not name one (test/simulator/README.md): these two
// are "rejected" (created → rejected) and "happy" (created → accepted → data).
const REJECTING = '01817002699';
const ACCEPTING = '01817000092';
const APPLICANT = {
	lastName: 'Nordmann',
	organizationId: '923456783',
	redirectUrl: 'https://bank.example.com/loan/thank-you',
};

const tag = () => crypto.randomBytes(4).toString('hex');

describe.each(versions())('n8n %s.x: the example "handle a rejection by flow ID"', (major) => {
	const ctx = useN8n(major, { simulator: true });
	const s = { wf: null, tables: null, projectId: null, trigger: null };

	beforeAll(async () => {
		const { n8n, sim } = ctx;
		const oauth = await S.consentCredential(ctx, 'SBL Consent Flow (simulator)');
		const signing = await n8n.createCredential({
			name: 'SBL Webhook Signing (simulator)',
			type: SIGNING,
			data: { secret: sim.signingSecret, signatureHeader: '' },
		});
		const made = await W.createExampleDataTables(n8n);
		s.tables = made.tables;
		s.projectId = made.projectId;
		const wf = W.loadExample(FILE, {
			credentials: { [OAUTH]: oauth, [SIGNING]: signing },
			values: { N8N_URL: n8n.url },
			dataTables: s.tables,
		});
		s.trigger = wf.nodes.find((n) => n.name === TRIGGER);
		s.wf = await n8n.deployWorkflow(wf, {
			webhookPaths: [
				{ path: START_PATH, method: 'POST' },
				{ path: L.triggerPath(s.trigger), method: 'POST' },
			],
		});
	}, 180000);

	/** Sends one application to the example; returns the row n8n answered with. */
	async function apply(nationalId, applicationId) {
		const res = await ctx.n8n.callWebhook(START_PATH, { ...APPLICANT, nationalId, applicationId });
		expect({ status: res.status, text: res.status === 200 ? 'ok' : res.text }).toEqual({
			status: 200,
			text: 'ok',
		});
		expect(res.json).toHaveLength(1);
		return res.json[0];
	}

	const rows = () => W.dataTableRows(ctx.n8n, s.projectId, s.tables.sbl_applications);

	test('Create stores the flow id with the application; the rejection finds it by flowId and marks it rejected, other applications untouched', async () => {
		const { n8n, sim } = ctx;
		const ids = { first: `loan-${tag()}`, second: `loan-${tag()}`, happy: `loan-${tag()}` };
		// Two rejecting applicants and one who accepts, started together.
		const [first, second, happy] = await Promise.all([
			apply(REJECTING, ids.first),
			apply(REJECTING, ids.second),
			apply(ACCEPTING, ids.happy),
		]);
		for (const [row, applicationId] of [
			[first, ids.first],
			[second, ids.second],
			[happy, ids.happy],
		]) {
			expect(row).toMatchObject({
				applicationId,
				flowId: expect.stringMatching(/\S/),
				status: 'consent requested',
			});
		}
		expect(new Set([first.flowId, second.flowId, happy.flowId]).size).toBe(3);
		// The flow id stored is the flow the simulator created, with this trigger as its webhook.
		for (const row of [first, second, happy]) {
			expect((await L.simFlow(sim, row.flowId)).webhookUrl).toBe(
				n8n.webhookUrl(L.triggerPath(s.trigger)),
			);
		}

		// One trigger execution per rejection, each on the Rejected output.
		const executions = await L.waitForTriggerExecutions(
			n8n,
			s.wf.id,
			(list) =>
				[first, second].every(
					(row) =>
						L.executionsWith(list, TRIGGER, (json) => json.flowId === row.flowId).length === 1,
				),
			{ timeoutMs: 60000, what: 'one trigger execution per rejected flow' },
		);
		for (const [row, applicationId] of [
			[first, ids.first],
			[second, ids.second],
		]) {
			const [exec] = L.executionsWith(executions, TRIGGER, (json) => json.flowId === row.flowId);
			expect(exec.status).toBe('success');
			const { outputs } = L.triggerRun(exec, TRIGGER);
			// Events = consent.rejected only: one output, Rejected.
			expect(outputs).toHaveLength(1);
			const [event] = outputs[0];
			// What the service sends for a rejection: the flow and the national ID, no externalId.
			expect(event).toMatchObject({
				event: 'consent.rejected',
				flowId: row.flowId,
				externalId: null,
			});
			expect(event.payload).not.toHaveProperty('externalId');
			expect(W.nodeOutput(exec, 'Find Application')).toEqual([
				expect.objectContaining({ applicationId, flowId: row.flowId, status: 'consent requested' }),
			]);
			expect(W.nodeOutput(exec, 'Mark Rejected')).toEqual([
				expect.objectContaining({ applicationId, flowId: row.flowId, status: 'rejected' }),
			]);
			expect(W.nodeOutput(exec, 'Tell the Loan Officer')).toEqual([
				expect.objectContaining({ applicationId, status: 'rejected' }),
			]);
		}

		// The happy flow's events were answered 200 "filtered" (not selected) and changed nothing.
		const happyDeliveries = await waitForDeliveries(sim, happy.flowId, 3);
		expect(happyDeliveries.map((d) => [d.event, d.status, L.ackOf(d)?.status])).toEqual([
			['consent.created', 200, 'filtered'],
			['consent.accepted', 200, 'filtered'],
			['consent.data', 200, 'filtered'],
		]);
		// Each rejected flow: consent.created filtered, consent.rejected emitted.
		for (const row of [first, second]) {
			const sent = await waitForDeliveries(sim, row.flowId, 2);
			expect(sent.map((d) => [d.event, d.status, L.ackOf(d)?.status])).toEqual([
				['consent.created', 200, 'filtered'],
				['consent.rejected', 200, 'emitted'],
			]);
		}

		// The table: the two rejected applications are marked, the accepted one is not.
		const byApplication = Object.fromEntries(
			(await rows()).map((r) => [r.applicationId, [r.flowId, r.status]]),
		);
		expect(byApplication[ids.first]).toEqual([first.flowId, 'rejected']);
		expect(byApplication[ids.second]).toEqual([second.flowId, 'rejected']);
		expect(byApplication[ids.happy]).toEqual([happy.flowId, 'consent requested']);
	}, 180000);

	test('a rejection of a flow the example did not start finds no application and changes nothing', async () => {
		const { n8n, sim } = ctx;
		const before = await rows();
		// A flow started outside the example (straight at the simulator's API, no automatic
		// events) whose webhook is the example's trigger; then its signed rejection.
		const client = sim.clients.consent;
		const token = await request('POST', sim.realms.sbl.tokenUrl, {
			body: Buffer.from('grant_type=client_credentials&scope=sbl'),
			headers: {
				'content-type': 'application/x-www-form-urlencoded',
				authorization: `Basic ${Buffer.from(`${client.clientId}:${client.clientSecret}`).toString('base64')}`,
			},
		});
		expect(token.status).toBe(200);
		const created = await request('POST', `${sim.consentBaseUrl}/api/flow-definitions/sbl`, {
			json: {
				...APPLICANT,
				nationalId: ACCEPTING,
				webhookUrl: n8n.webhookUrl(L.triggerPath(s.trigger)),
				externalId: `sim:none:${tag()}`,
			},
			headers: { authorization: `Bearer ${token.json.access_token}` },
		});
		expect(created.status).toBe(201);
		const strangerFlow = created.json.id;
		const fired = await L.fire(sim, strangerFlow, { event: 'consent.rejected' });
		expect(fired.status).toBe(200);
		const executions = await L.waitForTriggerExecutions(
			n8n,
			s.wf.id,
			(list) =>
				L.executionsWith(list, TRIGGER, (json) => json.flowId === strangerFlow).length === 1,
			{ timeoutMs: 60000, what: 'the trigger execution of the stranger rejection' },
		);
		const [exec] = L.executionsWith(executions, TRIGGER, (json) => json.flowId === strangerFlow);
		expect(L.triggerRun(exec, TRIGGER).outputs[0]).toEqual([
			expect.objectContaining({ event: 'consent.rejected', flowId: strangerFlow }),
		]);
		// No row has that flow id: Find Application outputs nothing and nothing after it runs.
		expect(W.nodeOutput(exec, 'Find Application')).toEqual([]);
		expect(W.nodeOutput(exec, 'Mark Rejected')).toBeUndefined();
		const after = await rows();
		expect(after.map((r) => [r.id, r.applicationId, r.flowId, r.status])).toEqual(
			before.map((r) => [r.id, r.applicationId, r.flowId, r.status]),
		);
	}, 120000);

	/** The simulator's deliveries of a flow once there are `count` of them (first attempts). */
	async function waitForDeliveries(sim, flowId, count) {
		return waitFor(
			async () => {
				const d = await L.deliveries(sim, { flowId });
				return d.length >= count ? d : undefined;
			},
			{ timeoutMs: 30000, what: `${count} deliveries of ${flowId}` },
		);
	}
});
