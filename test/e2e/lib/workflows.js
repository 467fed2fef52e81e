'use strict';
// Building blocks for scenario workflows and the example workflows in examples/.
// A scenario workflow starts with n8n's Webhook node (POST, responseMode lastNode, responseData
// allEntries): a test runs it with one HTTP POST and gets the last node's items back.
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');

const EXAMPLES_DIR = path.resolve(__dirname, '..', '..', '..', 'examples');

/** A unique webhook path for a test (letters, digits and dashes only). */
function uniquePath(prefix = 'e2e') {
	return `${prefix}-${crypto.randomBytes(5).toString('hex')}`;
}

function webhookNode({
	name = 'Webhook',
	path: p,
	position = [0, 0],
	responseMode = 'lastNode',
	responseData = 'allEntries',
} = {}) {
	return {
		id: crypto.randomUUID(),
		name,
		type: 'n8n-nodes-base.webhook',
		typeVersion: 2,
		position,
		webhookId: crypto.randomUUID(),
		parameters: { httpMethod: 'POST', path: p, responseMode, responseData, options: {} },
	};
}

/**
 * HTTP Request node (typeVersion 4.2, present in n8n 1.x and 2.x) authenticating with a
 * predefined credential type, e.g. consentFlowOAuth2Api. `neverError` keeps the response of
 * 4xx/5xx as the node's output instead of failing the node.
 */
function httpRequestNode({
	name = 'HTTP Request',
	url,
	method = 'GET',
	credentialType,
	credential,
	position = [220, 0],
	fullResponse = false,
	neverError = false,
}) {
	const response = {};
	if (fullResponse) response.fullResponse = true;
	if (neverError) response.neverError = true;
	const node = {
		id: crypto.randomUUID(),
		name,
		type: 'n8n-nodes-base.httpRequest',
		typeVersion: 4.2,
		position,
		parameters: {
			method,
			url,
			options: Object.keys(response).length ? { response: { response } } : {},
		},
	};
	if (credentialType) {
		node.parameters.authentication = 'predefinedCredentialType';
		node.parameters.nodeCredentialType = credentialType;
		node.credentials = { [credentialType]: { id: credential.id, name: credential.name } };
	}
	return node;
}

/**
 * A node of this package that n8n addresses by webhook (e.g. the Consent Flow Trigger). Its
 * production path is `<webhookId>/<path of the node's webhook description>` (no isFullPath).
 */
function packageTriggerNode({
	type = 'consentFlowTrigger',
	name = 'Consent Flow Trigger',
	parameters = {},
	credentials = {},
	position = [0, 0],
} = {}) {
	return {
		id: crypto.randomUUID(),
		name,
		type: `n8n-nodes-sbl.${type}`,
		typeVersion: 1,
		position,
		webhookId: crypto.randomUUID(),
		// Keep Everything unless given (undefined: the node's default, Mask): most tests compare
		// items with what was sent
		parameters: { minimisePersonalData: 'keep', ...parameters },
		credentials: Object.fromEntries(
			Object.entries(credentials).map(([t, c]) => [t, { id: c.id, name: c.name }]),
		),
	};
}

/** The production webhook path of a package trigger node (see packageTriggerNode). */
function triggerWebhookPath(node, webhookPath = 'webhook') {
	return `${node.webhookId}/${webhookPath}`;
}

/** main connections of a straight chain of nodes. */
function chain(...nodes) {
	const connections = {};
	for (let i = 0; i + 1 < nodes.length; i++) {
		connections[nodes[i].name] = { main: [[{ node: nodes[i + 1].name, type: 'main', index: 0 }]] };
	}
	return connections;
}

function workflow(name, nodes, connections) {
	return {
		name,
		nodes,
		connections: connections || chain(...nodes),
		settings: { executionOrder: 'v1' },
	};
}

/** Names of the example workflow files. */
function listExamples() {
	if (!fs.existsSync(EXAMPLES_DIR)) return [];
	return fs
		.readdirSync(EXAMPLES_DIR)
		.filter((f) => f.endsWith('.json'))
		.sort();
}

