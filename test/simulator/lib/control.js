'use strict';

// Test control API under /__sim (never logged, never faulted): request log, fault injection,
// flows, webhook deliveries and manual firing, runtime config and reset.

const crypto = require('node:crypto');
const { sendJson, parseJson, isPlainObject } = require('./util');

const CONFIG_TYPES = {
	tokenLifetimeSeconds: (v) => Number.isInteger(v) && v >= 1,
	consentResponseWrapper: (v) => typeof v === 'boolean',
	autoLifecycle: (v) => typeof v === 'boolean',
	webhookDelayMs: (v) => typeof v === 'number' && Number.isFinite(v) && v >= 0,
	webhookRetries: (v) => Number.isInteger(v) && v >= 0 && v <= 20,
	webhookRetryDelayMs: (v) => typeof v === 'number' && Number.isFinite(v) && v >= 0,
	rateLimitPerSecond: (v) => typeof v === 'number' && Number.isFinite(v) && v >= 0,
	opaqueTokens: (v) => typeof v === 'boolean',
	// ids the next creates get, in order (then random UUIDs again): a test picks a flow id's form
	nextFlowIds: (v) => Array.isArray(v) && v.every((id) => typeof id === 'string' && id !== ''),
};

const FIRE_OPTIONS = [
	'envelope',
	'rawBody',
	'badSignature',
	'noSignature',
	'signatureCase',
	'headerName',
	'url',
	'payload',
	'timestamp',
	'webhookId',
];

/** A made-up flow for /__sim/fire without a known flow. Its default nationalId is a valid synthetic number (month + 80). */
function syntheticFlow(body) {
	return {
		id: typeof body.flowId === 'string' && body.flowId ? body.flowId : crypto.randomUUID(),
		nationalId: typeof body.nationalId === 'string' ? body.nationalId : '01817000688',
		externalId: typeof body.externalId === 'string' ? body.externalId : null,
		webhookUrl: body.url,
	};
}

