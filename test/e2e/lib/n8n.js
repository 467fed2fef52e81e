'use strict';
// Starts and drives a real n8n (2.x on Node 24, 1.x on the system Node 20) for the e2e tests:
// sqlite in a temporary user folder, owner from the environment, the packed package installed like
// a community package, free loopback ports, logs in the user folder. Control through REST (login
// cookie) and the public API (API key). Every started process group is stopped by pid in stop(),
// on process exit, and by a detached reaper if the test process dies without stopping it.
// The same class runs the other n8n commands of a queue-mode set-up (`command: 'worker'` or
// `'webhook'`, see queue.js); watchGroup()/terminateGroup() serve the other child processes too.
const { spawn } = require('node:child_process');
const crypto = require('node:crypto');
const fs = require('node:fs');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');
const { ensureN8n, nodeEnv, log } = require('./install');
const { installIntoUserFolder } = require('./pkg');
const { request, sleep, waitFor } = require('./http');

const running = new Set();
let exitHooked = false;
/** Kills every watched process group when this process exits or gets SIGINT/SIGTERM/SIGHUP. */
function hookExit() {
	if (exitHooked) return;
	exitHooked = true;
	const killAll = () => {
		for (const n of running) n._killNow();
	};
	process.on('exit', killAll);
	for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
		// A program with its own handler (scripts/start/start.js) stops n8n gracefully itself.
		if (process.listenerCount(sig) > 0) continue;
		process.once(sig, () => {
			killAll();
			process.exit(128 + (os.constants.signals[sig] || 0));
		});
	}
}

/**
 * Watches a detached child (own process group, leader `pid`): `handle._killNow()` runs when this
 * process exits, and a detached reaper kills the group if this process dies without stopping it.
 * unwatchGroup(handle) when it was stopped.
 */
function watchGroup(handle, pid) {
	running.add(handle);
	hookExit();
	const reaper = spawn(
		process.execPath,
		[path.join(__dirname, 'reaper.js'), String(process.pid), String(pid)],
		{
			detached: true,
			stdio: 'ignore',
		},
	);
	reaper.unref();
}

function unwatchGroup(handle) {
	running.delete(handle);
}

function signalPid(pid, signal) {
	try {
		process.kill(pid, signal);
	} catch {}
}

/**
 * Stops a detached child by pid: `signal` to its process group (`group: true`) or only to the
 * leader, waits until `exited()` is true, SIGKILL to the group after `timeoutMs`; finally SIGKILL
 * to the group so no child of it is left. Returns true when the signal was enough.
 */
async function terminateGroup(
	pid,
	{ exited, signal = 'SIGTERM', group = true, timeoutMs = 15000, label = `pid ${pid}` },
) {
	let graceful = true;
	if (!exited()) {
		signalPid(group ? -pid : pid, signal);
		const until = Date.now() + timeoutMs;
		while (!exited() && Date.now() < until) await sleep(50);
		if (!exited()) {
			graceful = false;
			log(`${label} did not stop in ${timeoutMs / 1000} s after ${signal}: SIGKILL`);
			signalPid(-pid, 'SIGKILL');
			while (!exited()) await sleep(50);
		}
	}
	signalPid(-pid, 'SIGKILL');
	return graceful;
}

/** A free TCP port on 127.0.0.1 (not one of `avoid`). */
async function freePort(avoid = []) {
	for (let i = 0; i < 20; i++) {
		const port = await new Promise((resolve, reject) => {
			const srv = net.createServer();
			srv.unref();
			srv.on('error', reject);
			srv.listen(0, '127.0.0.1', () => {
				const { port: p } = srv.address();
				srv.close(() => resolve(p));
			});
		});
		if (!avoid.includes(port)) return port;
	}
	throw new Error('no free port');
}

function portFree(port) {
	return new Promise((resolve) => {
		const srv = net.createServer();
		srv.once('error', () => resolve(false));
		srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
	});
}

