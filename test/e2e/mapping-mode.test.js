'use strict';
// Mapping Mode of Consent Flow → Create and Create and Wait for Outcome in a real n8n (issue 28):
// Map Automatically reads the applicant's fields from the input item by name; Map Each Field
// Manually maps each with an expression. The same applicants through both create the same flows
// (the simulator's request log), one token per execution; bad items are refused by field and item
// before any request, and with Continue On Fail every input item has its output item.
// Workflows: Webhook → Split Out (body.items) → Consent Flow. Identity numbers are synthetic.
const crypto = require('node:crypto');
const { waitFor } = require('./lib/http');
const { versions, useN8n } = require('./lib/suite');
const W = require('./lib/workflows');
const S = require('./lib/scenarios');
const L = require('./lib/loop');
const { SIGNING, OAUTH, NODE, OUTPUTS, noOp, executionIdOf, outcomeOf } = require('./lib/wait');
const { syntheticNationalId } = require('../support/synthetic-ids');

const ORG = '923609016';
const REDIRECT = 'https://bank.example.com/loan/thank-you';
const CREATE_PATH = '/consent/api/flow-definitions/sbl';
const API_PREFIX = '/consent/api/';
const CF = 'Consent Flow';

const tag = () => crypto.randomBytes(4).toString('hex');

