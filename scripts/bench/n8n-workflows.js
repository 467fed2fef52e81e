'use strict';

// The workflows `npm run bench:n8n` compares, built from the e2e harness's building blocks
// (test/e2e/lib/workflows.js, scenarios.js). Each job exists twice: once with this package's node
// and once the way a user wires it by hand from n8n's own nodes (HTTP Request + the generic
// OAuth2 credential, Webhook + Code + Switch).

const crypto = require('node:crypto');
const W = require('../../test/e2e/lib/workflows');
const S = require('../../test/e2e/lib/scenarios');
const { TRIGGER_OUTPUTS } = require('../../test/e2e/lib/loop');
const { syntheticNationalIdRange } = require('../../test/support/synthetic-ids');

/** The ten events of the Consent Flow Trigger (its outputs 0–9; output 10 is Unrecognised). */
const EVENTS = TRIGGER_OUTPUTS.filter((name) => name !== 'Unrecognised');

const ORG = '923609016';
const REDIRECT = 'https://bank.example.com/loan/thank-you';
const START_NODE = 'Start';
const INPUT_NODE = 'Make Items';
const NODE_UNDER_TEST = 'Under Test';

function baseNode(type, name, typeVersion, parameters, position, extra = {}) {
	return { id: crypto.randomUUID(), name, type, typeVersion, position, parameters, ...extra };
}

function codeNode(name, jsCode, position) {
	return baseNode(
		'n8n-nodes-base.code',
		name,
		2,
		{ mode: 'runOnceForAllItems', language: 'javaScript', jsCode },
		position,
	);
}

function noOpNode(name = 'No Operation, do nothing', position = [660, 0]) {
	return baseNode('n8n-nodes-base.noOp', name, 1, {}, position);
}

/** Every output of `from` (there are `outputs` of them) goes to `to`. */
function allOutputsTo(from, outputs, to) {
	return {
		[from]: { main: Array.from({ length: outputs }, () => [{ node: to, type: 'main', index: 0 }]) },
	};
}

// ---- 1,000 items in, one node under test --------------------------------------------------------

/**
 * Code node source that makes `count` applicants carrying every field Create reads (synthetic
 * identity numbers, month + 80, computed here once), so that both mapping modes and both HTTP
 * Request variants take everything from the item.
 */
function applicantsCode(count, webhookUrl) {
	const ids = syntheticNationalIdRange(50000, count);
	return [
		`const ids = ${JSON.stringify(ids)};`,
		`return ids.map((nationalId, i) => ({ json: { nationalId, lastName: 'Nordmann-' + (i + 1), organizationId: ${JSON.stringify(ORG)}, redirectUrl: ${JSON.stringify(REDIRECT)}, webhookUrl: ${JSON.stringify(webhookUrl)}, externalId: 'bench-' + (i + 1) } }));`,
	].join('\n');
}

/** Code node source that makes `count` cadastre objects in Oslo (gnr 1–400: every one exists). */
function objectsCode(count) {
	return `return Array.from({ length: ${count} }, (_, i) => ({ json: { knr: '0301', gnr: 1 + (i % 400), bnr: 1 + Math.floor(i / 400), fnr: 0, snr: 0 } }));`;
}

/**
 * Webhook (answers when the last node finished, no data) → Code (the items) → [`before` →] node
 * under test.
 * Returns { workflow, path, nodeName }.
 */
function itemsWorkflow(name, itemsCode, node, { before } = {}) {
	const path = W.uniquePath('bench');
	const start = W.webhookNode({
		name: START_NODE,
		path,
		responseMode: 'lastNode',
		responseData: 'noData',
		position: [0, 0],
	});
	const input = codeNode(INPUT_NODE, itemsCode, [220, 0]);
	const mid = before ? [{ ...before, position: [440, 0] }] : [];
	const under = { ...node, name: NODE_UNDER_TEST, position: [440 + 220 * mid.length, 0] };
	return {
		workflow: W.workflow(`${name} ${path}`, [start, input, ...mid, under]),
		path,
		nodeName: NODE_UNDER_TEST,
	};
}

/** The fields of a create, in the service's order; every one comes from the item. */
const CREATE_FIELDS = [
	'nationalId',
	'lastName',
	'organizationId',
	'redirectUrl',
	'webhookUrl',
	'externalId',
];

