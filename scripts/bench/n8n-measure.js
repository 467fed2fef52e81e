'use strict';

// Measuring inside a real n8n for `npm run bench:n8n`: one execution of a 1,000-item workflow
// (timings from n8n's own execution data, requests from the simulator's log), and bursts of
// signed deliveries from concurrent senders (acks timed here, executions counted through n8n's
// public API).

const crypto = require('node:crypto');
const os = require('node:os');
const http = require('node:http');
const { request, sleep, waitFor } = require('../../test/e2e/lib/http');
const { simRequests } = require('../../test/e2e/lib/suite');
const S = require('../../test/e2e/lib/scenarios');
const { createWebhooks } = require('../../test/simulator/lib/webhooks');
const { EVENTS } = require('./n8n-workflows');

// ---- statistics ---------------------------------------------------------------------------------

function median(values) {
	const v = values.filter((x) => typeof x === 'number' && Number.isFinite(x)).sort((a, b) => a - b);
	if (!v.length) return NaN;
	const mid = Math.floor(v.length / 2);
	return v.length % 2 ? v[mid] : (v[mid - 1] + v[mid]) / 2;
}

/** Nearest-rank percentile (p in 0–100). */
function percentile(values, p) {
	const v = [...values].sort((a, b) => a - b);
	if (!v.length) return NaN;
	return v[Math.min(v.length - 1, Math.max(0, Math.ceil((p / 100) * v.length) - 1))];
}

// ---- simulator log ------------------------------------------------------------------------------

/**
 * Reads the simulator's request log incrementally: `next()` returns the requests logged since the
 * previous call (nothing else talks to the simulator between two executions of the benchmark).
 */
function simLogReader(sim) {
	let last = 0;
	return {
		async next() {
			const list = await simRequests(sim, { since: last });
			if (list.length) last = list[list.length - 1].seq;
			return list;
		},
	};
}

// ---- one execution of an items workflow -----------------------------------------------------------

/** Executions of a workflow newer than `afterId` (numeric ids), newest first, any status. */
async function executionsAfter(n8n, workflowId, afterId, { status } = {}) {
	const out = [];
	let cursor;
	for (;;) {
		const q = new URLSearchParams({
			workflowId: String(workflowId),
			includeData: 'false',
			limit: '250',
		});
		if (status) q.set('status', status);
		if (cursor) q.set('cursor', cursor);
		const page = await n8n.api('GET', `/executions?${q}`);
		let reachedOld = false;
		for (const e of page.data) {
			if (Number(e.id) <= afterId) {
				reachedOld = true;
				break;
			}
			out.push(e);
		}
		if (reachedOld || !page.nextCursor || !page.data.length) return out;
		cursor = page.nextCursor;
	}
}

async function newestExecutionId(n8n, workflowId) {
	const q = new URLSearchParams({
		workflowId: String(workflowId),
		includeData: 'false',
		limit: '1',
	});
	const page = await n8n.api('GET', `/executions?${q}`);
	return page.data.length ? Number(page.data[0].id) : 0;
}

const TOKEN_RE = S.TOKEN_PATH_RE;

/**
 * Runs an items workflow once through its webhook and reads what happened:
 * { nodeMs, wallMs, callMs, tokens, apiCalls, apiOk, items, status, requests }.
 * `api` = { prefix, okStatus } picks the API calls in the simulator's log.
 */
