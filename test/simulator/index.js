'use strict';

// Local simulator of the SBL consent flow service (with its identity provider) and the real
// estate estimate API. Plain CommonJS, Node built-ins only. See README.md beside this file.

const http = require('node:http');
const { readBody, sendJson, sleep, mediaType, isJsonType, parseJson } = require('./lib/util');
const { createIdp } = require('./lib/idp');
const { createWebhooks } = require('./lib/webhooks');
const { createConsent } = require('./lib/consent');
const { createEstimate, STORED_DOC_FIRST_ID } = require('./lib/estimate');
const { createControl } = require('./lib/control');
const { truncateResponse } = require('./lib/truncate');

const DEFAULT_SIGNING_SECRET = 'sbl-sim-webhook-signing-secret-2f7d9a1c5e3b8046';
const DEFAULT_SIGNATURE_HEADER = 'x-acme-sbl-signature';

const DEFAULTS = {
	port: 0,
	host: '127.0.0.1',
	tokenLifetimeSeconds: 3600,
	estimatePrefix: '/estimate/v1',
	signingSecret: DEFAULT_SIGNING_SECRET,
	signatureHeader: DEFAULT_SIGNATURE_HEADER,
	webhookDelayMs: 20,
	webhookRetries: 0,
	webhookRetryDelayMs: 500,
	rateLimitPerSecond: 0,
	autoLifecycle: true,
	consentResponseWrapper: false,
	opaqueTokens: false,
	log: false,
};

const REDACTED = '[redacted]';
const SECRET_KEYS =
	/^(client_secret|access_token|refresh_token|id_token|token|password|client_assertion)$/i;
const SECRET_HEADERS = new Set(['authorization', 'proxy-authorization', 'cookie', 'set-cookie']);
const MAX_LOGGED_BODY = 64 * 1024;
const MAX_LOG_ENTRIES = 5000; // request log and delivery list keep the newest entries (long demo runs)

function normalizePrefix(prefix) {
	const p = String(prefix ?? '').trim();
	if (p === '' || p === '/') return '';
	return `/${p.replace(/^\/+|\/+$/g, '')}`;
}

function urlHost(host) {
	if (!host || host === '0.0.0.0' || host === '::' || host === '::0') return '127.0.0.1';
	return host.includes(':') ? `[${host}]` : host;
}

function redactDeep(value) {
	if (Array.isArray(value)) return value.map(redactDeep);
	if (value && typeof value === 'object') {
		const out = {};
		for (const [k, v] of Object.entries(value))
			out[k] = SECRET_KEYS.test(k) ? REDACTED : redactDeep(v);
		return out;
	}
	return value;
}

function redactParams(params) {
	const out = {};
	for (const [k, v] of params) out[k] = SECRET_KEYS.test(k) ? REDACTED : v;
	return out;
}

/**
 * Start the simulator.
 * @returns {Promise<{url:string, port:number, host:string, authUrl:string, consentBaseUrl:string,
 *   estimateBaseUrl:string, estimatePrefix:string, controlUrl:string, realms:object, clients:object,
 *   signingSecret:string, signatureHeader:string, close():Promise<void>}>}
 */