/**
 * Consent Flow create parameters: `mappingMode` 'autoMapInputData' reads the item's fields by
 * name; 'defineBelow' maps each with an expression (six per item, as a builder mapping the same
 * item by hand would).
 */
function consentCreateParameters({ concurrency, mappingMode }) {
	const options = concurrency === undefined ? {} : { concurrency };
	if (mappingMode === 'autoMapInputData')
		return { resource: 'flow', operation: 'create', mappingMode, options };
	return {
		resource: 'flow',
		operation: 'create',
		mappingMode: 'defineBelow',
		nationalId: '={{ $json.nationalId }}',
		lastName: '={{ $json.lastName }}',
		organizationId: '={{ $json.organizationId }}',
		redirectUrl: '={{ $json.redirectUrl }}',
		webhookUrl: '={{ $json.webhookUrl }}',
		additionalFields: { externalId: '={{ $json.externalId }}' },
		options,
	};
}

/** Consent Flow node, create (concurrency undefined = the node's default). */
function consentFlowCreate({
	count,
	cred,
	webhookUrl,
	concurrency,
	mappingMode = 'autoMapInputData',
}) {
	const node = S.packageNode('consentFlow', {
		name: NODE_UNDER_TEST,
		cred,
		parameters: consentCreateParameters({ concurrency, mappingMode }),
	});
	return itemsWorkflow(
		`bench cf-create ours ${mappingMode}`,
		applicantsCode(count, webhookUrl),
		node,
	);
}

/**
 * HTTP Request node (POST) with the generic OAuth2 credential (client credentials); no body
 * without `jsonBody` or `bodyFields` (`[[name, value], …]`: Send Body → JSON → Using Fields Below).
 */
function httpOAuth2Node({ url, jsonBody, bodyFields, cred, typeVersion, position = [440, 0] }) {
	const body =
		bodyFields !== undefined
			? {
					sendBody: true,
					contentType: 'json',
					specifyBody: 'keypair',
					bodyParameters: { parameters: bodyFields.map(([name, value]) => ({ name, value })) },
				}
			: jsonBody === undefined
				? {}
				: { sendBody: true, contentType: 'json', specifyBody: 'json', jsonBody };
	return baseNode(
		'n8n-nodes-base.httpRequest',
		NODE_UNDER_TEST,
		typeVersion,
		{
			method: 'POST',
			url,
			authentication: 'genericCredentialType',
			genericAuthType: 'oAuth2Api',
			...body,
			options: {},
		},
		position,
		{ credentials: { oAuth2Api: { id: cred.id, name: cred.name } } },
	);
}

/** The same POST /api/flow-definitions/sbl with the same JSON body, from n8n's HTTP Request node. */
function httpConsentCreate({ count, cred, sim, webhookUrl, httpVersion }) {
	// The JSON body the way the editor's "Using JSON" field is usually filled in: one template,
	// every field from the item (one expression per item, however many {{ }} it holds).
	const jsonBody = [
		'={',
		CREATE_FIELDS.map((f) => `  "${f}": "{{ $json.${f} }}"`).join(',\n'),
		'}',
	].join('\n');
	const node = httpOAuth2Node({
		url: `${sim.consentBaseUrl}/api/flow-definitions/sbl`,
		jsonBody,
		cred,
		typeVersion: httpVersion,
	});
	return itemsWorkflow('bench cf-create http', applicantsCode(count, webhookUrl), node);
}

/**
 * The same create with the body built field by field (Send Body → JSON → Using Fields Below): one
 * body parameter per field, each an expression reading the item (six per item, like our node's
 * manual mapping in this benchmark).
 */
function httpConsentCreateFields({ count, cred, sim, webhookUrl, httpVersion }) {
	const node = httpOAuth2Node({
		url: `${sim.consentBaseUrl}/api/flow-definitions/sbl`,
		bodyFields: CREATE_FIELDS.map((f) => [f, `={{ $json.${f} }}`]),
		cred,
		typeVersion: httpVersion,
	});
	return itemsWorkflow('bench cf-create http fields', applicantsCode(count, webhookUrl), node);
}