describe.each(versions())('n8n %s.x: Consent Flow Mapping Mode', (major) => {
	const ctx = useN8n(major, {
		simulator: true,
		simulatorOptions: { webhookRetries: 8, webhookRetryDelayMs: 250 },
	});
	let seq = major === '2' ? 0 : 500;
	const eventsUrl = () => `${ctx.n8n.url}/webhook/sbl-e2e-no-events`;

	/** Applicants with every field the node reads, as an upstream node would hand them over. */
	function applicants(count, label) {
		return Array.from({ length: count }, (_, i) => ({
			nationalId: syntheticNationalId(seq++),
			lastName: `Nordmann-${i + 1}`,
			organizationId: ORG,
			redirectUrl: REDIRECT,
			webhookUrl: eventsUrl(),
			// scenario "none": the simulator sends no events for these flows
			externalId: `sim:none:${label}-${i + 1}`,
			// a field the node does not know: ignored in both modes
			channel: 'web',
		}));
	}

	const AUTO = {
		resource: 'flow',
		operation: 'create',
		mappingMode: 'autoMapInputData',
		options: {},
	};
	// Map Each Field Manually as saved before the option existed: no mappingMode at all
	const MANUAL = {
		resource: 'flow',
		operation: 'create',
		nationalId: '={{ $json.nationalId }}',
		lastName: '={{ $json.lastName }}',
		organizationId: '={{ $json.organizationId }}',
		redirectUrl: '={{ $json.redirectUrl }}',
		webhookUrl: '={{ $json.webhookUrl }}',
		additionalFields: { externalId: '={{ $json.externalId }}' },
		options: {},
	};

	async function deploy(parameters, label, { continueOnFail = false } = {}) {
		const cred = await S.consentCredential(ctx, `mapping ${label} ${tag()}`);
		const node = S.packageNode('consentFlow', { name: CF, cred, continueOnFail, parameters });
		return S.deployNodeWorkflow(ctx, node, { fanOut: true, prefix: `cf-map-${label}` });
	}

	const byExternalId = (calls) =>
		calls
			.map((c) => c.body)
			.sort((a, b) => String(a.externalId).localeCompare(String(b.externalId)));

	test('both modes create the same flows from the same 25 applicants, one token per execution, outputs paired in order', async () => {
		const people = applicants(25, 'same');
		const auto = await deploy(AUTO, 'auto');
		const manual = await deploy(MANUAL, 'manual');

		const runs = {};
		for (const [mode, wf] of [
			['auto', auto],
			['manual', manual],
		]) {
			const run = await S.runWorkflow(ctx, wf, { items: people }, { apiPrefix: API_PREFIX });
			expect({ mode, status: run.res.status, exec: run.exec.status }).toEqual({
				mode,
				status: 200,
				exec: 'success',
			});
			// a fresh credential: exactly one token for the whole execution
			expect({ mode, tokens: run.tokenCalls.map((t) => t.status) }).toEqual({
				mode,
				tokens: [200],
			});
			expect(run.apiCalls).toHaveLength(25);
			expect(
				run.apiCalls.every(
					(c) => c.method === 'POST' && c.path === CREATE_PATH && c.status === 201,
				),
			).toBe(true);
			const items = S.nodeItems(run.exec, CF);
			expect(items.map((it) => it.pairedItem)).toEqual(people.map((_, i) => ({ item: i })));
			expect(items.map((it) => it.json.externalId)).toEqual(people.map((p) => p.externalId));
			expect(
				items.every(
					(it) => typeof it.json.href === 'string' && it.json.href.includes('/consent/flows/'),
				),
			).toBe(true);
			runs[mode] = run;
		}
		// the service received the same requests: the same bodies, nothing but the six fields
		const expected = people.map(({ channel, ...fields }) => fields);
		expect(byExternalId(runs.auto.apiCalls)).toEqual(
			byExternalId(expected.map((body) => ({ body }))),
		);
		expect(byExternalId(runs.manual.apiCalls)).toEqual(byExternalId(runs.auto.apiCalls));

		// the auto node's parameters hold no expression at all
		const saved = await ctx.n8n.api('GET', `/workflows/${auto.id}`);
		const node = saved.nodes.find((n) => n.name === CF);
		expect(JSON.stringify(node.parameters)).not.toContain('={{');
		expect(node.parameters.mappingMode).toBe('autoMapInputData');
		// and a second execution reuses the stored token
		const again = await S.runWorkflow(
			ctx,
			auto,
			{ items: applicants(3, 'again') },
			{ apiPrefix: API_PREFIX },
		);
		expect(again.tokenCalls).toEqual([]);
		expect(again.apiCalls.map((c) => c.status)).toEqual([201, 201, 201]);
	}, 180000);

	test('Map Automatically, a number for nationalId: the execution fails naming item and input field, nothing is sent', async () => {
		const wf = await deploy(AUTO, 'bad');
		const people = applicants(3, 'bad');
		people[1].nationalId = Number(people[1].nationalId);
		const run = await S.runWorkflow(ctx, wf, { items: people }, { apiPrefix: API_PREFIX });
		expect(run.exec.status).toBe('error');
		const error = W.executionError(run.exec);
		expect(error.message).toBe('Item 2: input field "nationalId" must be text, got a number');
		// the identity number is in the execution's input data, never in the error
		expect(JSON.stringify(error)).not.toContain(String(people[1].nationalId).slice(0, 9));
		expect(run.apiCalls).toEqual([]);
	}, 120000);

	test('Map Automatically with Continue On Fail: one output item per input item, paired, bad ones as errors and never sent', async () => {
		const wf = await deploy(AUTO, 'cof', { continueOnFail: true });
		const people = applicants(4, 'cof');
		delete people[1].lastName;
		people[2].redirectUrl = { href: REDIRECT };
		const run = await S.runWorkflow(ctx, wf, { items: people }, { apiPrefix: API_PREFIX });
		expect(run.exec.status).toBe('success');
		const items = S.nodeItems(run.exec, CF);
		expect(items.map((it) => it.pairedItem)).toEqual([0, 1, 2, 3].map((item) => ({ item })));
		expect(items[0].json).toMatchObject({
			externalId: people[0].externalId,
			href: expect.any(String),
		});
		expect(items[1].json).toMatchObject({
			error: 'Item 2: input field "lastName" is missing from the input item',
			field: 'lastName',
		});
		expect(items[2].json).toMatchObject({
			error: 'Item 3: input field "redirectUrl" must be text, got an object',
			field: 'redirectUrl',
		});
		expect(items[3].json).toMatchObject({
			externalId: people[3].externalId,
			href: expect.any(String),
		});
		expect(run.apiCalls.map((c) => c.body.externalId).sort()).toEqual(
			[people[0].externalId, people[3].externalId].sort(),
		);
	}, 120000);

	test('Create and Wait for Outcome, Map Automatically: the applicant from the item, the resume URL as webhookUrl, resumed on Data Received', async () => {
		const { n8n, sim } = ctx;
		const signing = await n8n.createCredential({
			name: `mapping signing ${tag()}`,
			type: SIGNING,
			data: { secret: sim.signingSecret, signatureHeader: '' },
		});
		const oauth = await S.consentCredential(ctx, `mapping wait ${tag()}`);
		const p = W.uniquePath('cf-map-wait');
		const hook = W.webhookNode({
			path: p,
			responseMode: 'lastNode',
			responseData: 'firstEntryJson',
		});
		const split = S.splitOutNode();
		const node = {
			id: crypto.randomUUID(),
			name: NODE,
			type: `${S.PKG_NAME}.consentFlow`,
			typeVersion: 1,
			position: [440, 0],
			webhookId: crypto.randomUUID(),
			parameters: {
				resource: 'flow',
				operation: 'createAndWait',
				mappingMode: 'autoMapInputData',
				minimisePersonalData: 'keep',
				options: {},
			},
			credentials: {
				[OAUTH]: { id: oauth.id, name: oauth.name },
				[SIGNING]: { id: signing.id, name: signing.name },
			},
		};
		const outputs = OUTPUTS.slice(0, 4);
		const ends = outputs.map((name, i) => noOp(name, [700, i * 160]));
		const wf = await n8n.deployWorkflow(
			{
				name: `Mapping wait ${p}`,
				nodes: [hook, split, node, ...ends],
				connections: {
					[hook.name]: { main: [[{ node: split.name, type: 'main', index: 0 }]] },
					[split.name]: { main: [[{ node: NODE, type: 'main', index: 0 }]] },
					[NODE]: { main: outputs.map((name) => [{ node: name, type: 'main', index: 0 }]) },
				},
				settings: { executionOrder: 'v1' },
			},
			{ webhookPaths: [{ path: p, method: 'POST' }] },
		);
		const externalId = `sim:happy:${tag()}`;
		const person = {
			nationalId: syntheticNationalId(seq++),
			lastName: 'Nordmann',
			organizationId: ORG,
			redirectUrl: REDIRECT,
			externalId,
			// ignored: the flow's events go to this execution's resume URL
			webhookUrl: 'https://elsewhere.example.com/hook',
		};
		const res = await n8n.callWebhook(p, { items: [person] });
		expect(res.status).toBe(200);
		expect(res.json).toMatchObject({
			status: 'waiting',
			externalId,
			href: expect.stringContaining('/consent/flows/'),
		});
		// the items carry no resume URL (issue 25): the service's record of the flow has it
		const flow = await L.simFlow(ctx.sim, res.json.flowId);
		const executionId = executionIdOf(flow.webhookUrl);
		expect(executionId).toBeDefined();
		expect(flow.nationalId).toBe(person.nationalId);
		const exec = await waitFor(
			async () => {
				const e = await n8n.execution(executionId, { includeData: true });
				return e && ['success', 'error'].includes(e.status) ? e : undefined;
			},
			{ timeoutMs: 60000, what: 'the auto-mapped Create and Wait to finish' },
		);
		const item = outcomeOf(expect, exec, 'Data Received');
		expect(item).toMatchObject({ outcome: 'dataReceived', externalId, flowId: res.json.flowId });
		expect(wf.id).toBeDefined();
	}, 120000);
});
