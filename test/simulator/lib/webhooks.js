'use strict';

// Webhook envelopes, signatures, deliveries and the per-flow lifecycle scenarios.

const crypto = require('node:crypto');
const http = require('node:http');
const https = require('node:https');
const { seededRandom, sha256 } = require('./util');

/** Index = (sum of nationalId digits) % 7. */
const SCENARIOS = [
	'happy',
	'rejected',
	'user-timeout',
	'consent-timeout',
	'consent-timeout-data-failed',
	'tax-failed',
	'income-failed',
];

const SCENARIO_EVENTS = {
	happy: ['consent.created', 'consent.accepted', 'consent.data'],
	rejected: ['consent.created', 'consent.rejected'],
	'user-timeout': ['consent.created', 'user.timedOut'],
	'consent-timeout': ['consent.created', 'consent.accepted', 'consent.data', 'consent.timedOut'],
	'consent-timeout-data-failed': [
		'consent.created',
		'consent.accepted',
		'consent.timedOutDataFailed',
	],
	'tax-failed': ['consent.created', 'consent.accepted', 'tax.dataFailed'],
	'income-failed': ['consent.created', 'consent.accepted', 'income.dataFailed'],
	// Extra (only via externalId "sim:none"): no automatic events.
	none: [],
};

/** Events whose published envelope is the older form { id, type, payload:{flow,nationalId} }. */
const OLD_ENVELOPE_EVENTS = new Set(['consent.rejected', 'consent.deleted']);

// Longest names first so "consent-timeout-data-failed" wins over "consent-timeout".
const SCENARIO_RE = new RegExp(
	`^sim:(${Object.keys(SCENARIO_EVENTS)
		.sort((a, b) => b.length - a.length)
		.join('|')})`,
);

function digitSum(text) {
	return String(text)
		.split('')
		.reduce((sum, ch) => (ch >= '0' && ch <= '9' ? sum + Number(ch) : sum), 0);
}

function scenarioFor(flow) {
	const m = typeof flow.externalId === 'string' ? SCENARIO_RE.exec(flow.externalId) : null;
	if (m) return m[1];
	return SCENARIOS[digitSum(flow.nationalId) % SCENARIOS.length];
}

/** Deterministic consent.data payload part (tax and income summary) for a person. */
function consentData(nationalId) {
	const rng = seededRandom(`data:${nationalId}`);
	const taxYear = new Date().getUTCFullYear() - 1;
	const grossIncome = rng.int(380, 1450) * 1000;
	const monthly = Math.round(grossIncome / 12 / 100) * 100;
	return {
		tax: {
			source: 'Skatteetaten',
			incomeYear: taxYear,
			grossIncome,
			netIncome: Math.round(grossIncome * 0.78),
			netWealth: rng.int(-800, 4500) * 1000,
			assessedTax: Math.round(grossIncome * 0.27),
		},
		income: {
			source: 'A-ordningen',
			months: 3,
			averageMonthlyIncome: monthly,
			employerOrganizationNumbers: [String(rng.int(910000000, 999999999))],
		},
	};
}

function authorizationCode(flowId) {
	return sha256(`auth-code:${flowId}`).toString('base64url').slice(0, 32);
}

/** Payload of an event for a flow (rejected/deleted: flow + nationalId only). */
function payloadFor(event, flow) {
	if (OLD_ENVELOPE_EVENTS.has(event)) return { flow: flow.id, nationalId: flow.nationalId };
	const payload = {
		externalId: flow.externalId ?? null,
		flow: flow.id,
		nationalId: flow.nationalId,
	};
	if (event === 'consent.created') payload.authorizationCode = authorizationCode(flow.id);
	if (event === 'consent.data') payload.data = consentData(flow.nationalId);
	return payload;
}

/** Envelope: "new" { webhookId, type, event, timestamp, payload } or "old" { id, type, payload }. */
function envelopeFor(event, flow, options = {}) {
	const webhookId = options.webhookId || crypto.randomUUID();
	let payload = payloadFor(event, flow);
	if (options.payload && typeof options.payload === 'object')
		payload = { ...payload, ...options.payload };
	const form = options.envelope || (OLD_ENVELOPE_EVENTS.has(event) ? 'old' : 'new');
	const envelope =
		form === 'old'
			? { id: webhookId, type: event, payload }
			: {
					webhookId,
					type: event,
					event,
					timestamp: options.timestamp || new Date().toISOString(),
					payload,
				};
	return { webhookId, envelope };
}

function sign(secret, bodyBuffer) {
	return crypto.createHmac('sha256', secret).update(bodyBuffer).digest('hex');
}

/** Flow status shown in /__sim/flows after an event was sent. */
const STATUS_AFTER = {
	'consent.created': 'Opened',
	'consent.accepted': 'Accepted',
	'consent.rejected': 'Rejected',
};