function randomPassword() {
	// n8n wants 8+ chars with a number and a capital letter.
	return `E2e-${crypto.randomBytes(9).toString('base64url')}9Z`;
}

class N8n {
	/**
	 * opts: major ('1'|'2'), tgz (package tarball to install, optional), userFolder (default: a new
	 * temp folder), port (default: free), brokerPort, env (extra env), ownerEmail, ownerPassword,
	 * encryptionKey, logLevel, keepUserFolder.
	 * Queue mode (queue.js): command ('start' (default) | 'webhook' | 'worker'), args (extra CLI
	 * arguments, e.g. ['--concurrency=10']), name (log files n8n-<name>.log / n8n-<name>.stdout.log,
	 * for processes sharing a user folder), stopTimeoutMs (SIGKILL after it, default 15000).
	 * A worker's `port` is its health-check server (QUEUE_HEALTH_CHECK_PORT).
	 */
	constructor(opts = {}) {
		this.opts = opts;
		// opts.version: an exact n8n version ('2.4.8'); otherwise ensureN8n(major) decides (the
		// committed spec, or the exact version SBL_E2E_VERSIONS lists for the major).
		this.target = String(opts.version || opts.major || '2');
		this.major = this.target.split('.')[0];
		this.command = opts.command || 'start';
		this.userFolder =
			opts.userFolder || fs.mkdtempSync(path.join(os.tmpdir(), `sbl-e2e-n8n${this.major}-`));
		this.ownedUserFolder = !opts.userFolder;
		this.ownerEmail = opts.ownerEmail || 'owner@sbl-e2e.test';
		this.ownerPassword = opts.ownerPassword || randomPassword();
		this.encryptionKey = opts.encryptionKey || crypto.randomBytes(24).toString('hex');
		this.browserId = crypto.randomUUID();
		this.cookie = null;
		this.apiKey = null;
		this.child = null;
		this.starts = 0;
	}

	get url() {
		return `http://127.0.0.1:${this.port}`;
	}

	get logFile() {
		return path.join(this.userFolder, this.opts.name ? `n8n-${this.opts.name}.log` : 'n8n.log');
	}

	get stdoutFile() {
		return path.join(
			this.userFolder,
			this.opts.name ? `n8n-${this.opts.name}.stdout.log` : 'n8n.stdout.log',
		);
	}

	/** The `start` command (main): serves the editor, REST and the public API. */
	get isMain() {
		return this.command === 'start';
	}

	/** The text n8n logged so far (log file + stdout/stderr). */
	logs() {
		const read = (f) => (fs.existsSync(f) ? fs.readFileSync(f, 'utf8') : '');
		return read(this.stdoutFile) + '\n' + read(this.logFile);
	}

	/** Installs n8n if needed, installs the package tarball, starts n8n, logs in, creates an API key. */
	async start() {
		const started = Date.now();
		this.install = await ensureN8n(this.target);
		this.version = this.install.version;
		if (this.opts.tgz) {
			this.packageDir = installIntoUserFolder(this.userFolder, this.opts.tgz, {
				nodeBin: this.install.nodeBin,
			});
		}
		this.port = this.opts.port || (await freePort());
		this.brokerPort = this.opts.brokerPort || (await freePort([this.port]));
		await this._spawn();
		if (this.isMain) await this._afterBoot();
		log(
			`n8n ${this.version}${this.isMain ? '' : ` ${this.command} ${this.opts.name || ''}`} ready at ${this.url} in ${((Date.now() - started) / 1000).toFixed(1)} s (user folder ${this.userFolder})`,
		);
		return this;
	}

	_bcrypt() {
		return require(path.join(this.install.dir, 'node_modules', 'bcryptjs'));
	}

