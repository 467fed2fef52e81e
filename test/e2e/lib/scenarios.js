'use strict';
// Helpers for the node scenarios (consent-flow-node, estimate, runtime-imports): valid Norwegian
// identifiers, credentials for the simulator's demo clients, workflows Webhook → one of our nodes,
// a webhook call that also returns the simulator's log of what the run sent, raw-byte HTTP (for
// PDFs) and direct calls to the simulator's estimate API to compare the node's output with.
// Additive module: the harness files beside it (suite, n8n, workflows, http) are used, not changed.
const crypto = require('node:crypto');
const fs = require('node:fs');
const http = require('node:http');
const path = require('node:path');
const { request } = require('./http');
const { simRequests, simMark } = require('./suite');
const W = require('./workflows');
const { buildSyntheticNationalId } = require('../../support/synthetic-ids');

const PKG_NAME = 'n8n-nodes-sbl';
const TOKEN_PATH_RE = /\/protocol\/openid-connect\/token$/;

// ---- identifiers ---------------------------------------------------------------------------

const K1 = [3, 7, 6, 1, 8, 9, 4, 5, 2];
const K2 = [5, 4, 3, 2, 7, 6, 5, 4, 3, 2];
const ORG = [3, 2, 7, 6, 5, 4, 3, 2];

const weighted = (digits, weights) => weights.reduce((sum, w, i) => sum + w * digits[i], 0);

/** mod-11 control digit, or undefined when the remainder makes the number impossible (10). */
function control(digits, weights) {
	const r = 11 - (weighted(digits, weights) % 11);
	if (r === 11) return 0;
	if (r === 10) return undefined;
	return r;
}

/**
 * The n-th valid synthetic national identity number (month + 80, classic control digits: no
 * person has one; test/support/synthetic-ids.js) born on a date derived from n: DDMMYY +
 * individual number (3 digits) + k1 + k2. Deterministic, all distinct for n < 100 000.
 */
function nationalId(n) {
	for (let attempt = 0; ; attempt++) {
		const k = n * 7 + attempt; // skip individual numbers whose k1/k2 would be 10
		const id = buildSyntheticNationalId({
			day: 1 + (k % 28),
			month: 1 + (Math.floor(k / 28) % 12),
			year: 70 + (Math.floor(k / 336) % 30), // 1970–1999: individual numbers 000–499
			individual: Math.floor(k / 10080) % 500,
		});
		if (id !== undefined) return id;
	}
}

/** Whether a national ID passes the classic rule or the 2032 rule (remainders 0–3) — the node accepts both. */
function nationalIdControlOk(id) {
	const d = id.split('').map(Number);
	const classic = control(d.slice(0, 9), K1) === d[9] && control(d.slice(0, 10), K2) === d[10];
	const r1 = (weighted(d, K1) + d[9]) % 11;
	const r2 = (weighted(d, K2) + d[10]) % 11;
	return classic || (r1 <= 3 && r2 <= 3);
}

/** A national ID with a valid date whose control digits fail both rules (the last digit changed). */
function nationalIdWithWrongControl(n) {
	const good = nationalId(n);
	for (let last = 0; last <= 9; last++) {
		const bad = `${good.slice(0, 10)}${last}`;
		if (!nationalIdControlOk(bad)) return bad;
	}
	throw new Error(`no wrong control digit found for ${good}`);
}

function organizationNumberOk(value) {
	if (!/^\d{9}$/.test(value)) return false;
	const d = value.split('').map(Number);
	return control(d.slice(0, 8), ORG) === d[8];
}

// ---- credentials -----------------------------------------------------------------------------

/** consentFlowOAuth2Api's fields for the simulator's demo client. */
function consentCredentialData(sim) {
	const client = sim.clients.consent;
	return {
		service: 'consentFlow',
		environment: 'test',
		identityProviderUrl: sim.authUrl,
		realm: 'sbl',
		apiBaseUrl: sim.consentBaseUrl,
		clientId: client.clientId,
		clientSecret: client.clientSecret,
		authentication: 'header',
		additionalScopes: '',
	};
}

/** realEstateEstimateOAuth2Api's fields for the simulator's `estimate` demo client. */
function estimateCredentialData(sim) {
	const client = sim.clients.estimate;
	return {
		accessTokenUrl: sim.realms.estimate.tokenUrl,
		apiBaseUrl: sim.estimateBaseUrl,
		clientId: client.clientId,
		clientSecret: client.clientSecret,
		authentication: 'header',
		scope: 'estimate:read',
	};
}

