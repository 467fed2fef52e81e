'use strict';

// Consent flow service (under /consent): flow creation, deletion, the generic resource call
// and an echo for loan application paths. Tokens come from realms sbl, agents-test, agents-prod.

const crypto = require('node:crypto');
const { sendJson, sendText, mediaType, isJsonType, parseJson, isPlainObject } = require('./util');
const { CONSENT_REALMS } = require('./idp');
const { scenarioFor } = require('./webhooks');

const FLOW_VALIDITY_DAYS = 30;

function bearerChallenge(error, description, extra = '') {
	return `Bearer error="${error}", error_description="${description.replace(/"/g, "'")}"${extra}`;
}

/** Returns the token check result, or null after answering 401 / 403. */
function authenticate(ctx, idp, requiredScope) {
	const result = idp.checkBearer(ctx.req, CONSENT_REALMS);
	if (!result.ok) {
		sendJson(
			ctx.res,
			401,
			{ error: 'invalid_token', message: result.reason },
			{ 'www-authenticate': bearerChallenge('invalid_token', result.reason) },
		);
		return null;
	}
	if (requiredScope && !result.scopes.includes(requiredScope)) {
		const message = `token lacks scope ${requiredScope}`;
		sendJson(
			ctx.res,
			403,
			{ error: 'insufficient_scope', message },
			{
				'www-authenticate': bearerChallenge(
					'insufficient_scope',
					message,
					`, scope="${requiredScope}"`,
				),
			},
		);
		return null;
	}
	return result;
}

function isHttpUrl(value) {
	if (typeof value !== 'string') return false;
	try {
		const u = new URL(value);
		return (u.protocol === 'http:' || u.protocol === 'https:') && Boolean(u.hostname);
	} catch {
		return false;
	}
}

/** Validate a flow creation body; returns a list of { field, message }. */
function validateFlowRequest(body) {
	const errors = [];
	const digits = (field, n) => {
		const v = body[field];
		if (typeof v !== 'string' || !new RegExp(`^\\d{${n}}$`).test(v)) {
			errors.push({ field, message: `${field} must be a string of exactly ${n} digits` });
		}
	};
	digits('nationalId', 11);
	if (typeof body.lastName !== 'string' || body.lastName.trim() === '') {
		errors.push({ field: 'lastName', message: 'lastName must be a non-empty string' });
	}
	digits('organizationId', 9);
	for (const field of ['redirectUrl', 'webhookUrl']) {
		if (!isHttpUrl(body[field]))
			errors.push({ field, message: `${field} must be an absolute http(s) URL` });
	}
	if (
		body.externalId !== undefined &&
		body.externalId !== null &&
		typeof body.externalId !== 'string'
	) {
		errors.push({ field: 'externalId', message: 'externalId must be a string when present' });
	}
	return errors;
}

function badRequest(res, message, fields = []) {
	sendJson(res, 400, { error: 'bad_request', message, fields });
}

