// Examples import by hand (Workflows → Import from File) as they are (issue 13): nothing in them is a
// `__…__` placeholder that would reach n8n literally; credentials are referenced by name with no id, so
// n8n's editor marks the node until one is selected (n8n-editor-ui: an id it does not know falls back to
// the name, none found → "Credentials with name … do not exist for …"); what the user must fill in is in
// a sticky note. loadExample() (e2e tests, npm start) still fills everything in for the simulator.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const W = require('../e2e/lib/workflows');

const dir = path.resolve(__dirname, '../../examples');
const files = fs.readdirSync(dir).filter((f) => f.endsWith('.json'));

const CREDS = {
	consentFlowOAuth2Api: { id: 'c1', name: 'Consent' },
	consentFlowWebhookSigningApi: { id: 'c2', name: 'Signing' },
	realEstateEstimateOAuth2Api: { id: 'c3', name: 'Estimate' },
};
const DATA_TABLES = { sbl_applications: 'dt1' };
const VALUES = {
	SBL_SIMULATOR_URL: 'http://127.0.0.1:9001',
	SBL_AUTH_URL: 'http://127.0.0.1:9001/auth',
	SBL_CONSENT_BASE_URL: 'http://127.0.0.1:9001/consent',
	SBL_ESTIMATE_BASE_URL: 'http://127.0.0.1:9001/estimate',
	N8N_URL: 'http://127.0.0.1:5678/',
};

/** Every string in a value, with its JSON path. */
function strings(v, at = '') {
	if (typeof v === 'string') return [[at, v]];
	if (Array.isArray(v)) return v.flatMap((x, i) => strings(x, `${at}[${i}]`));
	if (v && typeof v === 'object')
		return Object.entries(v).flatMap(([k, x]) => strings(x, `${at}.${k}`));
	return [];
}

test('the examples are found', () => {
	expect(files.length).toBeGreaterThanOrEqual(6);
});

describe.each(files)('examples/%s imported by hand', (file) => {
	const raw = fs.readFileSync(path.join(dir, file), 'utf8');
	const workflow = JSON.parse(raw);

	test('holds no __PLACEHOLDER__ (in parameters, credentials, notes or the description)', () => {
		const found = strings(workflow).filter(([, s]) => /__[A-Z0-9_]+__/.test(s));
		expect(found).toEqual([]);
	});

	test('references every credential by name with no id, so n8n asks for one', () => {
		const refs = workflow.nodes.flatMap((n) =>
			Object.entries(n.credentials ?? {}).map(([type, ref]) => ({ node: n.name, type, ref })),
		);
		for (const { ref } of refs) {
			expect(ref).toEqual({ id: null, name: expect.stringMatching(/\S/) });
		}
	});

	test('a sticky note names every node that needs a credential', () => {
		const notes = workflow.nodes
			.filter((n) => n.type === 'n8n-nodes-base.stickyNote')
			.map((n) => n.parameters.content)
			.join('\n');
		const needing = workflow.nodes
			.filter((n) => Object.keys(n.credentials ?? {}).length > 0)
			.map((n) => n.name);
		for (const name of needing)
			expect({ name, named: notes.includes(`**${name}**`) }).toEqual({ name, named: true });
	});

	test('a data table, if any, is left for the user to pick, is one the tests can make, and is named in a sticky note with its columns', () => {
		const notes = workflow.nodes
			.filter((n) => n.type === 'n8n-nodes-base.stickyNote')
			.map((n) => n.parameters.content)
			.join('\n');
		for (const node of workflow.nodes.filter((n) => n.type === 'n8n-nodes-base.dataTable')) {
			const table = node.parameters.dataTableId;
			expect({ node: node.name, value: table.value }).toEqual({ node: node.name, value: '' });
			expect(Object.keys(W.EXAMPLE_DATA_TABLES)).toContain(table.cachedResultName);
			expect(notes).toContain(`\`${table.cachedResultName}\``);
			expect(notes).toContain(`**${node.name}**`);
			for (const column of W.EXAMPLE_DATA_TABLES[table.cachedResultName])
				expect(notes).toContain(`\`${column.name}\``);
		}
	});

	test('a Settings field or an address expression, if any, is named in a sticky note', () => {
		const notes = workflow.nodes
			.filter((n) => n.type === 'n8n-nodes-base.stickyNote')
			.map((n) => n.parameters.content)
			.join('\n');
		const settings = workflow.nodes.filter((n) => n.name === 'Settings');
		for (const node of settings) {
			for (const field of node.parameters.assignments.assignments) {
				expect(Object.keys(W.SETTINGS_FIELDS)).toContain(field.name);
				expect(notes).toContain(`\`${field.name}\``);
				// A value n8n accepts as a URL, clearly an example (example.com, RFC 2606)
				expect(field.value).toMatch(/^https:\/\/[a-z0-9.-]+\.example\.com$/);
			}
		}
	});

	test('loadExample fills in every credential and address for the e2e tests and npm start', () => {
		const wf = W.loadExample(file, { credentials: CREDS, values: VALUES, dataTables: DATA_TABLES });
		const text = JSON.stringify(wf);
		expect(text).not.toMatch(/__[A-Z0-9_]+__/);
		expect(text).not.toContain(W.N8N_BASE_EXPRESSION);
		for (const node of wf.nodes) {
			for (const [type, ref] of Object.entries(node.credentials ?? {}))
				expect(ref).toEqual(CREDS[type]);
			if (node.type === 'n8n-nodes-base.dataTable')
				expect(node.parameters.dataTableId.value).toBe(
					DATA_TABLES[node.parameters.dataTableId.cachedResultName],
				);
			if (node.name === 'Settings') {
				for (const field of node.parameters.assignments.assignments)
					expect(field.value).toBe(VALUES[W.SETTINGS_FIELDS[field.name]]);
			}
		}
	});
});

