'use strict';
// Packs the built package (`npm pack`) and installs the tarball into an n8n user folder exactly
// the way n8n's Community Nodes screen does: an npm install into <userFolder>/.n8n/nodes with
// --legacy-peer-deps (no peer deps) and --ignore-scripts. Node types are then `n8n-nodes-sbl.<name>`.
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { cacheDir, cleanEnv, log } = require('./install');

const ROOT = path.resolve(__dirname, '..', '..', '..');
const PKG = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));

function sh(cmd, args, opts) {
	const r = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, ...opts });
	if (r.status !== 0) {
		throw new Error(
			`${cmd} ${args.join(' ')} failed (${r.status ?? r.signal}) in ${opts.cwd}:\n${r.stdout}\n${r.stderr}`,
		);
	}
	return r.stdout;
}

/** Files listed in the package's `n8n` section that must exist in dist before packing. */
function declaredFiles() {
	return [...(PKG.n8n.credentials || []), ...(PKG.n8n.nodes || [])];
}

/** Runs `npm run build` when dist lacks a file the package declares (npm test builds before e2e). */
function ensureBuilt({ force = false } = {}) {
	const missing = declaredFiles().filter((f) => !fs.existsSync(path.join(ROOT, f)));
	if (!force && missing.length === 0) return;
	log(force ? 'npm run build' : `dist lacks ${missing.join(', ')}: npm run build`);
	const started = Date.now();
	sh('npm', ['run', 'build', '--silent'], { cwd: ROOT, env: cleanEnv() });
	log(`build done in ${((Date.now() - started) / 1000).toFixed(1)} s`);
	const still = declaredFiles().filter((f) => !fs.existsSync(path.join(ROOT, f)));
	if (still.length) throw new Error(`after the build dist still lacks: ${still.join(', ')}`);
}

/** `npm pack` of the repository into <cache>/pack; returns the tarball path. */
function packPackage({ build = 'if-missing' } = {}) {
	if (build) ensureBuilt({ force: build === 'always' });
	const packRoot = path.join(cacheDir(), 'pack');
	// Tarballs of earlier processes that are gone.
	for (const d of fs.existsSync(packRoot) ? fs.readdirSync(packRoot) : []) {
		const pid = Number(d);
		if (!pid || pid === process.pid) continue;
		let alive = true;
		try {
			process.kill(pid, 0);
		} catch (e) {
			alive = e.code === 'EPERM';
		}
		if (!alive) fs.rmSync(path.join(packRoot, d), { recursive: true, force: true });
	}
	const dest = path.join(packRoot, String(process.pid));
	// The test files of one jest process (-i) share its tarball while nothing packed has changed.
	const packedFile = path.join(dest, 'packed.json');
	const stamp = packStamp();
	try {
		const earlier = JSON.parse(fs.readFileSync(packedFile, 'utf8'));
		if (earlier.stamp === stamp && fs.existsSync(earlier.result.tgz)) return earlier.result;
	} catch {}
	fs.rmSync(dest, { recursive: true, force: true });
	fs.mkdirSync(dest, { recursive: true });
	const out = sh('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', dest], {
		cwd: ROOT,
		env: cleanEnv(),
	});
	const info = JSON.parse(out)[0];
	const tgz = path.join(dest, info.filename);
	if (!fs.existsSync(tgz)) throw new Error(`npm pack did not write ${tgz}`);
	const result = {
		tgz,
		files: info.files.map((f) => f.path),
		name: info.name,
		version: info.version,
	};
	fs.writeFileSync(packedFile, JSON.stringify({ stamp, result }));
	return result;
}

/** Path, size and mtime of every file npm pack takes from dist and the package's top level. */
function packStamp() {
	const files = [];
	const walk = (dir, deep) => {
		for (const e of fs.existsSync(dir) ? fs.readdirSync(dir, { withFileTypes: true }) : []) {
			if (e.isFile()) files.push(path.join(dir, e.name));
			else if (deep && e.isDirectory()) walk(path.join(dir, e.name), deep);
		}
	};
	walk(path.join(ROOT, 'dist'), true);
	walk(ROOT, false);
	return files
		.map((f) => `${path.relative(ROOT, f)}:${fs.statSync(f).size}:${fs.statSync(f).mtimeMs}`)
		.sort()
		.join('\n');
}

/**
 * Installs the tarball into <userFolder>/.n8n/nodes like n8n's Community Nodes screen.
 * `nodeBin` puts the Node that runs n8n first on PATH (npm itself is the system npm).
 * Returns the installed package folder.
 */
function installIntoUserFolder(userFolder, tgz, { nodeBin } = {}) {
	const nodesDir = path.join(userFolder, '.n8n', 'nodes');
	fs.mkdirSync(nodesDir, { recursive: true });
	const pj = path.join(nodesDir, 'package.json');
	if (!fs.existsSync(pj)) {
		fs.writeFileSync(
			pj,
			JSON.stringify({ name: 'installed-nodes', private: true, dependencies: {} }, null, 2),
		);
	}
	const env = cleanEnv(nodeBin ? { PATH: `${nodeBin}${path.delimiter}${process.env.PATH}` } : {});
	sh(
		'npm',
		[
			'install',
			'--legacy-peer-deps',
			'--ignore-scripts',
			'--install-links',
			'--no-audit',
			'--no-fund',
			'--no-package-lock',
			tgz,
		],
		{ cwd: nodesDir, env },
	);
	const dir = path.join(nodesDir, 'node_modules', PKG.name);
	if (!fs.existsSync(path.join(dir, 'package.json')))
		throw new Error(`package not installed at ${dir}`);
	return dir;
}

/**
 * The types the package declares, read from the built files of the repository:
 * { nodes: ['n8n-nodes-sbl.consentFlow', …], tools: [… '<name>Tool' for usableAsTool nodes],
 *   files: { 'dist/nodes/X/X.node.js': type }, credentials: ['consentFlowOAuth2Api', …] }.
 */
function declaredTypes() {
	const nodes = [];
	const tools = [];
	const files = {};
	const credentials = [];
	for (const rel of PKG.n8n.nodes || []) {
		const file = path.join(ROOT, rel);
		if (!fs.existsSync(file)) continue;
		const mod = require(file);
		for (const Cls of Object.values(mod)) {
			if (typeof Cls !== 'function') continue;
			try {
				const inst = new Cls();
				const desc =
					inst.description ||
					(inst.nodeVersions && Object.values(inst.nodeVersions)[0].description);
				if (desc && desc.name) {
					nodes.push(`${PKG.name}.${desc.name}`);
					files[rel] = `${PKG.name}.${desc.name}`;
					// n8n adds an AI-tool variant `<name>Tool` of every node with usableAsTool.
					if (desc.usableAsTool) tools.push(`${PKG.name}.${desc.name}Tool`);
				}
			} catch {}
		}
	}
	for (const rel of PKG.n8n.credentials || []) {
		const file = path.join(ROOT, rel);
		if (!fs.existsSync(file)) continue;
		const mod = require(file);
		for (const Cls of Object.values(mod)) {
			if (typeof Cls !== 'function') continue;
			try {
				const inst = new Cls();
				if (inst.name) credentials.push(inst.name);
			} catch {}
		}
	}
	return { nodes, tools, files, credentials };
}

module.exports = {
	ROOT,
	PKG,
	ensureBuilt,
	packPackage,
	installIntoUserFolder,
	declaredFiles,
	declaredTypes,
};