/** Real Estate Estimate node, estimate → get (concurrency undefined = the node's default). */
function estimateGet({ count, cred, concurrency }) {
	const node = S.packageNode('realEstateEstimate', {
		name: NODE_UNDER_TEST,
		cred,
		parameters: {
			resource: 'estimate',
			operation: 'get',
			identifyBy: 'cadastre',
			knr: '={{ $json.knr }}',
			gnr: '={{ $json.gnr }}',
			bnr: '={{ $json.bnr }}',
			fnr: '={{ $json.fnr }}',
			snr: '={{ $json.snr }}',
			// the raw answer, like the HTTP Request node it is compared with
			simplify: false,
			options: concurrency === undefined ? {} : { concurrency },
		},
	});
	return itemsWorkflow('bench ree-get ours', objectsCode(count), node);
}

/**
 * The same POST …/RealEstates/{knr}/{gnr}/{bnr}/{fnr}/{snr}/EvEstimate from the HTTP Request node;
 * like our node without overrides, without a body.
 */
function httpEstimateGet({ count, cred, sim, httpVersion, jsonBody }) {
	const url = `=${sim.estimateBaseUrl}/RealEstates/{{ $json.knr }}/{{ $json.gnr }}/{{ $json.bnr }}/{{ $json.fnr }}/{{ $json.snr }}/EvEstimate`;
	const node = httpOAuth2Node({ url, jsonBody, cred, typeVersion: httpVersion });
	return itemsWorkflow('bench ree-get http', objectsCode(count), node);
}

/**
 * The same estimate request with the identity mapped field by field. n8n evaluates a parameter
 * once however many {{ }} it holds, and the HTTP Request node has a single URL parameter, so one
 * expression per field needs a node before it: Edit Fields (Set 3.4, only the set fields) maps
 * knr, gnr, bnr, fnr, snr with one expression each, then HTTP Request builds the URL from them
 * (one more expression). `nodeNames`: node time = both nodes' executionTime.
 */
function httpEstimateGetFields({ count, cred, sim, httpVersion }) {
	const fields = ['knr', 'gnr', 'bnr', 'fnr', 'snr'];
	const set = baseNode(
		'n8n-nodes-base.set',
		'Map Identity',
		3.4,
		{
			mode: 'manual',
			assignments: {
				assignments: fields.map((f) => ({
					id: crypto.randomUUID(),
					name: f,
					value: `={{ $json.${f} }}`,
					type: f === 'knr' ? 'string' : 'number',
				})),
			},
			includeOtherFields: false,
			options: {},
		},
		[440, 0],
	);
	const url = `=${sim.estimateBaseUrl}/RealEstates/{{ $json.knr }}/{{ $json.gnr }}/{{ $json.bnr }}/{{ $json.fnr }}/{{ $json.snr }}/EvEstimate`;
	const http = httpOAuth2Node({ url, cred, typeVersion: httpVersion });
	const built = itemsWorkflow('bench ree-get http fields', objectsCode(count), http, {
		before: set,
	});
	built.nodeNames = [set.name, NODE_UNDER_TEST];
	return built;
}

// ---- signed deliveries --------------------------------------------------------------------------

/**
 * Consent Flow Trigger (defaults: all events, duplicates ignored; `ignoreDuplicates: false` turns
 * the duplicate memory off) → every output to a NoOp.
 */
function triggerWorkflow({ cred, ignoreDuplicates, rememberedDeliveries }) {
	const parameters = {
		...(ignoreDuplicates !== undefined && { ignoreDuplicates }),
		...(rememberedDeliveries !== undefined && { rememberedDeliveries }),
	};
	const trigger = W.packageTriggerNode({
		credentials: { consentFlowWebhookSigningApi: cred },
		parameters,
	});
	// The version the editor adds (defaultVersion 1.1). For a start node of typeVersion 1, n8n 2.41
	// evaluates `$parameter["options"]["binaryData"]` on every webhook request (parseRequestBody in
	// webhook-helpers), which under N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE=true creates an isolate
	// per delivery (issue 26: 10/s against 29/s).
	trigger.typeVersion = 1.1;
	const noop = noOpNode();
	const wf = W.workflow(
		`bench trigger ${trigger.webhookId}`,
		[trigger, noop],
		allOutputsTo(trigger.name, TRIGGER_OUTPUTS.length, noop.name),
	);
	return { workflow: wf, path: W.triggerWebhookPath(trigger) };
}