test('the trigger address of the loop example: by hand an expression for this n8n, filled in from N8N_URL', () => {
	const raw = JSON.parse(fs.readFileSync(path.join(dir, 'consent-loop-start.json'), 'utf8'));
	const hook = raw.nodes.find((n) => n.name === 'Create Consent Flow').parameters.webhookUrl;
	// n8n's resume URL is <WEBHOOK_URL>webhook-waiting/<execution id>; production webhooks are <WEBHOOK_URL>webhook/<path>
	const evaluate = (expr, resumeUrl) =>
		expr
			.slice(1)
			.replace(/\{\{(.*?)\}\}/g, (m, code) =>
				new Function('$execution', `return (${code});`)({ resumeUrl }),
			);
	expect(evaluate(hook, 'https://n8n.bank.example.com/webhook-waiting/123')).toBe(
		'https://n8n.bank.example.com/webhook/7c1e4f52-3b8a-4d6e-9f21-5a0d8c3b6e47/webhook',
	);
	const filled = W.loadExample('consent-loop-start.json', { credentials: CREDS, values: VALUES });
	expect(filled.nodes.find((n) => n.name === 'Create Consent Flow').parameters.webhookUrl).toBe(
		'http://127.0.0.1:5678/webhook/7c1e4f52-3b8a-4d6e-9f21-5a0d8c3b6e47/webhook',
	);
	const events = JSON.parse(fs.readFileSync(path.join(dir, 'consent-loop-events.json'), 'utf8'));
	expect(events.nodes.find((n) => n.type === 'n8n-nodes-sbl.consentFlowTrigger').webhookId).toBe(
		'7c1e4f52-3b8a-4d6e-9f21-5a0d8c3b6e47',
	);
});

// Issue 33: consent.rejected and consent.deleted carry `flow` and `nationalId` only (the service's
// description), so the example keys the application by the flow's id, never by externalId.
test("the rejection example stores Create's id and finds the application by the event's flowId", () => {
	const raw = JSON.parse(
		fs.readFileSync(path.join(dir, 'consent-rejection-by-flow-id.json'), 'utf8'),
	);
	const node = (name) => raw.nodes.find((n) => n.name === name);
	expect(node('Store Flow ID').parameters.columns.value.flowId).toBe('={{ $json.id }}');
	expect(node('Find Application').parameters.filters.conditions).toEqual([
		{ keyName: 'flowId', condition: 'eq', keyValue: '={{ $json.flowId }}' },
	]);
	expect(raw.connections['Consent Flow Trigger'].main[0][0].node).toBe('Find Application');
	const trigger = node('Consent Flow Trigger');
	expect(trigger.parameters.events).toEqual(['consent.rejected']);
	// Create's Webhook URL is this trigger on the same n8n
	const filled = W.loadExample('consent-rejection-by-flow-id.json', {
		credentials: CREDS,
		values: VALUES,
		dataTables: DATA_TABLES,
	});
	expect(filled.nodes.find((n) => n.name === 'Create Consent Flow').parameters.webhookUrl).toBe(
		`http://127.0.0.1:5678/webhook/${trigger.webhookId}/webhook`,
	);
	// no lookup reads externalId
	const lookups = JSON.stringify([
		node('Find Application').parameters,
		node('Mark Rejected').parameters,
	]);
	expect(lookups).not.toMatch(/externalId/);
	expect(() =>
		W.loadExample('consent-rejection-by-flow-id.json', { credentials: CREDS, values: VALUES }),
	).toThrow(/no data table given for sbl_applications/);
});
