'use strict';
// Jest glue: one n8n per version per test file, shared by its tests, stopped in afterAll even
// when a test fails; a file's n8n boot side by side when its first tests start. Versions come from SBL_E2E_VERSIONS (default "2,1").
const path = require('node:path');
const { startN8n } = require('./n8n');
const { packPackage } = require('./pkg');
const { request } = require('./http');
const { targetForMajor } = require('./install');

const INSTALL_TIMEOUT_MS = 25 * 60 * 1000;

/**
 * n8n major versions to run: ['2', '1'] unless SBL_E2E_VERSIONS says otherwise. An exact version
 * there (`SBL_E2E_VERSIONS=2.4.8`, the compatibility matrix of scripts/compat/test-compat.js) counts as
 * its major — the scenarios keep comparing `major === '2'` — and install.js's ensureN8n(major)
 * then installs and runs that exact version (one exact version per major per run).
 */
function versions() {
	const out = [];
	for (const v of (process.env.SBL_E2E_VERSIONS || '2,1')
		.split(',')
		.map((x) => x.trim())
		.filter(Boolean)) {
		const major = /^\d+\.\d+\.\d+$/.test(v) ? v.split('.')[0] : v;
		if (!out.includes(major)) out.push(major);
	}
	for (const major of out) targetForMajor(major); // throws on two exact versions of one major
	return out;
}

/**
 * The first of versions() only: for a file that exercises nothing that differs between n8n majors
 * (the answer path, OAuth2 credentials, binary data, Wait/resume and the editor do; the files that
 * cover those run on every major).
 */
function firstVersion() {
	return versions().slice(0, 1);
}

let packed = null;
/** Packs the package once per test file (jest loads modules per file). */
function packOnce() {
	if (!packed) packed = packPackage({ build: 'if-missing' });
	return packed;
}

/** The simulator module (test/simulator), loaded lazily so files that don't need it don't load it. */
function simulatorModule() {
	return require(path.resolve(__dirname, '..', '..', 'simulator'));
}

/**
 * Registers beforeAll/afterAll that start n8n `major` with the packed package installed (and the
 * simulator when `simulator: true`). Returns a context filled in by beforeAll:
 * { n8n, sim, pkg }.
 */
const boots = []; // this file's n8n, one per useN8n call (jest collects every describe first)

function useN8n(major, { simulator = false, simulatorOptions = {}, env } = {}) {
	const ctx = { n8n: null, sim: null, pkg: null };
	const boot = { major, env, started: null };
	boots.push(boot);
	beforeAll(async () => {
		ctx.pkg = packOnce();
		if (simulator) ctx.sim = await simulatorModule().startSimulator(simulatorOptions);
		// Every n8n of the file boots now, side by side: the next major's boot overlaps this one's
		// tests. (One whose describe block jest skips is killed when the process exits.)
		for (const b of boots.filter((x) => !x.started)) {
			b.started = startN8n({ major: b.major, tgz: ctx.pkg.tgz, env: b.env });
			b.started.catch(() => {}); // awaited, and its error thrown, by its own beforeAll
		}
		ctx.n8n = await boot.started;
	}, INSTALL_TIMEOUT_MS);
	afterAll(async () => {
		const errors = [];
		if (ctx.n8n) await ctx.n8n.stop().catch((e) => errors.push(e));
		if (ctx.sim) await ctx.sim.close().catch((e) => errors.push(e));
		if (errors.length) throw errors[0];
	}, 60000);
	return ctx;
}

// ---- simulator control API -----------------------------------------------------------------

async function simRequests(sim, { since = 0, pathPrefix, method } = {}) {
	const q = new URLSearchParams({ since: String(since) });
	if (pathPrefix) q.set('pathPrefix', pathPrefix);
	if (method) q.set('method', method);
	const r = await request('GET', `${sim.url}/__sim/requests?${q}`);
	if (r.status !== 200) throw new Error(`simulator request log → ${r.status} ${r.text}`);
	return r.json.requests;
}

/** The sequence number of the newest logged request (use as `since` to see only later ones). */
async function simMark(sim) {
	const all = await simRequests(sim);
	return all.length ? all[all.length - 1].seq : 0;
}

async function simConfig(sim, config) {
	const r = await request('POST', `${sim.url}/__sim/config`, { json: config });
	if (r.status !== 200) throw new Error(`simulator config → ${r.status} ${r.text}`);
	return r.json.config;
}

async function simFault(sim, fault) {
	const r = await request('POST', `${sim.url}/__sim/faults`, { json: fault });
	if (r.status !== 201) throw new Error(`simulator fault → ${r.status} ${r.text}`);
	return r.json.fault;
}

async function simReset(sim) {
	const r = await request('POST', `${sim.url}/__sim/reset`, { json: {} });
	if (r.status !== 200) throw new Error(`simulator reset → ${r.status} ${r.text}`);
}

/** Sends a signed webhook from the simulator: POST /__sim/fire { url, event, …options }. */
async function simFire(sim, body) {
	const r = await request('POST', `${sim.url}/__sim/fire`, { json: body });
	if (r.status !== 200) throw new Error(`simulator fire → ${r.status} ${r.text}`);
	return r.json;
}

/** Sends a recorded delivery again, byte for byte: POST /__sim/redeliver { deliveryId }. */
async function simRedeliver(sim, deliveryId) {
	const r = await request('POST', `${sim.url}/__sim/redeliver`, { json: { deliveryId } });
	if (r.status !== 200) throw new Error(`simulator redeliver → ${r.status} ${r.text}`);
	return r.json;
}

module.exports = {
	INSTALL_TIMEOUT_MS,
	versions,
	firstVersion,
	packOnce,
	useN8n,
	simRequests,
	simMark,
	simConfig,
	simFault,
	simReset,
	simFire,
	simRedeliver,
};