/**
 * Loads an example workflow and fills it in for the simulator. The examples import by hand as they are (issue 13), so they hold no `__…__` placeholders:
 * - a credential is referenced by name with `"id": null` — n8n's editor then marks the node
 *   ("Credentials with name … do not exist", or picks the one credential of that name);
 * - an address the user must give is a field of the example's **Settings** (Set) node, named below;
 * - n8n's own webhook address is the expression N8N_BASE_EXPRESSION (from the execution's resume URL).
 * loadExample() fills these in from `credentials` and `values` (keys as before: SBL_CONSENT_BASE_URL,
 * N8N_URL, …), so the e2e tests and `npm start` get workflows ready for the simulator. A `__KEY__`
 * placeholder is still replaced (and throws when `values` has no KEY); an unknown Settings field,
 * a credential left without id or a data table without id (`dataTables`: { <name>: <id> }, see
 * EXAMPLE_DATA_TABLES) throws, so a test notices a new one.
 */
const SETTINGS_FIELDS = {
	consentFlowApiBaseUrl: 'SBL_CONSENT_BASE_URL',
	realEstateEstimateApiBaseUrl: 'SBL_ESTIMATE_BASE_URL',
	identityProviderUrl: 'SBL_AUTH_URL',
};
const N8N_BASE_EXPRESSION = "{{ $execution.resumeUrl.split('/webhook-waiting/')[0] }}";

/**
 * The n8n data tables the examples use (a Data Table node names its table in
 * `dataTableId.cachedResultName`, with an empty value, so n8n marks the node until the user picks
 * the table), with their columns. createExampleDataTables() makes them in an n8n (the e2e tests,
 * `npm start`); loadExample() fills in their ids from `dataTables`.
 */
const EXAMPLE_DATA_TABLES = {
	sbl_applications: [
		{ name: 'applicationId', type: 'string' },
		{ name: 'flowId', type: 'string' },
		{ name: 'status', type: 'string' },
	],
};

/**
 * Creates the examples' data tables in the owner's personal project (n8n's REST API, as the
 * editor's *Data tables* screen does; the same routes in n8n 1.123 and 2.x), or finds the ones
 * an earlier run made. Returns { <table name>: <id> }.
 */
async function createExampleDataTables(n8n) {
	const project = await n8n.rest('GET', '/rest/projects/personal');
	const base = `/rest/projects/${project.id}/data-tables`;
	const out = {};
	for (const [name, columns] of Object.entries(EXAMPLE_DATA_TABLES)) {
		const r = await n8n.rest('POST', base, { name, columns }, { raw: true });
		if (r.status < 300) {
			out[name] = (r.json.data ?? r.json).id;
			continue;
		}
		if (r.status !== 409)
			throw new Error(`creating data table ${name}: ${r.status} ${r.text.slice(0, 500)}`);
		const list = await n8n.rest(
			'GET',
			`${base}?filter=${encodeURIComponent(JSON.stringify({ name }))}`,
		);
		const found = (list.data ?? list).find((t) => t.name === name);
		if (!found) throw new Error(`data table ${name} exists but was not found`);
		out[name] = found.id;
	}
	return { projectId: project.id, tables: out };
}

/** The rows of a data table, through n8n's REST API. */
async function dataTableRows(n8n, projectId, tableId) {
	const r = await n8n.rest(
		'GET',
		`/rest/projects/${projectId}/data-tables/${tableId}/rows?take=1000`,
	);
	return r.data ?? r;
}