async function runItemsExecution({ n8n, log, wf, api, expectItems }) {
	const before = await newestExecutionId(n8n, wf.id);
	await log.next(); // skip whatever came before
	const t0 = Date.now();
	const res = await n8n.callWebhook(wf.path, {}, { headers: {} });
	const callMs = Date.now() - t0;
	if (res.status !== 200)
		throw new Error(`workflow ${wf.id}: webhook answered ${res.status}: ${res.text.slice(0, 500)}`);
	let finished;
	await waitFor(
		async () => {
			const list = await executionsAfter(n8n, wf.id, before);
			finished = list.find((e) => e.stoppedAt);
			return finished;
		},
		{ timeoutMs: 60000, intervalMs: 200, what: `the execution of workflow ${wf.id}` },
	);
	const exec = await n8n.execution(finished.id, { includeData: true });
	const requests = await log.next();
	// node time: the node under test, or the sum over `wf.nodeNames` (a built-in side made of two nodes)
	const runData = exec.data?.resultData?.runData || {};
	const timed = (wf.nodeNames || [wf.nodeName]).map((name) => runData[name]?.[0]);
	const run = runData[wf.nodeName]?.[0];
	const tokens = requests.filter((r) => TOKEN_RE.test(r.path));
	const apiCalls = requests.filter((r) => r.path.startsWith(api.prefix));
	const result = {
		executionId: exec.id,
		status: exec.status,
		nodeMs: timed.every(Boolean) ? timed.reduce((sum, r) => sum + r.executionTime, 0) : NaN,
		load: os.loadavg()[0],
		wallMs: Date.parse(exec.stoppedAt) - Date.parse(exec.startedAt),
		callMs,
		items: run?.data?.main?.[0]?.length ?? 0,
		tokens: tokens.length,
		tokensOk: tokens.filter((r) => r.status === 200).length,
		apiCalls: apiCalls.length,
		apiOk: apiCalls.filter((r) => r.status === api.okStatus).length,
		latencyFaulted: apiCalls.filter((r) => r.fault && r.fault.latencyMs).length,
		requests: apiCalls.map((r) => ({
			method: r.method,
			path: r.path,
			body: r.body,
			contentType: r.contentType,
		})),
	};
	const problems = [];
	if (exec.status !== 'success') problems.push(`status ${exec.status}`);
	if (result.items !== expectItems) problems.push(`${result.items} output items`);
	if (result.apiCalls !== expectItems || result.apiOk !== expectItems)
		problems.push(`${result.apiOk}/${result.apiCalls} API calls answered ${api.okStatus}`);
	result.problems = problems;
	return result;
}

/** Canonical multiset of requests (method, path, JSON body): equal = both sides sent the same requests. */
function requestFingerprint(requests) {
	const canon = (v) =>
		Array.isArray(v)
			? v.map(canon)
			: v && typeof v === 'object'
				? Object.fromEntries(
						Object.keys(v)
							.sort()
							.map((k) => [k, canon(v[k])]),
					)
				: v;
	const lines = requests
		.map((r) => `${r.method} ${r.path} ${JSON.stringify(canon(r.body))}`)
		.sort();
	return crypto.createHash('sha256').update(lines.join('\n')).digest('hex');
}

// ---- signed deliveries ------------------------------------------------------------------------------

/**
 * `count` deliveries for `url`, built by the simulator's own signer (test/simulator/lib/webhooks.js):
 * the same envelopes (new form, old form for consent.rejected / consent.deleted), body bytes,
 * `x-acme-sbl-signature` hex HMAC-SHA256 and headers as the simulator sends. Unique webhookIds,
 * the ten events round-robin.
 */
function buildDeliveries(sim, { count, url, extraHeaders = {}, offset = 0 }) {
	const signer = createWebhooks({
		signingSecret: sim.signingSecret,
		signatureHeader: sim.signatureHeader,
		config: {},
		options: {},
	});
	return Array.from({ length: count }, (_, i) => {
		const n = offset + i;
		const event = EVENTS[n % EVENTS.length];
		const flow = {
			id: crypto.randomUUID(),
			nationalId: S.nationalId(60000 + (n % 1000)),
			externalId: `bench-${n}`,
			webhookUrl: url,
		};
		const built = signer.build(event, flow, {});
		return {
			url,
			event,
			webhookId: built.webhookId,
			body: built.body,
			headers: { ...built.headers, ...extraHeaders },
		};
	});
}

/** One POST on a fresh connection (as the service's sender does); resolves { status, ms }. */
function post(delivery) {
	return new Promise((resolve) => {
		const started = process.hrtime.bigint();
		const req = http.request(
			delivery.url,
			{ method: 'POST', headers: delivery.headers, agent: false },
			(res) => {
				res.resume();
				res.on('end', () =>
					resolve({ status: res.statusCode, ms: Number(process.hrtime.bigint() - started) / 1e6 }),
				);
				res.on('error', (e) =>
					resolve({
						status: null,
						error: e.message,
						ms: Number(process.hrtime.bigint() - started) / 1e6,
					}),
				);
			},
		);
		req.setTimeout(60000, () => req.destroy(new Error('timeout after 60 s')));
		req.on('error', (e) =>
			resolve({
				status: null,
				error: e.message,
				ms: Number(process.hrtime.bigint() - started) / 1e6,
			}),
		);
		req.end(delivery.body);
	});
}