	env() {
		const p = this.port;
		const env = {
			N8N_USER_FOLDER: this.userFolder,
			N8N_PORT: String(p),
			N8N_LISTEN_ADDRESS: '127.0.0.1',
			N8N_HOST: '127.0.0.1',
			N8N_PROTOCOL: 'http',
			WEBHOOK_URL: `http://127.0.0.1:${p}/`,
			N8N_EDITOR_BASE_URL: `http://127.0.0.1:${p}/`,
			N8N_DIAGNOSTICS_ENABLED: 'false',
			N8N_PERSONALIZATION_ENABLED: 'false',
			N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
			N8N_TEMPLATES_ENABLED: 'false',
			N8N_SECURE_COOKIE: 'false',
			N8N_DISABLED_MODULES: 'mcp-registry',
			N8N_RUNNERS_BROKER_PORT: String(this.brokerPort),
			N8N_ENCRYPTION_KEY: this.encryptionKey,
			N8N_ENFORCE_SETTINGS_FILE_PERMISSIONS: 'true',
			N8N_LOG_LEVEL: this.opts.logLevel || 'info',
			N8N_LOG_OUTPUT: 'console,file',
			N8N_LOG_FILE_LOCATION: this.logFile,
			N8N_LOG_FILE_SIZE_MAX: '64',
			N8N_COMMUNITY_PACKAGES_ENABLED: 'true',
			N8N_PUBLIC_API_DISABLED: 'false',
			N8N_HIRING_BANNER_ENABLED: 'false',
			EXECUTIONS_DATA_SAVE_ON_SUCCESS: 'all',
			EXECUTIONS_DATA_SAVE_ON_ERROR: 'all',
			EXECUTIONS_DATA_SAVE_MANUAL_EXECUTIONS: 'true',
			GENERIC_TIMEZONE: 'UTC',
			TZ: 'UTC',
		};
		if (this.major === '1') {
			// 1.123 has no owner-from-env: the owner is created through /rest/owner/setup after boot.
			env.N8N_RUNNERS_ENABLED = 'true';
			env.DB_SQLITE_POOL_SIZE = '2';
			// 1.123 crashes on start with "Unknown module" for mcp-registry: it has no such module.
			delete env.N8N_DISABLED_MODULES;
			// 1.123.76+ default to the "vm" expression engine (isolated-vm 6, Node >= 22 only): on
			// Node 20 n8n exits at start ("Could not initialize the vm expression engine").
			env.N8N_EXPRESSION_ENGINE = 'legacy';
		} else if (
			!fs.existsSync(
				path.join(this.install.dir, 'node_modules', 'n8n', 'dist', 'modules', 'mcp-registry'),
			)
		) {
			// 2.x before the mcp-registry module (2.20.12 has none; 2.41.1 has it) crashes on start
			// with "Unknown module" like 1.123: leave the variable out there.
			delete env.N8N_DISABLED_MODULES;
		}
		if (this.major !== '1' && this.isMain) {
			// Owner without the setup screen; bcrypt hash made with n8n's own bcryptjs (only
			// `n8n start` reads these variables).
			Object.assign(env, {
				N8N_INSTANCE_OWNER_MANAGED_BY_ENV: 'true',
				N8N_INSTANCE_OWNER_EMAIL: this.ownerEmail,
				N8N_INSTANCE_OWNER_FIRST_NAME: 'E2E',
				N8N_INSTANCE_OWNER_LAST_NAME: 'Owner',
				N8N_INSTANCE_OWNER_PASSWORD_HASH: this._bcrypt().hashSync(this.ownerPassword, 10),
			});
		}
		if (this.command === 'worker') {
			// The worker's own HTTP server: /healthz, and /healthz/readiness once DB + Redis are up.
			Object.assign(env, {
				QUEUE_HEALTH_CHECK_ACTIVE: 'true',
				QUEUE_HEALTH_CHECK_PORT: String(p),
				N8N_WORKER_SERVER_ADDRESS: '127.0.0.1',
			});
		}
		return { ...env, ...(this.opts.env || {}) };
	}