function escapeHtml(text) {
	return String(text).replace(
		/[&<>"']/g,
		(c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c],
	);
}

function createConsent(state, idp, webhooks) {
	/** The flow as the API returns it. */
	function publicFlow(flow) {
		return {
			id: flow.id,
			href: flow.href,
			requestStatus: flow.requestStatus,
			validTo: flow.validTo,
			redirectUrl: flow.redirectUrl,
			webhookUrl: flow.webhookUrl,
			externalId: flow.externalId,
			coveredBy: flow.coveredBy,
			nationalId: flow.nationalId,
		};
	}

	const wrap = (value) => (state.config.consentResponseWrapper ? { data: value } : value);

	function createFlow(ctx) {
		const auth = authenticate(ctx, idp, 'sbl');
		if (!auth) return;
		const type = mediaType(ctx.req.headers['content-type']);
		if (type && !isJsonType(type))
			return badRequest(ctx.res, `Content-Type must be application/json, got ${type}`);
		const parsed = parseJson(ctx.rawBody);
		if (!parsed.ok) return badRequest(ctx.res, `body is not valid JSON: ${parsed.error}`);
		if (!isPlainObject(parsed.value)) return badRequest(ctx.res, 'body must be a JSON object');
		const body = parsed.value;
		const errors = validateFlowRequest(body);
		if (errors.length) {
			return badRequest(
				ctx.res,
				`invalid fields: ${errors.map((e) => `${e.field} (${e.message})`).join('; ')}`,
				errors,
			);
		}
		const id = state.config.nextFlowIds?.shift() ?? crypto.randomUUID();
		const now = Date.now();
		const flow = {
			id,
			href: `${state.url}/consent/flows/${id}`,
			requestStatus: 'Unopened',
			validTo: new Date(now + FLOW_VALIDITY_DAYS * 86400000).toISOString(),
			redirectUrl: body.redirectUrl,
			webhookUrl: body.webhookUrl,
			externalId: typeof body.externalId === 'string' ? body.externalId : null,
			coveredBy: body.organizationId,
			nationalId: body.nationalId,
			// simulator-only fields (visible in /__sim/flows)
			lastName: body.lastName,
			clientId: auth.claims.azp,
			realm: auth.realm,
			createdAt: new Date(now).toISOString(),
			deleted: false,
			deletedAt: null,
		};
		flow.scenario = scenarioFor(flow);
		state.flows.set(id, flow);
		sendJson(ctx.res, 201, wrap(publicFlow(flow)), {
			location: `${state.url}/consent/api/flows/${id}`,
		});
		if (state.config.autoLifecycle) {
			flow.lifecycle = true;
			// Background: never blocks or fails the create response.
			webhooks.runLifecycle(flow).catch(() => {});
		}
	}

	function liveFlow(id) {
		const flow = state.flows.get(id);
		return flow && !flow.deleted ? flow : null;
	}

	function notFound(res, id) {
		sendJson(res, 404, { error: 'not_found', message: `no flow ${id}` });
	}

	function deleteFlow(ctx, id) {
		if (!authenticate(ctx, idp, 'sbl')) return;
		const flow = liveFlow(id);
		if (!flow) return notFound(ctx.res, id);
		flow.deleted = true;
		flow.deletedAt = new Date().toISOString();
		sendJson(ctx.res, 200, { id, deleted: true });
		setImmediate(() => {
			if (!state.closed)
				webhooks.emitWithRetries('consent.deleted', flow, 'delete').catch(() => {});
		});
	}

	function getFlow(ctx, id) {
		if (!authenticate(ctx, idp, 'sbl')) return;
		const flow = liveFlow(id);
		if (!flow) return notFound(ctx.res, id);
		sendJson(ctx.res, 200, wrap(publicFlow(flow)));
	}

	function listFlows(ctx) {
		if (!authenticate(ctx, idp, 'sbl')) return;
		const limit = Math.max(1, Math.min(1000, Number(ctx.query.get('limit')) || 100));
		const all = [...state.flows.values()].filter((f) => !f.deleted);
		sendJson(ctx.res, 200, {
			has_more: all.length > limit,
			data: all.slice(0, limit).map(publicFlow),
		});
	}

	function resource(ctx) {
		const auth = authenticate(ctx, idp, null);
		if (!auth) return;
		sendJson(ctx.res, 200, {
			ok: true,
			client: auth.claims.azp,
			realm: auth.realm,
			scopes: auth.scopes,
		});
	}

	function loanApplicationEcho(ctx, apiPath) {
		const auth = authenticate(ctx, idp, null);
		if (!auth) return;
		const parsed = parseJson(ctx.rawBody);
		sendJson(ctx.res, 200, {
			ok: true,
			method: ctx.req.method,
			path: `/api${apiPath}`,
			client: auth.claims.azp,
			realm: auth.realm,
			scopes: auth.scopes,
			body: parsed.ok ? (parsed.value ?? null) : ctx.rawBody.toString('utf8'),
		});
	}

	function flowPage(ctx, id) {
		const flow = state.flows.get(id);
		if (!flow || flow.deleted) {
			return sendText(
				ctx.res,
				404,
				'<!doctype html><title>Not found</title><p>No such consent flow.</p>',
				'text/html; charset=utf-8',
			);
		}
		const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Consent – SBL simulator</title></head>
<body>
<h1>Consent request (simulated)</h1>
<p>Flow <code>${escapeHtml(flow.id)}</code> for ${escapeHtml(flow.lastName)}, requested by organization ${escapeHtml(flow.coveredBy)}.</p>
<p>Status: <strong>${escapeHtml(flow.requestStatus)}</strong>; scenario: ${escapeHtml(flow.scenario)}; valid to ${escapeHtml(flow.validTo)}.</p>
<p><a href="${escapeHtml(flow.redirectUrl)}">Return to the lender</a></p>
</body></html>`;
		sendText(ctx.res, 200, html, 'text/html; charset=utf-8');
	}

	const ANY_METHOD = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];
	// [methods, path pattern, handler(ctx, ...decoded captures)]
	const routes = [
		[['POST'], /^\/api\/flow-definitions\/sbl$/, createFlow],
		[['GET'], /^\/api\/flows$/, listFlows],
		[['DELETE'], /^\/api\/flows\/([^/]+)$/, deleteFlow],
		[['GET'], /^\/api\/flows\/([^/]+)$/, getFlow],
		[['GET'], /^\/api\/resource$/, resource],
		[ANY_METHOD, /^\/api(\/loan-applications(?:\/.*)?)$/, loanApplicationEcho],
		[['GET'], /^\/flows\/([^/]+)$/, flowPage],
	];

	/** Routes under /consent. Returns true when handled. */
	function handle(ctx, subPath) {
		for (const [methods, pattern, handler] of routes) {
			const m = pattern.exec(subPath);
			if (m && methods.includes(ctx.req.method)) {
				const args = m.slice(1).map((part) => {
					try {
						return decodeURIComponent(part);
					} catch {
						return part;
					}
				});
				handler(ctx, ...args);
				return true;
			}
		}
		return false;
	}

	return { handle, publicFlow };
}

module.exports = { createConsent, validateFlowRequest };