/** consentFlowOAuth2Api for the simulator's demo client (`data` overrides fields). */
async function consentCredential(ctx, name, data = {}) {
	const full = { ...consentCredentialData(ctx.sim), ...data };
	// what the form does not show is not sent (n8n 1.123's public API refuses it)
	for (const key of Object.keys(full)) if (full[key] === undefined) delete full[key];
	const created = await ctx.n8n.createCredential({
		name: `${name} ${crypto.randomBytes(3).toString('hex')}`,
		type: 'consentFlowOAuth2Api',
		data: full,
	});
	return { id: created.id, name: created.name, type: 'consentFlowOAuth2Api', data: full };
}

/** realEstateEstimateOAuth2Api for the simulator's `estimate` demo client. */
async function estimateCredential(ctx, name, data = {}) {
	const full = { ...estimateCredentialData(ctx.sim), ...data };
	const created = await ctx.n8n.createCredential({
		name: `${name} ${crypto.randomBytes(3).toString('hex')}`,
		type: 'realEstateEstimateOAuth2Api',
		data: full,
	});
	return { id: created.id, name: created.name, type: 'realEstateEstimateOAuth2Api', data: full };
}

// ---- workflows -------------------------------------------------------------------------------

/** A node of this package (`type` without the package prefix) using `cred`. */
function packageNode(
	type,
	{ name, parameters, cred, position = [440, 0], continueOnFail = false },
) {
	const node = {
		id: crypto.randomUUID(),
		name,
		type: `${PKG_NAME}.${type}`,
		typeVersion: 1,
		position,
		parameters,
	};
	if (cred) node.credentials = { [cred.type]: { id: cred.id, name: cred.name } };
	if (continueOnFail) node.onError = 'continueRegularOutput';
	return node;
}

/** n8n's Split Out node: one item per element of `field` (e.g. `body.items` of the webhook). */
function splitOutNode({ name = 'Split Out', field = 'body.items', position = [220, 0] } = {}) {
	return {
		id: crypto.randomUUID(),
		name,
		type: 'n8n-nodes-base.splitOut',
		typeVersion: 1,
		position,
		parameters: { fieldToSplitOut: field, include: 'noOtherFields', options: {} },
	};
}

/** n8n's Respond to Webhook node answering with the first item's binary property `field`. */
function respondBinaryNode({
	name = 'Respond with File',
	field = 'data',
	position = [660, 0],
} = {}) {
	return {
		id: crypto.randomUUID(),
		name,
		type: 'n8n-nodes-base.respondToWebhook',
		typeVersion: 1.1,
		position,
		parameters: {
			respondWith: 'binary',
			responseDataSource: 'set',
			inputFieldName: field,
			options: {},
		},
	};
}

/**
 * Deploys Webhook → [Split Out of body.items] → node [→ Respond to Webhook (binary)] and returns
 * { id, path, nodeName }. `fanOut` inserts the Split Out node; `responseData` is the Webhook's
 * (allEntries, firstEntryBinary…); `respondBinary` answers with the node's binary `data` through
 * a Respond to Webhook node instead (Webhook responseMode responseNode).
 */
async function deployNodeWorkflow(
	ctx,
	node,
	{ fanOut = false, responseData = 'allEntries', respondBinary = false, prefix = 'node' } = {},
) {
	const p = W.uniquePath(prefix);
	const webhook = respondBinary
		? W.webhookNode({ path: p, responseMode: 'responseNode' })
		: W.webhookNode({ path: p, responseData });
	const nodes = fanOut ? [webhook, splitOutNode(), node] : [webhook, node];
	if (respondBinary) nodes.push(respondBinaryNode());
	const created = await ctx.n8n.deployWorkflow(W.workflow(`${prefix} ${node.name} ${p}`, nodes));
	return { id: created.id, path: p, nodeName: node.name };
}

/**
 * POSTs `body` to the workflow's webhook; returns { res, log, tokenCalls, apiCalls, exec }.
 * `log` is everything the simulator received during the call; `exec` the execution it made
 * (waited for: n8n may answer before it has saved it).
 */