function createWebhooks(state) {
	const inflight = new Set();

	/** POST bytes to url; resolves { status, responseBody, error } (never rejects). */
	function post(url, headers, body) {
		return new Promise((resolve) => {
			let target;
			try {
				target = new URL(url);
			} catch {
				resolve({ status: null, responseBody: null, error: `invalid URL ${url}` });
				return;
			}
			const lib = target.protocol === 'https:' ? https : http;
			const req = lib.request(
				target,
				{ method: 'POST', headers, agent: false, timeout: 10000 },
				(res) => {
					const chunks = [];
					let size = 0;
					res.on('data', (c) => {
						size += c.length;
						if (size <= 65536) chunks.push(c);
					});
					res.on('end', () => {
						inflight.delete(req);
						resolve({
							status: res.statusCode,
							responseBody: Buffer.concat(chunks).toString('utf8'),
							error: null,
						});
					});
					res.on('error', (err) => {
						inflight.delete(req);
						resolve({ status: res.statusCode, responseBody: null, error: err.message });
					});
				},
			);
			inflight.add(req);
			req.on('timeout', () => req.destroy(new Error('timeout after 10000 ms')));
			req.on('error', (err) => {
				inflight.delete(req);
				resolve({
					status: null,
					responseBody: null,
					error: err.code ? `${err.code}: ${err.message}` : err.message,
				});
			});
			req.end(body);
		});
	}

	/**
	 * Send one webhook and record the attempt.
	 * spec: { url, event, flowId, webhookId, body (Buffer), headers (object), source, redeliveryOf }
	 */
	async function send(spec) {
		const deliveryId = ++state.deliverySeq;
		const epoch = state.epoch;
		const started = Date.now();
		const result = await post(spec.url, spec.headers, spec.body);
		const record = {
			deliveryId,
			flowId: spec.flowId ?? null,
			event: spec.event ?? null,
			webhookId: spec.webhookId ?? null,
			source: spec.source,
			redeliveryOf: spec.redeliveryOf ?? null,
			url: spec.url,
			requestHeaders: { ...spec.headers },
			body: spec.body.toString('utf8'),
			status: result.status,
			responseBody: result.responseBody,
			error: result.error,
			time: new Date(started).toISOString(),
			durationMs: Date.now() - started,
		};
		// An attempt that straddles a reset (or close) belongs to the cleared state: not recorded.
		if (!state.closed && state.epoch === epoch) {
			state.deliveries.push(record);
			if (state.deliveries.length > state.maxLogEntries)
				state.deliveries.splice(0, state.deliveries.length - state.maxLogEntries);
		}
		if (state.options.log)
			state.logLine(`webhook ${record.event} → ${record.url} ${record.status ?? record.error}`);
		return record;
	}

	/** Build body, signature and headers for an event (options from /__sim fire requests). */
	function build(event, flow, options = {}) {
		const { webhookId, envelope } = envelopeFor(event, flow, options);
		const body = Buffer.from(
			typeof options.rawBody === 'string' ? options.rawBody : JSON.stringify(envelope),
			'utf8',
		);
		let signature = sign(state.signingSecret, body);
		if (options.badSignature) signature = sign(`${state.signingSecret}-wrong`, body);
		if (options.signatureCase === 'upper') signature = signature.toUpperCase();
		const headers = {
			'content-type': 'application/json',
			'content-length': String(body.length),
			'user-agent': 'sbl-simulator/1.0',
		};
		if (!options.noSignature)
			headers[String(options.headerName || state.signatureHeader).toLowerCase()] = signature;
		return { body, headers, webhookId, signature: options.noSignature ? null : signature };
	}

	async function emit(event, flow, source, options = {}) {
		const built = build(event, flow, options);
		const record = await send({
			url: options.url || flow.webhookUrl,
			event,
			flowId: flow.id,
			webhookId: built.webhookId,
			body: built.body,
			headers: built.headers,
			source,
		});
		if (flow.requestStatus !== undefined && STATUS_AFTER[event] && !options.url)
			flow.requestStatus = STATUS_AFTER[event];
		return { record, built };
	}

	/** Wait ms unless the simulator is reset or closed meanwhile; resolves false when cancelled. */
	function pause(ms, epoch) {
		return new Promise((resolve) => {
			const timer = setTimeout(() => {
				state.timers.delete(entry);
				resolve(state.epoch === epoch && !state.closed);
			}, ms);
			const entry = { timer, resolve };
			state.timers.add(entry);
		});
	}

	/**
	 * Emit an event; when config `webhookRetries` > 0, an attempt not answered 2xx (or not answered)
	 * is sent again, the same bytes, headers and webhookId, `webhookRetryDelayMs` later, up to that
	 * many times (each attempt recorded, `redeliveryOf` naming the first). Off by default: the
	 * service description does not say whether the service redelivers.
	 */
	async function emitWithRetries(event, flow, source) {
		const epoch = state.epoch;
		const first = await emit(event, flow, source);
		let last = first.record;
		for (
			let retry = 0;
			retry < state.config.webhookRetries && !(last.status >= 200 && last.status < 300);
			retry++
		) {
			const go = await pause(state.config.webhookRetryDelayMs, epoch);
			if (!go) return last;
			last = await send({
				url: last.url,
				event,
				flowId: flow.id,
				webhookId: first.built.webhookId,
				body: first.built.body,
				headers: first.built.headers,
				source: 'retry',
				redeliveryOf: first.record.deliveryId,
			});
		}
		return last;
	}

	/** Run a flow's scenario in the background, one event after another. */
	async function runLifecycle(flow) {
		const epoch = state.epoch;
		if (!flow.scenario) flow.scenario = scenarioFor(flow);
		for (const event of SCENARIO_EVENTS[flow.scenario]) {
			const go = await pause(state.config.webhookDelayMs, epoch);
			if (!go || flow.deleted) return;
			await emitWithRetries(event, flow, 'lifecycle');
		}
	}

	function cancelAll() {
		for (const entry of state.timers) {
			clearTimeout(entry.timer);
			entry.resolve(false);
		}
		state.timers.clear();
	}

	function abortInflight() {
		for (const req of inflight) req.destroy(new Error('simulator closed'));
		inflight.clear();
	}

	return {
		send,
		build,
		emit,
		emitWithRetries,
		runLifecycle,
		cancelAll,
		abortInflight,
		scenarioFor,
	};
}

module.exports = {
	createWebhooks,
	SCENARIOS,
	SCENARIO_EVENTS,
	OLD_ENVELOPE_EVENTS,
	scenarioFor,
	digitSum,
	payloadFor,
	envelopeFor,
	consentData,
	sign,
};