	async _spawn() {
		for (const [name, port] of [
			['main', this.port],
			['task broker', this.brokerPort],
		]) {
			if (!(await portFree(port))) throw new Error(`n8n ${name} port ${port} is taken`);
		}
		const out = fs.openSync(this.stdoutFile, 'a');
		fs.writeSync(out, `\n===== start ${++this.starts} at ${new Date().toISOString()} =====\n`);
		const env = nodeEnv(this.install.nodeBin, this.env());
		this.child = spawn(
			this.install.node,
			[this.install.n8nBin, this.command, ...(this.opts.args || [])],
			{
				cwd: this.userFolder,
				env,
				detached: true, // own process group: stop() kills n8n and its task runner together
				stdio: ['ignore', out, out],
			},
		);
		fs.closeSync(out);
		this.pid = this.child.pid;
		this.exited = null;
		this.child.on('exit', (code, signal) => {
			this.exited = { code, signal };
		});
		watchGroup(this, this.pid);
		await this._waitReady();
	}

	async _waitReady(timeoutMs = 120000) {
		await waitFor(
			async () => {
				if (this.exited) {
					throw Object.assign(new Error(`n8n exited (${JSON.stringify(this.exited)})`), {
						fatal: true,
					});
				}
				const r = await request('GET', `${this.url}/healthz/readiness`, { timeoutMs: 3000 });
				if (r.status !== 200 || !this.isMain) return r.status === 200;
				// 1.123 answers readiness before its REST routes exist: wait for /rest/settings too.
				const s = await request('GET', `${this.url}/rest/settings`, { timeoutMs: 3000 });
				return s.status === 200;
			},
			{ timeoutMs, intervalMs: 200, what: `n8n ${this.command} readiness at ${this.url}` },
		).catch((e) => {
			const tail = this.logs().split('\n').slice(-60).join('\n');
			throw new Error(`${e.message}\n--- n8n output (tail) ---\n${tail}`);
		});
	}

	async _afterBoot() {
		await this.login();
		if (this.opts.apiKey && !this.apiKey) {
			// A key kept from an earlier run (npm start): reuse it while n8n still accepts it.
			this.apiKey = this.opts.apiKey;
			const r = await this.api('GET', '/workflows?limit=1', undefined, { raw: true });
			if (r.status !== 200) this.apiKey = null;
		}
		if (!this.apiKey) this.apiKey = await this.createApiKey();
	}

	/** Sends a REST request with the login cookie (and the browser id the cookie is bound to). */
	async rest(method, p, json, { raw = false, headers = {} } = {}) {
		const h = { 'browser-id': this.browserId, ...headers };
		if (this.cookie) h.cookie = this.cookie;
		const r = await request(method, `${this.url}${p}`, { json, headers: h });
		if (raw) return r;
		if (r.status >= 400)
			throw new Error(`REST ${method} ${p} → ${r.status}: ${r.text.slice(0, 2000)}`);
		return r.json && Object.prototype.hasOwnProperty.call(r.json, 'data') ? r.json.data : r.json;
	}

	/** Public API request with the API key. */
	async api(method, p, json, { raw = false } = {}) {
		const r = await request(method, `${this.url}/api/v1${p}`, {
			json,
			headers: { 'x-n8n-api-key': this.apiKey, accept: 'application/json' },
		});
		if (raw) return r;
		if (r.status >= 400)
			throw new Error(`API ${method} ${p} → ${r.status}: ${r.text.slice(0, 2000)}`);
		return r.json;
	}

	/** Public front-end settings (no login needed). */
	async settings() {
		const r = await request('GET', `${this.url}/rest/settings`, {
			headers: { 'browser-id': this.browserId },
		});
		if (r.status !== 200)
			throw new Error(`GET /rest/settings → ${r.status}: ${r.text.slice(0, 300)}`);
		return r.json.data;
	}

