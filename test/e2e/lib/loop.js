'use strict';
// Helpers for "the loop": a workflow with the Consent Flow Trigger receives the webhooks the
// simulator sends for flows another workflow created with the Consent Flow node. Simulator
// deliveries (/__sim/deliveries, /fire, /redeliver), the trigger's production URL, signed posts
// and reading which output of the trigger an execution's item arrived on.
const crypto = require('node:crypto');
const { request, waitFor } = require('./http');

/** The trigger's outputs, in order (see the README, "Consent Flow Trigger"). */
const TRIGGER_OUTPUTS = [
	'consent.created',
	'consent.accepted',
	'consent.rejected',
	'consent.deleted',
	'consent.data',
	'consent.timedOut',
	'consent.timedOutDataFailed',
	'user.timedOut',
	'tax.dataFailed',
	'income.dataFailed',
	'Unrecognised',
];

const UNRECOGNISED_INDEX = TRIGGER_OUTPUTS.indexOf('Unrecognised');

/**
 * The production path of a trigger node of this package: `<node.webhookId>/webhook` (the node's
 * webhook description has path `webhook` and no isFullPath, so n8n prefixes the node's webhookId).
 */
function triggerPath(node) {
	if (!node.webhookId) throw new Error(`node ${node.name} has no webhookId`);
	return `${node.webhookId}/webhook`;
}

// ---- simulator -------------------------------------------------------------------------------

async function simJson(method, url, json, okStatus = 200) {
	const r = await request(method, url, { json });
	if (r.status !== okStatus) throw new Error(`simulator ${method} ${url} → ${r.status} ${r.text}`);
	return r.json;
}

/** Webhook attempts the simulator made (oldest first), optionally of one flow. */
async function deliveries(sim, { flowId } = {}) {
	const q = flowId ? `?flowId=${encodeURIComponent(flowId)}` : '';
	return (await simJson('GET', `${sim.url}/__sim/deliveries${q}`)).deliveries;
}

/** POST /__sim/flows/:id/fire — answers after the receiver answered. */
function fire(sim, flowId, body) {
	return simJson('POST', `${sim.url}/__sim/flows/${encodeURIComponent(flowId)}/fire`, body);
}

/** POST /__sim/redeliver — the same bytes and headers again. */
function redeliver(sim, deliveryId) {
	return simJson('POST', `${sim.url}/__sim/redeliver`, { deliveryId });
}

/** The simulator's view of a flow (scenario, requestStatus, deleted …). */
async function simFlow(sim, flowId) {
	return (await simJson('GET', `${sim.url}/__sim/flows/${encodeURIComponent(flowId)}`)).flow;
}

/** Parses a receiver's answer body; undefined when it is not JSON. */
function ackOf(delivery) {
	try {
		return JSON.parse(delivery.responseBody ?? delivery.body);
	} catch {
		return undefined;
	}
}

/** Hex HMAC-SHA256 of the bytes, keyed with the secret (what the service sends). */
function sign(secret, body) {
	return crypto.createHmac('sha256', secret).update(body).digest('hex');
}

/** POSTs bytes to url with a signature header; returns the raw HTTP response. */
function signedPost(url, body, { secret, header, headers = {} }) {
	const bytes = Buffer.from(body, 'utf8');
	return request('POST', url, {
		body: bytes,
		headers: { 'content-type': 'application/json', [header]: sign(secret, bytes), ...headers },
	});
}

// ---- executions ------------------------------------------------------------------------------

/** Finished executions of a workflow with their data (newest first, up to 250: the API's maximum). */
async function finishedExecutions(n8n, workflowId) {
	const list = await n8n.executions(workflowId, { includeData: true, limit: 250 });
	return list.filter((e) => e.finished || e.stoppedAt);
}

/**
 * The trigger's part of an execution: { outputs: [[json…] × n], items: [{ output, json }] }.
 * outputs is undefined when the trigger did not run.
 */
function triggerRun(execution, triggerName) {
	const runs = execution.data?.resultData?.runData?.[triggerName];
	if (!runs || !runs[0]) return { outputs: undefined, items: [] };
	const main = runs[0].data?.main || [];
	const outputs = main.map((items) => (items || []).map((i) => i.json));
	const items = outputs.flatMap((list, output) => list.map((json) => ({ output, json })));
	return { outputs, items };
}

/** Executions whose trigger emitted an item matching `pred(json, output)`. */
function executionsWith(executions, triggerName, pred) {
	return executions.filter((e) =>
		triggerRun(e, triggerName).items.some(({ json, output }) => pred(json, output)),
	);
}

/**
 * Waits until `done(executions)` holds for the workflow's finished executions; returns them.
 * `what` names the wait in the timeout message.
 */
async function waitForTriggerExecutions(
	n8n,
	workflowId,
	done,
	{ timeoutMs = 30000, what = 'executions' } = {},
) {
	let last = [];
	await waitFor(
		async () => {
			last = await finishedExecutions(n8n, workflowId);
			return done(last);
		},
		{ timeoutMs, intervalMs: 300, what },
	);
	return last;
}

/**
 * Every execution of a workflow (of `status` when given, newer than the id `afterId`), following
 * the public API's cursor; newest first.
 */
async function allExecutions(
	n8n,
	workflowId,
	{ includeData = true, pageSize = 100, status, afterId = 0 } = {},
) {
	const out = [];
	let cursor;
	for (;;) {
		const q = new URLSearchParams({
			workflowId: String(workflowId),
			includeData: String(includeData),
			limit: String(pageSize),
		});
		if (status) q.set('status', status);
		if (cursor) q.set('cursor', cursor);
		const page = await n8n.api('GET', `/executions?${q}`);
		const newer = page.data.filter((e) => Number(e.id) > afterId);
		out.push(...newer);
		if (!page.nextCursor || !page.data.length || newer.length < page.data.length) return out;
		cursor = page.nextCursor;
	}
}

/**
 * Which executions emitted which delivery: Map webhookId → [{ id, status, output }] over the
 * trigger's items (an execution whose trigger emitted nothing is listed under `null`).
 */
function deliveryLedger(executions, triggerName) {
	const ledger = new Map();
	const add = (key, entry) => {
		if (!ledger.has(key)) ledger.set(key, []);
		ledger.get(key).push(entry);
	};
	for (const e of executions) {
		const { items } = triggerRun(e, triggerName);
		if (!items.length) add(null, { id: e.id, status: e.status, output: null });
		for (const { json, output } of items)
			add(json.webhookId ?? null, { id: e.id, status: e.status, output });
	}
	return ledger;
}

/** Names of the nodes that ran in an execution, without `except`. */
function nodesThatRan(execution, except = []) {
	return Object.keys(execution.data?.resultData?.runData || {})
		.filter((n) => !except.includes(n))
		.sort();
}

module.exports = {
	allExecutions,
	deliveryLedger,
	TRIGGER_OUTPUTS,
	UNRECOGNISED_INDEX,
	triggerPath,
	deliveries,
	fire,
	redeliver,
	simFlow,
	ackOf,
	sign,
	signedPost,
	finishedExecutions,
	triggerRun,
	executionsWith,
	waitForTriggerExecutions,
	nodesThatRan,
};
