'use strict';
// n8n in queue mode, the way it is scaled in production: PostgreSQL + Redis (services.js), one
// main (`n8n start`: editor, REST, public API, activation; production webhooks off), n `n8n webhook`
// processes that take production webhooks and enqueue them, m `n8n worker` processes that run the
// executions. Every process shares the encryption key and the user folder (the packed package is
// installed there once, like a community package) and has its own ports on 127.0.0.1 (HTTP /
// worker health check, task-runner broker). Logs: <userFolder>/n8n-<name>.log (+ .stdout.log).
// Every process is stopped by pid (see N8n in n8n.js and services.js).
const crypto = require('node:crypto');
const fs = require('node:fs');
const { ensureN8n, log } = require('./install');
const { N8n, freePort } = require('./n8n');
const { installIntoUserFolder } = require('./pkg');
const { pidTempFolder, startPostgres, startRedis, psql } = require('./services');
const { request, waitFor } = require('./http');

const secs = (since) => `${((Date.now() - since) / 1000).toFixed(1)} s`;

/** Awaits all promises; throws the first rejection only after every one has settled. */
async function settleAll(promises) {
	const results = await Promise.allSettled(promises);
	const failed = results.find((r) => r.status === 'rejected');
	if (failed) throw failed.reason;
	return results.map((r) => r.value);
}

class QueueTopology {
	/**
	 * opts (also accepted by start()): major ('2'), webhooks (1), workers (2), workerConcurrency (10),
	 * tgz (package tarball, installed once into the shared user folder), env (extra env for every n8n
	 * process), processEnv ({ main, webhook, worker }: extra env per kind), logLevel (N8N_LOG_LEVEL,
	 * default $SBL_E2E_QUEUE_LOG_LEVEL or 'warn'), postgresSettings ({ fsync: 'off', … }),
	 * stopTimeoutMs (SIGKILL after it when stopping an n8n process, default 40000: n8n's graceful
	 * shutdown may take up to N8N_GRACEFUL_SHUTDOWN_TIMEOUT = 30 s), userFolder, keepUserFolder,
	 * mainPort (the editor's port; default a free one).
	 */
	constructor(opts = {}) {
		this.opts = opts;
		this.pg = null;
		this.redis = null;
		this.main = null;
		this.webhooks = [];
		this.workers = [];
		this.timings = {};
		this.usedPorts = [];
	}

	/** Base URLs (http://127.0.0.1:<port>) of the `n8n webhook` processes. */
	get webhookUrls() {
		return this.webhooks.map((w) => w.url);
	}

	/** Every n8n process: main, webhook processes, workers. */
	get processes() {
		return [this.main, ...this.webhooks, ...this.workers].filter(Boolean);
	}

	async _port() {
		const p = await freePort(this.usedPorts);
		this.usedPorts.push(p);
		return p;
	}

	/** Env every n8n process of the topology gets. */
	queueEnv() {
		return {
			EXECUTIONS_MODE: 'queue',
			DB_TYPE: 'postgresdb',
			DB_POSTGRESDB_HOST: '127.0.0.1',
			DB_POSTGRESDB_PORT: String(this.pg.port),
			DB_POSTGRESDB_DATABASE: this.pg.database,
			DB_POSTGRESDB_USER: 'postgres',
			DB_POSTGRESDB_PASSWORD: '',
			QUEUE_BULL_REDIS_HOST: '127.0.0.1',
			QUEUE_BULL_REDIS_PORT: String(this.redis.port),
			...(this.o.env || {}),
		};
	}

	/** A new (not started) N8n of the topology: kind 'main' | 'webhook' | 'worker'. */
	async _process(kind, index) {
		const o = this.o;
		const command = { main: 'start', webhook: 'webhook', worker: 'worker' }[kind];
		const kindEnv = (o.processEnv && o.processEnv[kind]) || {};
		const env = { ...this.queueEnv(), ...kindEnv };
		if (kind === 'main') env.N8N_DISABLE_PRODUCTION_MAIN_PROCESS = 'true';
		// The public address of webhooks, as an operations team sets it on every process: the editor
		// shows production URLs of the first webhook process, and a worker computes resume URLs
		// ($execution.resumeUrl, Create and Wait for Outcome) from it.
		if (this.webhookPorts.length) env.WEBHOOK_URL = `http://127.0.0.1:${this.webhookPorts[0]}/`;
		return new N8n({
			major: o.major,
			command,
			name: kind === 'main' ? 'main' : `${kind}-${index}`,
			args: kind === 'worker' ? [`--concurrency=${o.workerConcurrency}`] : [],
			userFolder: this.userFolder,
			encryptionKey: this.encryptionKey,
			ownerEmail: this.ownerEmail,
			ownerPassword: this.ownerPassword,
			port:
				kind === 'webhook' && this.webhookPorts[index]
					? this.webhookPorts[index]
					: kind === 'main' && o.mainPort
						? o.mainPort
						: await this._port(),
			brokerPort: await this._port(),
			logLevel: o.logLevel,
			stopTimeoutMs: o.stopTimeoutMs,
			env,
		});
	}