async function startSimulator(options = {}) {
	const opts = { ...DEFAULTS };
	for (const [k, v] of Object.entries(options || {})) if (v !== undefined) opts[k] = v;
	opts.estimatePrefix = normalizePrefix(opts.estimatePrefix);
	opts.signatureHeader = String(opts.signatureHeader).toLowerCase();

	const initialConfig = () => ({
		tokenLifetimeSeconds: Number(opts.tokenLifetimeSeconds),
		consentResponseWrapper: Boolean(opts.consentResponseWrapper),
		autoLifecycle: Boolean(opts.autoLifecycle),
		webhookDelayMs: Number(opts.webhookDelayMs),
		webhookRetries: Number(opts.webhookRetries),
		webhookRetryDelayMs: Number(opts.webhookRetryDelayMs),
		rateLimitPerSecond: Number(opts.rateLimitPerSecond),
		opaqueTokens: Boolean(opts.opaqueTokens),
	});

	const state = {
		options: opts,
		url: null,
		estimatePrefix: opts.estimatePrefix,
		signingSecret: String(opts.signingSecret),
		signatureHeader: opts.signatureHeader,
		config: initialConfig(),
		requests: [],
		requestSeq: 0,
		issuedTokens: [],
		faults: [],
		faultSeq: 0,
		flows: new Map(),
		deliveries: [],
		deliverySeq: 0,
		docs: new Map(),
		docsByObject: new Map(),
		nextDocId: STORED_DOC_FIRST_ID,
		timers: new Set(),
		epoch: 0,
		closed: false,
		maxLogEntries: MAX_LOG_ENTRIES,
		logLine: (line) => {
			if (typeof opts.log === 'function') opts.log(line);
			else if (opts.log) console.log(`[sbl-sim] ${line}`);
		},
	};

	const idp = createIdp(state);
	const webhooks = createWebhooks(state);
	const consent = createConsent(state, idp, webhooks);
	const estimate = createEstimate(state, idp);

	const sim = {
		webhooks,
		describe: () => describe(),
		reset() {
			state.epoch++;
			webhooks.cancelAll();
			state.requests = [];
			state.requestSeq = 0;
			state.faults = [];
			state.flows.clear();
			state.deliveries = [];
			state.deliverySeq = 0;
			state.docs.clear();
			state.docsByObject.clear();
			state.nextDocId = STORED_DOC_FIRST_ID;
			state.config = initialConfig();
		},
	};
	const control = createControl(state, sim);

	/** Log entry of a request: secrets redacted, token reduced to its scope and jti claims. */
	function logEntry(ctx) {
		const { req, rawBody } = ctx;
		const headers = {};
		for (const [k, v] of Object.entries(req.headers))
			headers[k] = SECRET_HEADERS.has(k) ? REDACTED : v;
		const auth =
			typeof req.headers.authorization === 'string' ? req.headers.authorization.trim() : null;
		const scheme = auth ? auth.split(/\s+/)[0] : null;
		const credential = auth ? auth.slice(scheme.length).trim() : null;
		const hidden = credential ? [credential] : [];
		const entry = {
			seq: ++state.requestSeq,
			time: new Date().toISOString(),
			method: req.method,
			path: ctx.path,
			query: redactParams(ctx.query),
			headers,
			authScheme: null,
			contentType: req.headers['content-type'] ?? null,
			body: null,
			status: null,
		};
		if (scheme && /^basic$/i.test(scheme)) {
			entry.authScheme = 'Basic';
			const candidates = idp.basicCandidates(auth);
			entry.authClientId = candidates.length ? candidates[0].id : null;
			for (const c of candidates) if (c.secret) hidden.push(c.secret, encodeURIComponent(c.secret));
		} else if (scheme && /^bearer$/i.test(scheme)) {
			entry.authScheme = 'Bearer';
			const claims = idp.peekClaims(credential);
			entry.tokenScope = claims && typeof claims.scope === 'string' ? claims.scope : null;
			entry.tokenJti = claims && typeof claims.jti === 'string' ? claims.jti : null;
		} else if (scheme) {
			entry.authScheme = scheme;
		}
		if (rawBody.length) {
			const type = mediaType(req.headers['content-type']);
			const text = rawBody.toString('utf8');
			if (type === 'application/x-www-form-urlencoded') {
				const form = new URLSearchParams(text);
				for (const [k, v] of form) if (SECRET_KEYS.test(k) && v) hidden.push(v);
				entry.body = redactParams(form);
			} else if (isJsonType(type) || (!type && /^\s*[[{]/.test(text))) {
				const parsed = parseJson(rawBody);
				entry.body = parsed.ok ? redactDeep(parsed.value) : text.slice(0, MAX_LOGGED_BODY);
			} else {
				entry.body = text
					.slice(0, MAX_LOGGED_BODY)
					.replace(/((?:client_secret|access_token|password)=)[^&\s]*/gi, `$1${REDACTED}`);
			}
		}
		// Safety net: no credential string may survive anywhere in the entry.
		const secrets = hidden.filter((s) => s && s.length >= 4);
		if (!secrets.length) return entry;
		let json = JSON.stringify(entry);
		for (const s of secrets) {
			const inJson = JSON.stringify(s).slice(1, -1);
			json = json.split(inJson).join(REDACTED);
		}
		return JSON.parse(json);
	}

	function takeFault(method, path) {
		const index = state.faults.findIndex(
			(f) =>
				(!f.match.method || f.match.method === method) &&
				(!f.match.pathPrefix || path.startsWith(f.match.pathPrefix)),
		);
		if (index < 0) return null;
		const fault = state.faults[index];
		fault.remaining--;
		if (fault.remaining <= 0) state.faults.splice(index, 1);
		return fault;
	}

	function notFound(ctx) {
		sendJson(ctx.res, 404, {
			error: 'not_found',
			message: `no route ${ctx.req.method} ${ctx.path}`,
		});
	}

	async function dispatch(ctx) {
		const path = ctx.path;
		const prefix = state.estimatePrefix;
		if (path === '/' && ctx.req.method === 'GET') {
			sendJson(ctx.res, 200, { name: 'sbl-simulator', ...describe() });
		} else if (path.startsWith('/auth/')) {
			if (!idp.handle(ctx, path.slice('/auth'.length))) notFound(ctx);
		} else if (path.startsWith('/consent/')) {
			if (!consent.handle(ctx, path.slice('/consent'.length))) notFound(ctx);
		} else if (path.startsWith(`${prefix}/`)) {
			const handled = estimate.handle(ctx, path.slice(prefix.length));
			if (handled === false) {
				sendJson(
					ctx.res,
					404,
					{ status: 404, title: 'Not Found', detail: `no route ${ctx.req.method} ${path}` },
					{},
					'application/problem+json; charset=utf-8',
				);
			}
		} else {
			notFound(ctx);
		}
	}

	async function onRequest(req, res) {
		let url;
		try {
			url = new URL(req.url, 'http://simulator.invalid');
		} catch {
			return sendJson(res, 400, { error: 'bad_request', message: 'malformed request target' });
		}
		const ctx = { req, res, path: url.pathname, query: url.searchParams, rawBody: Buffer.alloc(0) };
		try {
			ctx.rawBody = await readBody(req);
		} catch (error) {
			if (error.code === 'E_TOO_LARGE')
				return sendJson(res, 413, { error: 'payload_too_large', message: error.message });
			return undefined;
		}
		if (ctx.path === '/__sim' || ctx.path.startsWith('/__sim/')) {
			return control.handle(ctx, ctx.path.slice('/__sim'.length));
		}
		const entry = logEntry(ctx);
		state.requests.push(entry);
		if (state.requests.length > MAX_LOG_ENTRIES)
			state.requests.splice(0, state.requests.length - MAX_LOG_ENTRIES);
		res.on('close', () => {
			entry.status = res.writableFinished ? res.statusCode : null;
			if (!res.writableFinished) entry.aborted = true;
			state.logLine(
				`${req.method} ${ctx.path} → ${entry.status ?? 'aborted'}${entry.fault ? ' (fault)' : ''}`,
			);
		});
		const fault = takeFault(req.method, ctx.path);
		if (fault) {
			entry.fault = {
				id: fault.id,
				status: fault.status,
				retryAfter: fault.retryAfter,
				latencyMs: fault.latencyMs,
				drop: fault.drop,
			};
			if (fault.truncate !== null)
				Object.assign(entry.fault, { truncate: fault.truncate, chunked: fault.chunked });
			if (fault.latencyMs) await sleep(fault.latencyMs);
			if (state.closed) return undefined;
			if (fault.truncate !== null)
				truncateResponse(res, fault.truncate, { chunked: fault.chunked });
			if (fault.drop) {
				req.socket.destroy();
				return undefined;
			}
			if (fault.status) {
				const headers =
					fault.retryAfter !== null ? { 'retry-after': String(fault.retryAfter) } : {};
				if (fault.headers)
					for (const [name, value] of Object.entries(fault.headers))
						headers[name] = echo(value, ctx).replace(/[\r\n]/g, ' ');
				if (fault.body !== null) {
					const text = echo(fault.body, ctx);
					const looksJson = parseJson(Buffer.from(text)).ok && text.trim() !== '';
					const type =
						fault.contentType ??
						(looksJson ? 'application/json; charset=utf-8' : 'text/plain; charset=utf-8');
					res.writeHead(fault.status, {
						'content-type': type,
						'content-length': Buffer.byteLength(text),
						'cache-control': 'no-store',
						...headers,
					});
					return res.end(text);
				}
				return sendJson(
					res,
					fault.status,
					{
						error: 'simulated_fault',
						status: fault.status,
						message: `fault ${fault.id} injected by the simulator`,
					},
					headers,
				);
			}
		}
		if (rateLimited(ctx.path)) {
			entry.rateLimited = true;
			const rate = state.config.rateLimitPerSecond;
			return sendJson(
				res,
				429,
				{ error: 'rate_limited', message: `more than ${rate} requests per second` },
				{ 'retry-after': '1' },
			);
		}
		return dispatch(ctx);
	}

	/**
	 * A fault's body or header template filled with what the request carried, as a careless
	 * gateway echoes it: `{{authorization}}` the Authorization header, `{{token}}` its credential
	 * without the scheme, `{{body.<field>}}` a top-level field of the JSON body (as text), `{{rawBody}}`.
	 */
	function echo(template, ctx) {
		const auth =
			typeof ctx.req.headers.authorization === 'string' ? ctx.req.headers.authorization.trim() : '';
		let json;
		return template.replace(
			/\{\{\s*(authorization|token|rawBody|body\.([A-Za-z0-9_$-]+))\s*\}\}/g,
			(_, name, field) => {
				if (name === 'authorization') return auth;
				if (name === 'token') return auth.replace(/^\S+\s+/, '');
				if (name === 'rawBody') return ctx.rawBody.toString('utf8');
				if (json === undefined) {
					const parsed = parseJson(ctx.rawBody);
					json = parsed.ok && parsed.value !== undefined ? parsed.value : null;
				}
				const value = json !== null && typeof json === 'object' ? json[field] : undefined;
				return value === undefined || value === null
					? ''
					: typeof value === 'object'
						? JSON.stringify(value)
						: String(value);
			},
		);
	}

	/**
	 * Config `rateLimitPerSecond` (0: off): a token bucket of that many requests, refilled at that
	 * rate, over the consent and estimate APIs (not the identity provider); an empty bucket answers
	 * 429 with Retry-After: 1.
	 */
	function rateLimited(path) {
		const rate = state.config.rateLimitPerSecond;
		if (!(rate > 0) || path.startsWith('/auth/')) return false;
		const now = Date.now();
		if (!state.bucket || state.bucket.rate !== rate) state.bucket = { rate, tokens: rate, at: now };
		const b = state.bucket;
		b.tokens = Math.min(rate, b.tokens + ((now - b.at) * rate) / 1000);
		b.at = now;
		if (b.tokens < 1) return true;
		b.tokens -= 1;
		return false;
	}

	const server = http.createServer((req, res) => {
		onRequest(req, res).catch((error) => {
			state.logLine(`internal error: ${error.stack || error}`);
			if (!res.headersSent)
				sendJson(res, 500, { error: 'internal_error', message: String(error.message || error) });
			else res.destroy();
		});
	});
	server.keepAliveTimeout = 5000;

	await new Promise((resolve, reject) => {
		server.once('error', reject);
		server.listen(Number(opts.port) || 0, opts.host, () => {
			server.off('error', reject);
			resolve();
		});
	});

	const port = server.address().port;
	state.url = `http://${urlHost(opts.host)}:${port}`;

	function describe() {
		const url = state.url;
		const realms = {};
		for (const name of ['sbl', 'agents-test', 'agents-prod', 'estimate'])
			realms[name] = idp.realmInfo(name);
		return {
			url,
			port,
			host: opts.host,
			authUrl: `${url}/auth`,
			consentBaseUrl: `${url}/consent`,
			estimateBaseUrl: `${url}${state.estimatePrefix}`,
			estimatePrefix: state.estimatePrefix,
			controlUrl: `${url}/__sim`,
			realms,
			clients: idp.publicClients(),
			signingSecret: state.signingSecret,
			signatureHeader: state.signatureHeader,
		};
	}

	let closing = null;
	function close() {
		if (!closing) {
			closing = new Promise((resolve) => {
				state.closed = true;
				state.epoch++;
				webhooks.cancelAll();
				webhooks.abortInflight();
				server.close(() => resolve());
				server.closeAllConnections();
			});
		}
		return closing;
	}

	return { ...describe(), close };
}

module.exports = { startSimulator, DEFAULTS, DEFAULT_SIGNING_SECRET, DEFAULT_SIGNATURE_HEADER };