	async login() {
		const s = await this.settings();
		if (s.userManagement && s.userManagement.showSetupOnFirstLoad) await this.setupOwner();
		// emailOrLdapLoginId: both 1.123 and 2.41 (older 1.x used `email`).
		const r = await request('POST', `${this.url}/rest/login`, {
			json: { emailOrLdapLoginId: this.ownerEmail, password: this.ownerPassword },
			headers: { 'browser-id': this.browserId },
		});
		if (r.status !== 200) throw new Error(`login failed: ${r.status} ${r.text.slice(0, 500)}`);
		// The auth cookie is bound to the browser-id header sent at login: send it on every REST call.
		const c = r.setCookies.map((x) => x.split(';')[0]).find((x) => x.startsWith('n8n-auth='));
		if (!c) throw new Error(`login gave no n8n-auth cookie: ${r.setCookies.join(' | ')}`);
		this.cookie = c;
		return r.json.data;
	}

	/** Owner set-up through the REST endpoint (n8n 1.x; 2.x gets the owner from the environment). */
	async setupOwner() {
		const r = await request('POST', `${this.url}/rest/owner/setup`, {
			json: {
				email: this.ownerEmail,
				firstName: 'E2E',
				lastName: 'Owner',
				password: this.ownerPassword,
			},
			headers: { 'browser-id': this.browserId },
		});
		if (r.status >= 400) throw new Error(`owner setup → ${r.status}: ${r.text.slice(0, 300)}`);
		log(`n8n ${this.version}: owner created through /rest/owner/setup`);
	}

	async createApiKey() {
		let scopes;
		const s = await this.rest('GET', '/rest/api-keys/scopes', undefined, { raw: true });
		if (s.status === 200) scopes = s.json.data;
		const body = { label: `e2e-${Date.now()}`, expiresAt: null };
		if (scopes) body.scopes = scopes;
		const data = await this.rest('POST', '/rest/api-keys', body);
		const key = data.rawApiKey || data.apiKey;
		if (!key) throw new Error(`no API key in ${JSON.stringify(Object.keys(data))}`);
		return key;
	}

	// ---- credentials -------------------------------------------------------------------------

	/** The JSON schema the public API validates credential data with. */
	credentialSchema(type) {
		return this.api('GET', `/credentials/schema/${type}`);
	}

	/**
	 * Creates a credential through the public API: { name, type, data } → { id, name, type }.
	 * See README: the public API validates `data` against the type's schema, which for OAuth2
	 * types derived from oAuth2Api includes hidden fields.
	 */
	async createCredential({ name, type, data }) {
		const body = { name, type, data: await this.satisfySchemaConditions(type, data) };
		return this.api('POST', '/credentials', body);
	}

	/**
	 * n8n 1.123's public API builds `if/then/else` conditions from displayOptions without
	 * `required` in the `if`, so a condition on a field that is absent (or hidden, and hence not
	 * allowed in the body) always holds and its `then` demands the dependent fields. For types
	 * extending oAuth2Api that is serverUrl (useDynamicClientRegistration), sendAdditionalBodyProperties
	 * + additionalBodyProperties (grantType) and allowedDomains (allowedHttpRequestDomains).
	 * This adds, for each such condition, either a value of the condition field that makes it false
	 * (allowedHttpRequestDomains: 'all') or empty values for what `then` requires (serverUrl: '',
	 * sendAdditionalBodyProperties: false, additionalBodyProperties: '{}').
	 * 2.x puts `required: [field]` into the `if`, so nothing is added there.
	 */
	async satisfySchemaConditions(type, data) {
		this._schemas = this._schemas || {};
		if (!this._schemas[type]) this._schemas[type] = await this.credentialSchema(type);
		const schema = this._schemas[type];
		const out = { ...data };
		const empty = (t) => (t === 'boolean' ? false : t === 'number' ? 0 : t === 'json' ? '{}' : '');
		for (const cond of schema.allOf || []) {
			const props = cond.if && cond.if.properties;
			if (!props) continue;
			const [field] = Object.keys(props);
			if ((cond.if.required || []).includes(field) || field in out) continue;
			const when = props[field].enum || [];
			const own = schema.properties[field];
			const other =
				own && Array.isArray(own.enum) ? own.enum.find((v) => !when.includes(v)) : undefined;
			if (other !== undefined) {
				out[field] = other;
				continue;
			}
			for (const req of ((cond.then && cond.then.allOf) || []).flatMap((x) => x.required || [])) {
				if (!(req in out)) out[req] = empty(schema.properties[req] && schema.properties[req].type);
			}
		}
		return out;
	}