function createControl(state, sim) {
	const badRequest = (res, message) => sendJson(res, 400, { error: 'bad_request', message });

	function readJson(ctx) {
		const parsed = parseJson(ctx.rawBody);
		if (!parsed.ok) return { error: `body is not valid JSON: ${parsed.error}` };
		const value = parsed.value === undefined ? {} : parsed.value;
		if (!isPlainObject(value)) return { error: 'body must be a JSON object' };
		return { value };
	}

	function listRequests(ctx) {
		const method = ctx.query.get('method');
		const pathPrefix = ctx.query.get('pathPrefix');
		const since = Number(ctx.query.get('since')) || 0;
		const requests = state.requests.filter(
			(r) =>
				r.seq > since &&
				(!method || r.method === method.toUpperCase()) &&
				(!pathPrefix || r.path.startsWith(pathPrefix)),
		);
		sendJson(ctx.res, 200, { requests });
	}

	function addFault(ctx, body) {
		const count = body.count === undefined ? 1 : body.count;
		if (!Number.isInteger(count) || count < 1)
			return badRequest(ctx.res, 'count must be a positive integer');
		if (
			body.status !== undefined &&
			!(Number.isInteger(body.status) && body.status >= 100 && body.status <= 599)
		) {
			return badRequest(ctx.res, 'status must be an HTTP status code');
		}
		for (const field of ['retryAfter', 'latencyMs']) {
			if (body[field] !== undefined && !(typeof body[field] === 'number' && body[field] >= 0)) {
				return badRequest(ctx.res, `${field} must be a non-negative number`);
			}
		}
		if (body.drop !== undefined && typeof body.drop !== 'boolean')
			return badRequest(ctx.res, 'drop must be true or false');
		if (
			body.truncate !== undefined &&
			!(typeof body.truncate === 'number' && body.truncate >= 0 && body.truncate < 1)
		) {
			return badRequest(
				ctx.res,
				'truncate must be a number from 0 to below 1 (the share of the body sent)',
			);
		}
		if (body.chunked !== undefined && typeof body.chunked !== 'boolean')
			return badRequest(ctx.res, 'chunked must be true or false');
		if (body.chunked !== undefined && body.truncate === undefined)
			return badRequest(ctx.res, 'chunked needs truncate');
		if (body.body !== undefined && typeof body.body !== 'string')
			return badRequest(ctx.res, 'body must be a string (a template)');
		if (body.body !== undefined && body.status === undefined)
			return badRequest(ctx.res, 'body needs status');
		if (
			body.contentType !== undefined &&
			(typeof body.contentType !== 'string' || body.body === undefined)
		) {
			return badRequest(ctx.res, 'contentType must be a string and needs body');
		}
		if (
			body.headers !== undefined &&
			!(
				isPlainObject(body.headers) &&
				Object.values(body.headers).every((v) => typeof v === 'string')
			)
		) {
			return badRequest(ctx.res, 'headers must be an object of strings (templates)');
		}
		if (body.headers !== undefined && body.status === undefined)
			return badRequest(ctx.res, 'headers needs status');
		if (
			body.status === undefined &&
			body.latencyMs === undefined &&
			!body.drop &&
			body.truncate === undefined
		) {
			return badRequest(ctx.res, 'a fault needs status, latencyMs, drop or truncate');
		}
		const match = isPlainObject(body.match) ? body.match : {};
		const fault = {
			id: ++state.faultSeq,
			count,
			remaining: count,
			status: body.status ?? null,
			retryAfter: body.retryAfter ?? null,
			latencyMs: body.latencyMs ?? null,
			drop: body.drop === true,
			truncate: body.truncate ?? null,
			chunked: body.chunked === true,
			body: body.body ?? null,
			contentType: body.contentType ?? null,
			headers: body.headers ?? null,
			match: {
				method: typeof match.method === 'string' ? match.method.toUpperCase() : null,
				pathPrefix: typeof match.pathPrefix === 'string' ? match.pathPrefix : null,
			},
		};
		state.faults.push(fault);
		sendJson(ctx.res, 201, { fault });
	}

	function fireResult(res, record, built) {
		sendJson(res, 200, {
			deliveryId: record.deliveryId,
			status: record.status,
			body: record.responseBody,
			error: record.error,
			sentBody: record.body,
			sentHeaders: record.requestHeaders,
			signature: built ? built.signature : (record.requestHeaders[state.signatureHeader] ?? null),
			webhookId: record.webhookId,
			url: record.url,
		});
	}

	function fireOptions(body) {
		const options = {};
		for (const key of FIRE_OPTIONS) if (body[key] !== undefined) options[key] = body[key];
		return options;
	}

	function validateFire(body) {
		if (body.event !== undefined && typeof body.event !== 'string') return 'event must be a string';
		if (body.event === undefined && typeof body.rawBody !== 'string')
			return 'event (or rawBody) is required';
		if (body.envelope !== undefined && !['new', 'old'].includes(body.envelope))
			return 'envelope must be "new" or "old"';
		if (body.rawBody !== undefined && typeof body.rawBody !== 'string')
			return 'rawBody must be a string';
		if (body.signatureCase !== undefined && !['upper', 'lower'].includes(body.signatureCase))
			return 'signatureCase must be "upper" or "lower"';
		if (body.url !== undefined && typeof body.url !== 'string') return 'url must be a string';
		return null;
	}

	async function fire(ctx, body, flow, source) {
		const invalid = validateFire(body);
		if (invalid) return badRequest(ctx.res, invalid);
		const { record, built } = await sim.webhooks.emit(
			body.event ?? null,
			flow,
			source,
			fireOptions(body),
		);
		return fireResult(ctx.res, record, built);
	}

	async function redeliver(ctx, body) {
		const id = Number(body.deliveryId);
		const original = state.deliveries.find((d) => d.deliveryId === id);
		if (!original)
			return sendJson(ctx.res, 404, {
				error: 'not_found',
				message: `no delivery ${body.deliveryId}`,
			});
		const record = await sim.webhooks.send({
			url: original.url,
			event: original.event,
			flowId: original.flowId,
			webhookId: original.webhookId,
			body: Buffer.from(original.body, 'utf8'),
			headers: { ...original.requestHeaders },
			source: 'redeliver',
			redeliveryOf: original.deliveryId,
		});
		return fireResult(ctx.res, record, null);
	}

	function setConfig(ctx, body) {
		for (const [key, value] of Object.entries(body)) {
			if (!CONFIG_TYPES[key])
				return badRequest(
					ctx.res,
					`unknown config key ${key}; known: ${Object.keys(CONFIG_TYPES).join(', ')}`,
				);
			if (!CONFIG_TYPES[key](value)) return badRequest(ctx.res, `invalid value for ${key}`);
		}
		Object.assign(state.config, body);
		return sendJson(ctx.res, 200, { config: state.config });
	}

	// [method, pattern, handler(ctx, body, ...captures)]; body is the parsed JSON for POST routes.
	const routes = [
		['GET', /^\/health$/, (ctx) => sendJson(ctx.res, 200, { ok: true })],
		['GET', /^\/info$/, (ctx) => sendJson(ctx.res, 200, sim.describe())],
		['GET', /^\/requests$/, listRequests],
		[
			'DELETE',
			/^\/requests$/,
			(ctx) => ((state.requests = []), sendJson(ctx.res, 200, { cleared: true })),
		],
		['GET', /^\/tokens$/, (ctx) => sendJson(ctx.res, 200, { tokens: state.issuedTokens })],
		['GET', /^\/faults$/, (ctx) => sendJson(ctx.res, 200, { faults: state.faults })],
		['POST', /^\/faults$/, addFault],
		[
			'DELETE',
			/^\/faults$/,
			(ctx) => ((state.faults = []), sendJson(ctx.res, 200, { cleared: true })),
		],
		['GET', /^\/flows$/, (ctx) => sendJson(ctx.res, 200, { flows: [...state.flows.values()] })],
		[
			'GET',
			/^\/flows\/([^/]+)$/,
			(ctx, _body, id) =>
				state.flows.has(id)
					? sendJson(ctx.res, 200, { flow: state.flows.get(id) })
					: sendJson(ctx.res, 404, { error: 'not_found', message: `no flow ${id}` }),
		],
		[
			'POST',
			/^\/flows\/([^/]+)\/fire$/,
			(ctx, body, id) =>
				state.flows.has(id)
					? fire(ctx, body, state.flows.get(id), 'fire')
					: sendJson(ctx.res, 404, { error: 'not_found', message: `no flow ${id}` }),
		],
		[
			'POST',
			/^\/fire$/,
			(ctx, body) => {
				if (typeof body.url !== 'string' || !body.url)
					return badRequest(ctx.res, 'url is required');
				const flow = state.flows.get(body.flowId) || syntheticFlow(body);
				return fire(ctx, body, flow, 'fire');
			},
		],
		[
			'GET',
			/^\/deliveries$/,
			(ctx) => {
				const flowId = ctx.query.get('flowId');
				sendJson(ctx.res, 200, {
					deliveries: state.deliveries.filter((d) => !flowId || d.flowId === flowId),
				});
			},
		],
		[
			'DELETE',
			/^\/deliveries$/,
			(ctx) => ((state.deliveries = []), sendJson(ctx.res, 200, { cleared: true })),
		],
		['POST', /^\/redeliver$/, redeliver],
		['GET', /^\/config$/, (ctx) => sendJson(ctx.res, 200, { config: state.config })],
		['POST', /^\/config$/, setConfig],
		[
			'POST',
			/^\/reset$/,
			(ctx) => (sim.reset(), sendJson(ctx.res, 200, { reset: true, config: state.config })),
		],
	];

	async function handle(ctx, subPath) {
		for (const [method, pattern, handler] of routes) {
			const m = pattern.exec(subPath);
			if (!m || ctx.req.method !== method) continue;
			let body = {};
			if (method === 'POST') {
				const read = readJson(ctx);
				if (read.error) return badRequest(ctx.res, read.error);
				body = read.value;
			}
			return handler(ctx, body, ...m.slice(1).map(decodeURIComponent));
		}
		return sendJson(ctx.res, 404, {
			error: 'not_found',
			message: `no control route ${ctx.req.method} /__sim${subPath}`,
		});
	}

	return { handle };
}

module.exports = { createControl };