/** Sends every delivery with `senders` concurrent senders; { startMs, answeredMs, results }. */
async function sendAll(deliveries, senders) {
	const results = new Array(deliveries.length);
	let next = 0;
	const startMs = Date.now();
	await Promise.all(
		Array.from({ length: senders }, async () => {
			while (next < deliveries.length) {
				const i = next++;
				results[i] = await post(deliveries[i]);
			}
		}),
	);
	return { startMs, answeredMs: Date.now(), results };
}

/**
 * Waits until the workflow has `count` successful executions newer than `afterId`; then reads
 * the failed ones too. { success, failed, lastStoppedMs }.
 */
async function waitForDeliveryExecutions(
	n8n,
	workflowId,
	afterId,
	count,
	{ timeoutMs = 180000 } = {},
) {
	let success = [];
	await waitFor(
		async () => {
			success = await executionsAfter(n8n, workflowId, afterId, { status: 'success' });
			return success.length >= count;
		},
		{ timeoutMs, intervalMs: 250, what: `${count} executions of workflow ${workflowId}` },
	).catch(() => {});
	// A little longer: anything beyond `count` (duplicates) or failed would show up now.
	await sleep(500);
	success = await executionsAfter(n8n, workflowId, afterId, { status: 'success' });
	const failed = await executionsAfter(n8n, workflowId, afterId, { status: 'error' });
	const lastStoppedMs = Math.max(
		...success.map((e) => Date.parse(e.stoppedAt)).filter(Number.isFinite),
	);
	return { success: success.length, failed: failed.length, lastStoppedMs };
}

/**
 * One burst: `count` deliveries to a receiver from `senders` senders; waits for the executions.
 * { answeredPerSec, executedPerSec, ackP50, ackP99, ok (2xx answers), success, failed }.
 */
async function runDeliveryBurst({ n8n, sim, receiver, count, senders, offset }) {
	const deliveries = buildDeliveries(sim, {
		count,
		url: receiver.url,
		extraHeaders: receiver.headers,
		offset,
	});
	const before = await newestExecutionId(n8n, receiver.workflowId);
	const sent = await sendAll(deliveries, senders);
	const counted = await waitForDeliveryExecutions(n8n, receiver.workflowId, before, count);
	const acks = sent.results.map((r) => r.ms);
	const ok = sent.results.filter((r) => r.status >= 200 && r.status < 300).length;
	const answeredS = (sent.answeredMs - sent.startMs) / 1000;
	const executedS = (Math.max(counted.lastStoppedMs, sent.answeredMs) - sent.startMs) / 1000;
	const errors = [
		...new Set(
			sent.results
				.filter((r) => !(r.status >= 200 && r.status < 300))
				.map((r) => String(r.status ?? r.error)),
		),
	];
	return {
		count,
		answeredS,
		executedS,
		answeredPerSec: count / answeredS,
		executedPerSec: count / executedS,
		ackP50: percentile(acks, 50),
		ackP99: percentile(acks, 99),
		ok,
		errors,
		success: counted.success,
		failed: counted.failed,
	};
}

/** Waits until n8n has no running executions of the workflow (after a warm-up burst). */
async function settle(n8n, workflowId, ms = 500) {
	await waitFor(
		async () => (await executionsAfter(n8n, workflowId, 0, { status: 'running' })).length === 0,
		{
			timeoutMs: 60000,
			intervalMs: 250,
			what: `executions of workflow ${workflowId} to finish`,
		},
	).catch(() => {});
	await sleep(ms);
}

/** Clears the simulator's faults (the control API has DELETE /__sim/faults; the harness has no helper for it). */
async function clearFaults(sim) {
	const r = await request('DELETE', `${sim.url}/__sim/faults`);
	if (r.status !== 200) throw new Error(`simulator DELETE /__sim/faults → ${r.status} ${r.text}`);
}

module.exports = {
	median,
	percentile,
	simLogReader,
	runItemsExecution,
	requestFingerprint,
	buildDeliveries,
	runDeliveryBurst,
	settle,
	clearFaults,
	newestExecutionId,
	executionsAfter,
};