	deleteCredential(id) {
		return this.api('DELETE', `/credentials/${id}`);
	}

	/**
	 * n8n's credential test, as the credential screen runs it: GET /rest/credentials/:id?includeData=true
	 * (secrets come back redacted) and POST /rest/credentials/test { credentials: { id, name, type, data } };
	 * n8n puts the stored secrets back in place of the redacted values. `override` replaces fields as if
	 * typed into the form before pressing "Retry" (e.g. { clientSecret: 'other' }).
	 * Returns { status: 'OK'|'Error', message }.
	 */
	async testCredential(id, override = {}) {
		const stored = await this.rest('GET', `/rest/credentials/${id}?includeData=true`);
		const body = {
			credentials: {
				id: stored.id,
				name: stored.name,
				type: stored.type,
				data: { ...stored.data, ...override },
			},
		};
		return this.rest('POST', '/rest/credentials/test', body);
	}

	/** The credential as the editor sees it (secrets redacted by n8n). */
	getCredentialRedacted(id) {
		return this.rest('GET', `/rest/credentials/${id}?includeData=true`);
	}

	// ---- workflows ---------------------------------------------------------------------------

	/** Creates a workflow through the public API (only the fields it accepts). */
	async createWorkflow(wf) {
		const body = {
			name: wf.name,
			nodes: wf.nodes,
			connections: wf.connections || {},
			settings: wf.settings || { executionOrder: 'v1' },
		};
		if (wf.staticData) body.staticData = wf.staticData;
		return this.api('POST', '/workflows', body);
	}

	activateWorkflow(id) {
		return this.api('POST', `/workflows/${id}/activate`);
	}

	deactivateWorkflow(id) {
		return this.api('POST', `/workflows/${id}/deactivate`);
	}

	getWorkflow(id) {
		return this.api('GET', `/workflows/${id}`);
	}

	deleteWorkflow(id) {
		return this.api('DELETE', `/workflows/${id}`);
	}

	/**
	 * Base URLs that serve production webhooks: this n8n; in queue mode the `n8n webhook`
	 * processes (queue.js replaces this method on main).
	 */
	webhookBases() {
		return [this.url];
	}

	/** The production URL of a Webhook-like node's path (on the first of webhookBases()). */
	webhookUrl(p, base = this.webhookBases()[0]) {
		return `${base}/webhook/${p.replace(/^\/+/, '')}`;
	}

	/**
	 * Waits until the production webhook at `p` is registered on every base of webhookBases(). An
	 * OPTIONS (CORS preflight) request answers 404 while the path is unknown, without starting an
	 * execution. Returns the URL on the first base.
	 */
	async waitForWebhook(p, { method = 'POST', timeoutMs = 30000 } = {}) {
		for (const base of this.webhookBases()) {
			const url = this.webhookUrl(p, base);
			await waitFor(
				async () => {
					const r = await request('OPTIONS', url, {
						headers: { origin: base, 'access-control-request-method': method },
						timeoutMs: 5000,
					});
					return r.status !== 404 && r.status < 500;
				},
				{ timeoutMs, intervalMs: 200, what: `production webhook ${url}` },
			);
		}
		return this.webhookUrl(p);
	}

	/** Creates + activates a workflow and waits for its webhook paths; returns the stored workflow. */
	async deployWorkflow(wf, { activate = true, webhookPaths } = {}) {
		const created = await this.createWorkflow(wf);
		if (activate) {
			await this.activateWorkflow(created.id);
			const paths =
				webhookPaths ||
				wf.nodes
					.filter((n) => n.type === 'n8n-nodes-base.webhook' && !n.disabled)
					.map((n) => ({ path: n.parameters.path, method: n.parameters.httpMethod || 'GET' }));
			for (const w of paths) {
				const wp = typeof w === 'string' ? { path: w, method: 'POST' } : w;
				await this.waitForWebhook(wp.path, { method: wp.method });
			}
		}
		return created;
	}