async function runWorkflow(ctx, wf, body = {}, { apiPrefix, execution = true } = {}) {
	const { sim, n8n } = ctx;
	const before = execution ? (await n8n.executions(wf.id, { includeData: false })).length : 0;
	const mark = await simMark(sim);
	const res = await n8n.callWebhook(wf.path, body);
	let exec;
	if (execution) {
		const list = await n8n.waitForExecutions(wf.id, { count: before + 1 });
		exec = await n8n.execution(list[0].id);
	}
	const log = await simRequests(sim, { since: mark });
	return {
		res,
		log,
		exec,
		tokenCalls: log.filter((r) => TOKEN_PATH_RE.test(r.path)),
		apiCalls: log.filter(
			(r) => !TOKEN_PATH_RE.test(r.path) && (!apiPrefix || r.path.startsWith(apiPrefix)),
		),
	};
}

/** Output items of a node (json and the rest: binary, pairedItem) in an execution, run 0. */
function nodeItems(execution, nodeName, { output = 0, run = 0 } = {}) {
	const runs = execution.data?.resultData?.runData?.[nodeName];
	if (!runs || !runs[run]) return undefined;
	return runs[run].data?.main?.[output] || [];
}

// ---- raw HTTP and the simulator's estimate API ----------------------------------------------

/** Like http.request but keeps the body as a Buffer: { status, headers, body }. */
function requestRaw(method, url, { headers = {}, json, timeoutMs = 120000 } = {}) {
	return new Promise((resolve, reject) => {
		const h = { ...headers };
		let payload;
		if (json !== undefined) {
			payload = JSON.stringify(json);
			h['content-type'] = 'application/json';
			h['content-length'] = Buffer.byteLength(payload);
		}
		const req = http.request(new URL(url), { method, headers: h, agent: false }, (res) => {
			const chunks = [];
			res.on('data', (c) => chunks.push(c));
			res.on('end', () =>
				resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks) }),
			);
			res.on('error', reject);
		});
		req.setTimeout(timeoutMs, () =>
			req.destroy(new Error(`timeout after ${timeoutMs} ms: ${method} ${url}`)),
		);
		req.on('error', reject);
		if (payload !== undefined) req.write(payload);
		req.end();
	});
}

const sha256 = (buf) => crypto.createHash('sha256').update(buf).digest('hex');

/** A token for the estimate demo client straight from the simulator's identity provider. */
async function estimateToken(sim) {
	const c = sim.clients.estimate;
	const r = await request('POST', sim.realms.estimate.tokenUrl, {
		body: new URLSearchParams({
			grant_type: 'client_credentials',
			scope: 'estimate:read',
		}).toString(),
		headers: {
			'content-type': 'application/x-www-form-urlencoded',
			authorization: `Basic ${Buffer.from(`${c.clientId}:${c.clientSecret}`).toString('base64')}`,
		},
	});
	if (r.status !== 200) throw new Error(`estimate token → ${r.status} ${r.text}`);
	return r.json.access_token;
}

/** Calls the simulator's estimate API directly (not through n8n); returns { status, json }. */
async function estimateApi(sim, method, p, body) {
	const token = await estimateToken(sim);
	const r = await request(method, `${sim.estimateBaseUrl}${p}`, {
		json: body,
		headers: { authorization: `Bearer ${token}`, accept: 'application/json' },
	});
	return { status: r.status, json: r.json };
}

// ---- files -----------------------------------------------------------------------------------

/** Every file under `dir` (recursively) whose name satisfies `test`. */
function findFiles(dir, test, out = []) {
	if (!fs.existsSync(dir)) return out;
	for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
		const full = path.join(dir, entry.name);
		if (entry.isDirectory()) findFiles(full, test, out);
		else if (test(entry.name, full)) out.push(full);
	}
	return out;
}

/** The strings of an execution (and anything else) as one searchable text. */
const textOf = (...values) =>
	values.map((v) => (typeof v === 'string' ? v : JSON.stringify(v))).join('\n');

module.exports = {
	PKG_NAME,
	TOKEN_PATH_RE,
	nationalId,
	nationalIdControlOk,
	nationalIdWithWrongControl,
	organizationNumberOk,
	consentCredentialData,
	consentCredential,
	estimateCredentialData,
	estimateCredential,
	packageNode,
	splitOutNode,
	respondBinaryNode,
	deployNodeWorkflow,
	runWorkflow,
	nodeItems,
	requestRaw,
	sha256,
	estimateToken,
	estimateApi,
	findFiles,
	textOf,
};
