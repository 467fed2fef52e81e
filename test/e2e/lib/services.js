'use strict';
// PostgreSQL and Redis for queue-mode n8n (queue.js), as child processes of the test process:
// Debian's packages (installed with apt-get when missing), a data folder of their own under the
// temp folder, a free loopback port, no system service. Each runs detached in its own process
// group, is watched like n8n (exit hook + reaper, see n8n.js) and stopped by pid.
// Data folders are named sbl-e2e-svc-<pid>-…: a later run removes those of dead processes
// (pidTempFolder).
const { execFile, spawn, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');
const { cacheDir, cleanEnv, log, pidAlive, run, withLock } = require('./install');
const { freePort, watchGroup, unwatchGroup, terminateGroup } = require('./n8n');
const { waitFor } = require('./http');

const SVC_PREFIX = 'sbl-e2e-svc-';

/** The bin folder of the newest PostgreSQL under /usr/lib/postgresql, or null. */
function pgBinDir() {
	const root = '/usr/lib/postgresql';
	if (!fs.existsSync(root)) return null;
	const versions = fs
		.readdirSync(root)
		.filter((v) => fs.existsSync(path.join(root, v, 'bin', 'initdb')))
		.sort((a, b) => Number(b) - Number(a));
	return versions.length ? path.join(root, versions[0], 'bin') : null;
}

function redisServerBin() {
	const r = spawnSync('bash', ['-c', 'command -v redis-server'], { encoding: 'utf8' });
	return r.status === 0 ? r.stdout.trim() : null;
}

/**
 * `apt-get install -y <pkg>` unless `present()` already holds (serialised with withLock('apt');
 * one `apt-get update` and a second try if the first install fails). Output: <cache>/apt.log.
 */
async function aptInstall(pkg, present) {
	if (present()) return;
	await withLock('apt', async () => {
		if (present()) return;
		const started = Date.now();
		const logFile = path.join(cacheDir(), 'apt.log');
		const env = cleanEnv({ DEBIAN_FRONTEND: 'noninteractive' });
		const install = () =>
			run('apt-get', ['install', '-y', '--no-install-recommends', pkg], {
				cwd: os.tmpdir(),
				env,
				logFile,
			});
		log(`apt-get install ${pkg} (log ${logFile})`);
		try {
			await install();
		} catch (e) {
			log(`apt-get install ${pkg} failed (${e.message.split('\n')[0]}): apt-get update and again`);
			await run('apt-get', ['update'], { cwd: os.tmpdir(), env, logFile });
			await install();
		}
		if (!present())
			throw new Error(
				`apt-get install ${pkg} succeeded but the program is still missing (log ${logFile})`,
			);
		log(`${pkg} installed in ${((Date.now() - started) / 1000).toFixed(1)} s`);
	});
}

/** Installs Debian's postgresql when no initdb is there; returns the bin folder. */
async function ensurePostgres() {
	await aptInstall('postgresql', () => Boolean(pgBinDir()));
	return pgBinDir();
}

/** Installs Debian's redis-server when missing; returns the redis-server path. */
async function ensureRedis() {
	await aptInstall('redis-server', () => Boolean(redisServerBin()));
	return redisServerBin();
}

/**
 * A new folder <tmp>/<prefix><pid>-<name>-XXXXXX. First removes the folders with that prefix of
 * processes that are gone (a run killed before its stop(): the reaper kills the processes only).
 */
function pidTempFolder(prefix, name) {
	for (const d of fs.readdirSync(os.tmpdir())) {
		const m = d.startsWith(prefix) && /^(\d+)-/.exec(d.slice(prefix.length));
		if (m && Number(m[1]) !== process.pid && !pidAlive(Number(m[1]))) {
			fs.rmSync(path.join(os.tmpdir(), d), { recursive: true, force: true });
		}
	}
	return fs.mkdtempSync(path.join(os.tmpdir(), `${prefix}${process.pid}-${name}-`));
}

function serviceFolder(name, dir) {
	if (!dir) return pidTempFolder(SVC_PREFIX, name);
	fs.mkdirSync(dir, { recursive: true });
	return dir;
}

function postgresIds() {
	const id = (flag) =>
		Number(spawnSync('id', [flag, 'postgres'], { encoding: 'utf8' }).stdout.trim());
	const uid = id('-u');
	const gid = id('-g');
	if (!uid) throw new Error('no user postgres (installed with the postgresql package)');
	return { uid, gid };
}

/**
 * Spawns a service detached (own process group) with output to `<folder>/<name>.log`, watched by
 * the exit hook and the reaper. Returns a handle { name, pid, port, folder, logFile, exited, stop(),
 * logs() } whose stop() signals the leader (`stopSignal`), SIGKILLs the group after
 * `stopTimeoutMs` and removes the folder (kept with SBL_E2E_KEEP=1).
 */
function spawnService({
	name,
	cmd,
	args,
	folder,
	port,
	spawnOptions = {},
	stopSignal = 'SIGTERM',
	stopTimeoutMs = 10000,
}) {
	const logFile = path.join(folder, `${name}.log`);
	const out = fs.openSync(logFile, 'a');
	const child = spawn(cmd, args, {
		cwd: folder,
		env: cleanEnv(),
		detached: true,
		stdio: ['ignore', out, out],
		...spawnOptions,
	});
	fs.closeSync(out);
	const svc = {
		name,
		pid: child.pid,
		port,
		folder,
		logFile,
		exited: null,
		logs: () => (fs.existsSync(logFile) ? fs.readFileSync(logFile, 'utf8') : ''),
		_killNow() {
			try {
				process.kill(-svc.pid, 'SIGKILL');
			} catch {}
		},
		async stop() {
			const started = Date.now();
			if (svc.pid) {
				await terminateGroup(svc.pid, {
					exited: () => Boolean(svc.exited),
					signal: stopSignal,
					group: false,
					timeoutMs: stopTimeoutMs,
					label: `${name} pid ${svc.pid}`,
				});
			}
			unwatchGroup(svc);
			if (!process.env.SBL_E2E_KEEP) fs.rmSync(folder, { recursive: true, force: true });
			return { ms: Date.now() - started, exited: svc.exited };
		},
	};
	child.on('error', (e) => {
		svc.exited = svc.exited || { error: e.message };
	});
	child.on('exit', (code, signal) => {
		svc.exited = { code, signal };
	});
	watchGroup(svc, svc.pid);
	return svc;
}

/** Waits for `ready()`, failing at once (with the log's tail) when the service exits. */
async function waitService(svc, ready, what, timeoutMs = 60000) {
	try {
		await waitFor(
			async () => {
				if (svc.exited)
					throw Object.assign(new Error(`${svc.name} exited (${JSON.stringify(svc.exited)})`), {
						fatal: true,
					});
				return ready();
			},
			{ timeoutMs, intervalMs: 100, what },
		);
	} catch (e) {
		const tail = svc.logs().split('\n').slice(-30).join('\n');
		await svc.stop().catch(() => {});
		throw new Error(`${e.message}\n--- ${svc.name} log (tail) ---\n${tail}`);
	}
}

// ---- PostgreSQL ----------------------------------------------------------------------------------

const PSQL_NULL = '\\N';

/** Splits psql --csv output into rows of fields; the field PSQL_NULL (unquoted) is null. */
function parseCsv(text) {
	const rows = [];
	let row = [];
	let i = 0;
	const n = text.length;
	while (i < n) {
		let value;
		if (text[i] === '"') {
			let j = i + 1;
			value = '';
			for (;;) {
				const q = text.indexOf('"', j);
				if (q < 0) throw new Error('psql csv: unterminated quote');
				value += text.slice(j, q);
				if (text[q + 1] === '"') {
					value += '"';
					j = q + 2;
				} else {
					i = q + 1;
					break;
				}
			}
		} else {
			let j = i;
			while (j < n && text[j] !== ',' && text[j] !== '\n') j++;
			value = text.slice(i, j);
			if (value === PSQL_NULL) value = null;
			i = j;
		}
		row.push(value);
		if (text[i] === ',') {
			i++;
			if (i === n || text[i] === '\n') row.push('');
		}
		if (i >= n || text[i] === '\n') {
			rows.push(row);
			row = [];
			i++;
		}
	}
	return rows;
}

/**
 * Runs SQL with the psql binary against `pg` ({ port, database?, bin? }) and returns the rows of
 * the last statement as objects keyed by column name (values are strings; NULL is null, so is
 * the text '\N').
 */
function psql(pg, sql, { database = pg.database || 'postgres', timeoutMs = 60000 } = {}) {
	const bin = path.join(pg.bin || pgBinDir() || '/usr/bin', 'psql');
	const args = [
		'-h',
		'127.0.0.1',
		'-p',
		String(pg.port),
		'-U',
		'postgres',
		'-d',
		database,
		'-X',
		'-q',
		'--csv',
		'-P',
		`null=${PSQL_NULL}`,
		'-v',
		'ON_ERROR_STOP=1',
		'-c',
		sql,
	];
	return new Promise((resolve, reject) => {
		execFile(
			bin,
			args,
			{
				env: cleanEnv({ PGCONNECT_TIMEOUT: '5' }),
				timeout: timeoutMs,
				maxBuffer: 256 * 1024 * 1024,
			},
			(err, stdout, stderr) => {
				if (err)
					return reject(
						new Error(
							`psql ${sql.slice(0, 200)} → ${err.code ?? err.signal}: ${stderr || err.message}`,
						),
					);
				const [header, ...rows] = parseCsv(stdout);
				if (!header) return resolve([]);
				resolve(
					rows.map((r) =>
						Object.fromEntries(header.map((h, k) => [h, r[k] === undefined ? null : r[k]])),
					),
				);
			},
		);
	});
}

/**
 * initdb (as user postgres, trust auth) into a new folder and `postgres` on a free port of
 * 127.0.0.1 (socket in the folder), then CREATE DATABASE `database`.
 * opts: dir (data parent folder, default a new temp folder), port, database ('n8n'),
 * settings ({ name: value } → `-c name=value`, e.g. { fsync: 'off' }).
 * Returns { name, pid, port, database, bin, folder, logs(), stop() }.
 */
async function startPostgres({ dir, port, database = 'n8n', settings = {} } = {}) {
	const started = Date.now();
	const bin = await ensurePostgres();
	const { uid, gid } = postgresIds();
	const folder = serviceFolder('pg', dir);
	fs.chownSync(folder, uid, gid);
	const data = path.join(folder, 'data');
	const asPostgres = {
		uid,
		gid,
		env: cleanEnv({ HOME: folder, LC_ALL: 'C.UTF-8', LANG: 'C.UTF-8' }),
	};
	await new Promise((resolve, reject) => {
		execFile(
			path.join(bin, 'initdb'),
			['-A', 'trust', '-U', 'postgres', '-E', 'UTF8', '--locale=C.UTF-8', '--no-sync', '-D', data],
			{ ...asPostgres, cwd: folder },
			(err, stdout, stderr) =>
				err ? reject(new Error(`initdb failed: ${stderr || err.message}`)) : resolve(),
		);
	});
	port = port || (await freePort());
	const args = ['-D', data, '-k', folder, '-p', String(port), '-c', 'listen_addresses=127.0.0.1'];
	for (const [k, v] of Object.entries(settings)) args.push('-c', `${k}=${v}`);
	// SIGINT = "fast shutdown" (SIGTERM would wait for every client to disconnect).
	const svc = spawnService({
		name: 'postgres',
		cmd: path.join(bin, 'postgres'),
		args,
		folder,
		port,
		spawnOptions: asPostgres,
		stopSignal: 'SIGINT',
	});
	Object.assign(svc, { bin, database });
	await waitService(
		svc,
		() =>
			psql(svc, 'select 1 as ok', { database: 'postgres', timeoutMs: 5000 }).then(
				(r) => r[0].ok === '1',
			),
		`postgres on port ${port}`,
	);
	await psql(svc, `create database "${database}"`, { database: 'postgres' });
	log(
		`postgres (${bin}) on 127.0.0.1:${port}, pid ${svc.pid}, database ${database}, ready in ${((Date.now() - started) / 1000).toFixed(1)} s`,
	);
	return svc;
}

// ---- Redis ---------------------------------------------------------------------------------------

/** Sends `PING` over a raw socket; true on `+PONG`. */
function redisPing(port) {
	return new Promise((resolve) => {
		const sock = net.connect(port, '127.0.0.1');
		let buf = '';
		const done = (v) => {
			sock.destroy();
			resolve(v);
		};
		sock.setTimeout(2000, () => done(false));
		sock.on('error', () => done(false));
		sock.on('connect', () => sock.write('PING\r\n'));
		sock.on('data', (d) => {
			buf += d;
			if (buf.includes('\r\n')) done(buf.startsWith('+PONG'));
		});
	});
}

/**
 * redis-server on a free port of 127.0.0.1, in the foreground (not daemonized), no persistence.
 * Returns { name, pid, port, folder, logs(), stop() }.
 */
async function startRedis({ dir, port } = {}) {
	const started = Date.now();
	const bin = await ensureRedis();
	const folder = serviceFolder('redis', dir);
	port = port || (await freePort());
	const args = [
		'--port',
		String(port),
		'--bind',
		'127.0.0.1',
		'--save',
		'',
		'--appendonly',
		'no',
		'--daemonize',
		'no',
		'--dir',
		folder,
	];
	const svc = spawnService({ name: 'redis', cmd: bin, args, folder, port });
	await waitService(svc, () => redisPing(port), `redis on port ${port}`);
	log(
		`redis on 127.0.0.1:${port}, pid ${svc.pid}, ready in ${((Date.now() - started) / 1000).toFixed(1)} s`,
	);
	return svc;
}

module.exports = {
	aptInstall,
	pidTempFolder,
	ensurePostgres,
	ensureRedis,
	startPostgres,
	startRedis,
	psql,
	parseCsv,
	redisPing,
	pgBinDir,
};