function loadExample(file, { credentials = {}, values = {}, dataTables = {}, pathSuffix } = {}) {
	const wf = JSON.parse(fs.readFileSync(path.join(EXAMPLES_DIR, file), 'utf8'));
	const replace = (v) => {
		if (typeof v === 'string') {
			let out = v.replace(/__([A-Z0-9_]+)__/g, (m, key) => {
				if (!(key in values)) throw new Error(`${file}: no value for placeholder ${m}`);
				return values[key];
			});
			if ('N8N_URL' in values && out.includes(N8N_BASE_EXPRESSION)) {
				out = out.split(N8N_BASE_EXPRESSION).join(String(values.N8N_URL).replace(/\/+$/, ''));
				if (out.startsWith('=') && !out.includes('{{')) out = out.slice(1);
			}
			return out;
		}
		if (Array.isArray(v)) return v.map(replace);
		if (v && typeof v === 'object')
			return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, replace(x)]));
		return v;
	};
	for (const node of wf.nodes) {
		node.parameters = replace(node.parameters || {});
		if (node.name === 'Settings' && node.type === 'n8n-nodes-base.set') {
			for (const field of node.parameters.assignments?.assignments ?? []) {
				const key = SETTINGS_FIELDS[field.name];
				if (!key) throw new Error(`${file}: Settings field ${field.name} has no known value`);
				if (!(key in values))
					throw new Error(`${file}: no value for Settings field ${field.name} (${key})`);
				field.value = values[key];
			}
		}
		if (node.type === 'n8n-nodes-base.dataTable') {
			const table = node.parameters.dataTableId;
			const name = table?.cachedResultName;
			if (name && dataTables[name])
				node.parameters.dataTableId = { ...table, value: dataTables[name] };
			else if (!table?.value)
				throw new Error(`${file}: no data table given for ${name ?? node.name}`);
		}
		// The entry Webhook's Header Auth (issue 43): a test that does not give a header credential
		// calls the webhook without one, so the protection is switched off in its copy only.
		if (
			node.type === 'n8n-nodes-base.webhook' &&
			node.credentials?.httpHeaderAuth &&
			!credentials.httpHeaderAuth
		) {
			delete node.credentials.httpHeaderAuth;
			node.parameters.authentication = 'none';
		}
		for (const [type, ref] of Object.entries(node.credentials || {})) {
			if (credentials[type])
				node.credentials[type] = { id: credentials[type].id, name: credentials[type].name };
			else if (!ref.id || /^__.*__$/.test(ref.id))
				throw new Error(`${file}: no credential given for ${type}`);
		}
		if (pathSuffix && node.type === 'n8n-nodes-base.webhook') {
			node.parameters.path = `${node.parameters.path}-${pathSuffix}`;
			node.webhookId = crypto.randomUUID();
		}
	}
	return wf;
}

/** The output items of a node in an execution (run 0, output `output`). */
function nodeOutput(execution, nodeName, { output = 0, run = 0 } = {}) {
	const runs = execution.data?.resultData?.runData?.[nodeName];
	if (!runs || !runs[run]) return undefined;
	const main = runs[run].data?.main;
	if (!main) return undefined;
	return (main[output] || []).map((i) => i.json);
}

/** Every output branch of a node: [[items of output 0], [items of output 1], …]. */
function nodeOutputs(execution, nodeName, { run = 0 } = {}) {
	const runs = execution.data?.resultData?.runData?.[nodeName];
	if (!runs || !runs[run]) return undefined;
	return (runs[run].data?.main || []).map((items) => (items || []).map((i) => i.json));
}

/** The error a node or the execution ended with ({ message, description, … }), if any. */
function executionError(execution) {
	const rd = execution.data?.resultData;
	if (!rd) return undefined;
	if (rd.error) return rd.error;
	for (const runs of Object.values(rd.runData || {})) {
		for (const r of runs) if (r.error) return r.error;
	}
	return undefined;
}

module.exports = {
	EXAMPLES_DIR,
	uniquePath,
	webhookNode,
	httpRequestNode,
	packageTriggerNode,
	triggerWebhookPath,
	chain,
	workflow,
	listExamples,
	loadExample,
	SETTINGS_FIELDS,
	N8N_BASE_EXPRESSION,
	EXAMPLE_DATA_TABLES,
	createExampleDataTables,
	dataTableRows,
	nodeOutput,
	nodeOutputs,
	executionError,
};