	/**
	 * Starts Postgres + Redis, main, and — as soon as main's database is migrated — the webhook
	 * processes and workers in parallel; resolves when every process answers its readiness endpoint
	 * and main has logged in and made an API key. On failure stops what was started.
	 * timings (ms): services, mainMigrated, main, webhooksAndWorkers, total.
	 */
	async start(opts = {}) {
		this.o = {
			major: '2',
			webhooks: 1,
			workers: 2,
			workerConcurrency: 10,
			logLevel: process.env.SBL_E2E_QUEUE_LOG_LEVEL || 'warn',
			stopTimeoutMs: 40000,
			...this.opts,
			...opts,
		};
		const o = this.o;
		const started = Date.now();
		try {
			this.userFolder = o.userFolder || pidTempFolder('sbl-e2e-queue-', `n8n${o.major}`);
			this.encryptionKey = o.encryptionKey || crypto.randomBytes(24).toString('hex');
			this.ownerEmail = o.ownerEmail || 'owner@sbl-e2e.test';
			this.ownerPassword =
				o.ownerPassword || `E2e-${crypto.randomBytes(9).toString('base64url')}9Z`;
			const install = await ensureN8n(o.major);
			const services = Promise.allSettled([
				startPostgres({ settings: o.postgresSettings }),
				startRedis(),
			]);
			// While postgres and redis boot (child processes): the package into the shared folder.
			if (o.tgz)
				this.packageDir = installIntoUserFolder(this.userFolder, o.tgz, {
					nodeBin: install.nodeBin,
				});
			const [pg, redis] = await services;
			this.pg = pg.status === 'fulfilled' ? pg.value : null;
			this.redis = redis.status === 'fulfilled' ? redis.value : null;
			for (const r of [pg, redis]) if (r.status === 'rejected') throw r.reason;
			this.usedPorts.push(this.pg.port, this.redis.port);
			this.timings.services = Date.now() - started;

			this.webhookPorts = [];
			for (let i = 0; i < o.webhooks; i++) this.webhookPorts.push(await this._port());
			const mainStarted = Date.now();
			this.main = await this._process('main');
			this.main.packageDir = this.packageDir;
			this.main.webhookBases = () => this.webhookUrls;
			const mainReady = this.main.start().then(() => {
				this.timings.main = Date.now() - mainStarted;
			});
			// The other processes need the database migrated: main answers readiness from then on,
			// before its own start-up (owner, login, API key) is over.
			let mainFailed = null;
			mainReady.catch((e) => {
				mainFailed = e;
			});
			await waitFor(
				async () => {
					if (mainFailed) throw Object.assign(mainFailed, { fatal: true });
					const r = await request(
						'GET',
						`http://127.0.0.1:${this.main.opts.port}/healthz/readiness`,
						{ timeoutMs: 3000 },
					);
					return r.status === 200;
				},
				{
					timeoutMs: 180000,
					intervalMs: 200,
					what: `main readiness on port ${this.main.opts.port}`,
				},
			);
			this.timings.mainMigrated = Date.now() - mainStarted;
			const restStarted = Date.now();
			for (let i = 0; i < o.webhooks; i++) this.webhooks.push(await this._process('webhook', i));
			for (let i = 0; i < o.workers; i++) this.workers.push(await this._process('worker', i));
			await settleAll([mainReady, ...[...this.webhooks, ...this.workers].map((n) => n.start())]);
			this.timings.webhooksAndWorkers = Date.now() - restStarted;
		} catch (e) {
			await this.stop().catch(() => {});
			throw e;
		}
		this.timings.total = Date.now() - started;
		this.version = this.main.version;
		log(
			`queue topology n8n ${this.version}: main ${this.main.url}, webhooks ${this.webhookUrls.join(' ')}, ` +
				`${this.workers.length} worker(s) ×${o.workerConcurrency}, postgres :${this.pg.port}, redis :${this.redis.port}; ` +
				`ready in ${secs(started)} (services ${(this.timings.services / 1000).toFixed(1)} s, main migrated ${(this.timings.mainMigrated / 1000).toFixed(1)} s / ready ${(this.timings.main / 1000).toFixed(1)} s, ` +
				`webhooks + workers started after the migration ${(this.timings.webhooksAndWorkers / 1000).toFixed(1)} s)`,
		);
		return this;
	}

	/**
	 * Stops webhook process i (default SIGTERM, SIGKILL after stopTimeoutMs), waits for its exit
	 * and starts it again on the same port. Returns { stop: { graceful, ms, exited }, ms }.
	 */
	async restartWebhook(i, { signal = 'SIGTERM', timeoutMs } = {}) {
		const started = Date.now();
		const w = this.webhooks[i];
		if (!w) throw new Error(`no webhook process ${i}`);
		const stop = await w.stop({ signal, timeoutMs, keepUserFolder: true });
		await w.respawn();
		return { stop, ms: Date.now() - started };
	}