	/** POSTs JSON to a production webhook; returns the HTTP response. */
	callWebhook(p, json, { method = 'POST', headers = {}, body } = {}) {
		return request(method, this.webhookUrl(p), {
			json: body === undefined ? json : undefined,
			body,
			headers,
			timeoutMs: 120000,
		});
	}

	/** Executions of a workflow (newest first), with their data. */
	async executions(workflowId, { includeData = true, status, limit = 100 } = {}) {
		const q = new URLSearchParams({
			workflowId: String(workflowId),
			includeData: String(includeData),
			limit: String(limit),
		});
		if (status) q.set('status', status);
		const r = await this.api('GET', `/executions?${q}`);
		return r.data;
	}

	execution(id, { includeData = true } = {}) {
		return this.api('GET', `/executions/${id}?includeData=${includeData}`);
	}

	/** Waits until a workflow has at least `count` finished executions; returns them (newest first). */
	async waitForExecutions(workflowId, { count = 1, timeoutMs = 30000 } = {}) {
		let list = [];
		await waitFor(
			async () => {
				list = (await this.executions(workflowId)).filter((e) => e.finished || e.stoppedAt);
				return list.length >= count;
			},
			{ timeoutMs, intervalMs: 300, what: `${count} execution(s) of workflow ${workflowId}` },
		);
		return list;
	}

	// ---- process control ---------------------------------------------------------------------

	/**
	 * Stops n8n (stop() options, e.g. { signal: 'SIGKILL' }) and starts it again on the same ports
	 * with the same user folder and key.
	 */
	async restart(stopOptions = {}) {
		await this.stop({ ...stopOptions, keepUserFolder: true });
		return this.respawn();
	}

	/** Starts a stopped (or killed) n8n again on the same ports; main logs in again. */
	async respawn() {
		const started = Date.now();
		await this._spawn();
		if (this.isMain) {
			this.cookie = null;
			await this.login();
		}
		log(
			`n8n ${this.version} ${this.command} ${this.opts.name || ''} (re)started in ${((Date.now() - started) / 1000).toFixed(1)} s`,
		);
		return this;
	}

	_killNow() {
		// Also when the main process already exited: its task runner may still be in the group.
		if (!this.pid) return;
		try {
			process.kill(-this.pid, 'SIGKILL');
		} catch {}
	}

	/**
	 * Stops the whole process group by pid: `signal` (default SIGTERM), then SIGKILL after
	 * `timeoutMs` (default opts.stopTimeoutMs or 15 s). Returns { graceful, ms, exited }.
	 */
	async stop({
		keepUserFolder = false,
		signal = 'SIGTERM',
		timeoutMs = this.opts.stopTimeoutMs || 15000,
	} = {}) {
		const started = Date.now();
		let graceful = true;
		// The task runner lives in the same group: terminateGroup leaves nothing of the group.
		if (this.pid) {
			graceful = await terminateGroup(this.pid, {
				exited: () => Boolean(this.exited),
				signal,
				timeoutMs,
				label: `n8n pid ${this.pid}`,
			});
		}
		unwatchGroup(this);
		if (
			!keepUserFolder &&
			this.ownedUserFolder &&
			!this.opts.keepUserFolder &&
			!process.env.SBL_E2E_KEEP
		) {
			fs.rmSync(this.userFolder, { recursive: true, force: true });
		}
		return { graceful, ms: Date.now() - started, exited: this.exited };
	}
}

async function startN8n(opts) {
	const n = new N8n(opts);
	try {
		await n.start();
	} catch (e) {
		// The error carries the tail of n8n's output; SBL_E2E_KEEP=1 keeps the whole user folder.
		await n.stop().catch(() => {});
		throw e;
	}
	return n;
}

module.exports = { N8n, startN8n, freePort, portFree, watchGroup, unwatchGroup, terminateGroup };