function webhookReceiver({ path, webhookVersion, options = {}, headerAuthCred }) {
	const parameters = { httpMethod: 'POST', path, responseMode: 'onReceived', options };
	const extra = { webhookId: crypto.randomUUID() };
	if (headerAuthCred) {
		parameters.authentication = 'headerAuth';
		extra.credentials = { httpHeaderAuth: { id: headerAuthCred.id, name: headerAuthCred.name } };
	}
	return baseNode('n8n-nodes-base.webhook', 'Webhook', webhookVersion, parameters, [0, 0], extra);
}

/** Webhook (respond immediately) → NoOp, optionally with Header Auth. */
function bareWebhookWorkflow({ webhookVersion, headerAuthCred }) {
	const path = W.uniquePath(headerAuthCred ? 'bench-hdr' : 'bench-bare');
	const hook = webhookReceiver({ path, webhookVersion, headerAuthCred });
	const noop = noOpNode('No Operation, do nothing', [220, 0]);
	return { workflow: W.workflow(`bench webhook ${path}`, [hook, noop]), path };
}

/**
 * The do-it-yourself receiver: Webhook (respond immediately, raw body) → Code (HMAC-SHA256 over
 * the raw bytes, constant-time compare; needs NODE_FUNCTION_ALLOW_BUILTIN=crypto) → Switch on
 * the event (ten rules + fallback = 11 outputs) → NoOp.
 */
function diyWorkflow({ webhookVersion, secret, signatureHeader }) {
	const path = W.uniquePath('bench-diy');
	const hook = webhookReceiver({ path, webhookVersion, options: { rawBody: true } });
	const verify = codeNode(
		'Verify Signature',
		[
			"const crypto = require('crypto');",
			`const secret = ${JSON.stringify(secret)};`,
			"const raw = await this.helpers.getBinaryDataBuffer(0, 'data');",
			`const sent = String($json.headers[${JSON.stringify(signatureHeader)}] || '').trim().toLowerCase();`,
			"const expected = crypto.createHmac('sha256', secret).update(raw).digest();",
			"const got = /^[0-9a-f]{64}$/.test(sent) ? Buffer.from(sent, 'hex') : Buffer.alloc(0);",
			"if (got.length !== expected.length || !crypto.timingSafeEqual(got, expected)) throw new Error('Invalid signature');",
			"const body = JSON.parse(raw.toString('utf8'));",
			'return [{ json: { event: body.event ?? body.type ?? null, webhookId: body.webhookId ?? body.id ?? null, timestamp: body.timestamp ?? null, payload: body.payload } }];',
		].join('\n'),
		[220, 0],
	);
	const switchNode = baseNode(
		'n8n-nodes-base.switch',
		'Switch',
		3.2,
		{
			mode: 'rules',
			rules: {
				values: EVENTS.map((event) => ({
					conditions: {
						options: { caseSensitive: true, leftValue: '', typeValidation: 'strict', version: 2 },
						conditions: [
							{
								id: crypto.randomUUID(),
								leftValue: '={{ $json.event }}',
								rightValue: event,
								operator: { type: 'string', operation: 'equals' },
							},
						],
						combinator: 'and',
					},
					renameOutput: true,
					outputKey: event,
				})),
			},
			options: { fallbackOutput: 'extra', renameFallbackOutput: 'Unrecognised', ignoreCase: false },
		},
		[440, 0],
	);
	const noop = noOpNode('No Operation, do nothing', [660, 0]);
	const connections = {
		...W.chain(hook, verify, switchNode),
		...allOutputsTo(switchNode.name, EVENTS.length + 1, noop.name),
	};
	return {
		workflow: W.workflow(`bench diy ${path}`, [hook, verify, switchNode, noop], connections),
		path,
	};
}

module.exports = {
	EVENTS,
	ORG,
	REDIRECT,
	NODE_UNDER_TEST,
	consentFlowCreate,
	httpConsentCreate,
	estimateGet,
	httpEstimateGet,
	httpConsentCreateFields,
	httpEstimateGetFields,
	triggerWorkflow,
	bareWebhookWorkflow,
	diyWorkflow,
};