	/** SIGKILL to worker i's process group (worker + its task runner); resolves once it exited. */
	async killWorker(i) {
		const w = this.workers[i];
		if (!w) throw new Error(`no worker ${i}`);
		return w.stop({ signal: 'SIGKILL', timeoutMs: 10000, keepUserFolder: true });
	}

	/** Starts worker i again (same ports), or a new worker when there is none at i. */
	async startWorker(i) {
		if (this.workers[i]) {
			if (this.workers[i].exited === null && this.workers[i].pid)
				throw new Error(`worker ${i} is running (pid ${this.workers[i].pid})`);
			return this.workers[i].respawn();
		}
		const w = await this._process('worker', i);
		this.workers[i] = w;
		return w.start();
	}

	/** Stops every n8n process (workers, webhooks, main) and starts them again; Postgres and Redis stay. */
	async restartAll({ signal = 'SIGTERM' } = {}) {
		const started = Date.now();
		await settleAll(
			[...this.workers, ...this.webhooks].map((n) => n.stop({ signal, keepUserFolder: true })),
		);
		await this.main.stop({ signal, keepUserFolder: true });
		await this.main.respawn();
		await settleAll([...this.webhooks, ...this.workers].map((n) => n.respawn()));
		log(`queue topology restarted in ${secs(started)}`);
		return { ms: Date.now() - started };
	}

	/** Rows of a SQL statement on n8n's database (see services.psql). */
	pgQuery(sql) {
		return psql(this.pg, sql);
	}

	/** { status: count } of a workflow's executions, read from Postgres. */
	async executionStatusCounts(workflowId) {
		const rows = await this.pgQuery(
			`select status, count(*) as n from execution_entity where "workflowId" = '${String(workflowId).replace(/'/g, "''")}' group by status`,
		);
		return Object.fromEntries(rows.map((r) => [r.status, Number(r.n)]));
	}

	/**
	 * Waits until a workflow has `count` executions that are no longer new/running/waiting;
	 * returns executionStatusCounts().
	 */
	async waitForExecutions(workflowId, { count, timeoutMs = 120000 } = {}) {
		let counts = {};
		const open = ['new', 'running', 'waiting'];
		await waitFor(
			async () => {
				counts = await this.executionStatusCounts(workflowId);
				const done = Object.entries(counts).reduce(
					(s, [st, n]) => s + (open.includes(st) ? 0 : n),
					0,
				);
				return done >= count;
			},
			{
				timeoutMs,
				intervalMs: 250,
				what: `${count} finished executions of workflow ${workflowId}`,
			},
		).catch((e) => {
			throw new Error(`${e.message}; counts ${JSON.stringify(counts)}`);
		});
		return counts;
	}

	/** Everything logged so far by every process (n8n processes, postgres, redis), with headers. */
	logs() {
		const parts = this.processes.map((n) => `===== n8n ${n.opts.name} =====\n${n.logs()}`);
		for (const s of [this.pg, this.redis]) if (s) parts.push(`===== ${s.name} =====\n${s.logs()}`);
		return parts.join('\n');
	}

	/** Stops everything by pid in reverse order: workers + webhook processes, main, redis, postgres. */
	async stop() {
		const errors = [];
		const collect = (p) => p.catch((e) => errors.push(e));
		await Promise.all(
			[...this.workers, ...this.webhooks].map((n) => collect(n.stop({ keepUserFolder: true }))),
		);
		if (this.main) await collect(this.main.stop({ keepUserFolder: true }));
		await Promise.all([this.redis, this.pg].filter(Boolean).map((s) => collect(s.stop())));
		const o = this.o || this.opts;
		if (this.userFolder && !o.userFolder && !o.keepUserFolder && !process.env.SBL_E2E_KEEP) {
			fs.rmSync(this.userFolder, { recursive: true, force: true });
		}
		if (errors.length) throw errors[0];
	}
}

/** Starts a QueueTopology (see its constructor for the options). */
async function startQueueTopology(opts) {
	return new QueueTopology(opts).start();
}

/**
 * Jest glue like useN8n: beforeAll packs the package and starts the topology, afterAll stops it.
 * Returns { topology, pkg } filled in by beforeAll.
 */
function useQueueTopology(opts = {}, { timeoutMs = 25 * 60 * 1000 } = {}) {
	const { packOnce } = require('./suite');
	const ctx = { topology: null, pkg: null };
	beforeAll(async () => {
		ctx.pkg = packOnce();
		ctx.topology = await startQueueTopology({ tgz: ctx.pkg.tgz, ...opts });
	}, timeoutMs);
	afterAll(async () => {
		if (ctx.topology) await ctx.topology.stop();
	}, 120000);
	return ctx;
}

module.exports = { QueueTopology, startQueueTopology, useQueueTopology };
