'use strict';
// Create and Wait for Outcome in a real n8n: the workflow the suites use (Webhook answering "When
// Last Node Finishes" → Consent Flow, Create and Wait for Outcome → one No Op per output) and how to
// find its execution (the id is in the resume URL, the created flow's webhookUrl).
const crypto = require('node:crypto');
const W = require('./workflows');

const SIGNING = 'consentFlowWebhookSigningApi';
const OAUTH = 'consentFlowOAuth2Api';
const NODE = 'Create and Wait';
// The outputs as issue 14 names them, in order; the fifth exists with Limit Wait Time only.
const OUTPUTS = ['Data Received', 'Rejected', 'Deleted', 'Failed/Expired', 'Wait Timed Out'];

function noOp(name, position) {
	return {
		id: crypto.randomUUID(),
		name,
		type: 'n8n-nodes-base.noOp',
		typeVersion: 1,
		position,
		parameters: {},
	};
}

/** Webhook → Create and Wait → one No Op per output. `limit`: { amount, unit } for Limit Wait Time. */
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
		// the tests compare the outcome items with what the simulator sent
		minimisePersonalData: 'keep',
		options: {},
	};
	if (limit)
		Object.assign(parameters, {
			limitWaitTime: true,
			limitAmount: limit.amount,
			limitUnit: limit.unit,
		});
	const node = {
		id: crypto.randomUUID(),
		name: NODE,
		type: 'n8n-nodes-sbl.consentFlow',
		typeVersion: 1,
		position: [260, 0],
		webhookId: crypto.randomUUID(),
		parameters,
		credentials: {
			[OAUTH]: { id: oauth.id, name: oauth.name },
			[SIGNING]: { id: signing.id, name: signing.name },
		},
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

/** The execution id in a resume URL (…/webhook-waiting/<id>[?signature=…]), or undefined. */
function executionIdOf(resumeUrl) {
	return /\/webhook-waiting\/(\d+)/.exec(resumeUrl ?? '')?.[1];
}

/**
 * Checks that only `output` of Create and Wait held an item in its last run and that only that
 * output's No Op ran; returns the item's json. `expect` is Jest's.
 */
function outcomeOf(expect, exec, output) {
	const idx = OUTPUTS.indexOf(output);
	const runs = exec.data.resultData.runData;
	const last = runs[NODE].at(-1).data.main.map((items) => (items || []).length);
	expect({ output, perOutput: last }).toEqual({
		output,
		perOutput: last.map((_, i) => (i === idx ? 1 : 0)),
	});
	const ran = Object.keys(runs).filter((n) => OUTPUTS.includes(n));
	expect(ran).toEqual([output]);
	expect(exec.status).toBe('success');
	return runs[output][0].data.main[0][0].json;
}

module.exports = { SIGNING, OAUTH, NODE, OUTPUTS, noOp, waitWorkflow, executionIdOf, outcomeOf };
