#!/usr/bin/env node
// `npm run test:compat`: the compatibility matrix (issue 24). For each n8n version of MATRIX
// (or of --versions): install it into the e2e cache (test/e2e/lib/install.js; cached after the
// first time), run a compatibility subset of the real-n8n suite against it
// (SBL_E2E_VERSIONS=<exact version>), and on the versions marked `queue` the queue-mode
// webhook-process restarts of test/e2e/queue/production.test.js. Results per version × feature go
// to docs/compatibility.json (merged with the versions not run this time) and are rendered into
// docs/compatibility.md, whose hand-written "What degrades, and why" is kept.
//
//   npm run test:compat                                   # the whole matrix
//   npm run test:compat -- --versions 2.20.12,2.41.1      # some versions (others kept from the JSON)
//   npm run test:compat -- --no-queue                     # without the queue-mode part
//   npm run test:compat -- --render                       # only re-render the Markdown
//
// Exit code 0 when every selected test passed on every version run.
'use strict';
const { spawn, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { parseArgs } = require('node:util');

const {
	MATRIX,
	MARKS,
	FILES,
	QUEUE_FILE,
	QUEUE_TESTS,
	FEATURES,
	columnLabel,
	compareVersions,
	probeHooks,
} = require('./matrix');
const {
	MD_FILE,
	featureCell,
	featureTable,
	tableIntro,
	fmtSecs,
	render,
	renderReadme,
} = require('./render');

const { cleanEnv, ensureN8n } = require('../../test/e2e/lib/install');
const { terminateGroup } = require('../../test/e2e/lib/n8n');

const root = path.resolve(__dirname, '../..');
const JSON_FILE = path.join(root, 'docs', 'compatibility.json');

const RUN_TIMEOUT_MS = 40 * 60 * 1000;

function options() {
	const spec = { versions: { type: 'string' }, 'no-queue': { type: 'boolean' } };
	const { values } = parseArgs({ options: { ...spec, render: { type: 'boolean' } } });
	const versions = values.versions
		?.split(',')
		.map((v) => v.trim())
		.filter(Boolean);
	return { versions, queue: !values['no-queue'], render: Boolean(values.render) };
}

const t0 = Date.now();
function say(msg) {
	console.log(`[compat ${((Date.now() - t0) / 1000).toFixed(0).padStart(5)}s] ${msg}`);
}

function loadResults() {
	try {
		return JSON.parse(fs.readFileSync(JSON_FILE, 'utf8'));
	} catch {
		return { versions: {} };
	}
}

function machine() {
	const cpus = os.cpus();
	return {
		cpus: cpus.length,
		cpuModel: cpus[0] ? cpus[0].model.trim() : 'unknown',
		memoryGiB: Math.round(os.totalmem() / 2 ** 30),
		os: `${os.type()} ${os.release()}`,
		systemNode: spawnSync('node', ['-v'], { encoding: 'utf8' }).stdout.trim(),
		load: os
			.loadavg()
			.map((x) => x.toFixed(1))
			.join(' '),
	};
}

/** Runs a child in its own process group; stops the group (by pid) after RUN_TIMEOUT_MS or Ctrl-C. */
function runChild(cmd, args, { env, logFile }) {
	return new Promise((resolve) => {
		const started = Date.now();
		const out = fs.openSync(logFile, 'a');
		const child = spawn(cmd, args, { cwd: root, env, stdio: ['ignore', out, out], detached: true });
		fs.closeSync(out);
		let exited = false;
		let timedOut = false;
		const stop = () => terminateGroup(child.pid, { exited: () => exited, timeoutMs: 20000 });
		const timer = setTimeout(() => stop((timedOut = true)), RUN_TIMEOUT_MS);
		process.once('SIGINT', stop);
		child.on('close', (code, signal) => {
			exited = true;
			clearTimeout(timer);
			process.removeListener('SIGINT', stop);
			resolve({ code, signal, timedOut, seconds: (Date.now() - started) / 1000 });
		});
	});
}

const stripAnsi = (s) => String(s).replace(/\u001b\[[0-9;]*m/g, '');

/** The first informative lines of a jest failure message. */
function firstFailure(messages) {
	const text = stripAnsi((messages || []).join('\n'));
	const lines = text.split('\n').map((l) => l.trimEnd());
	const kept = [];
	for (const l of lines) {
		if (/^\s+at /.test(l)) break;
		if (!l.trim()) continue;
		kept.push(l.trim());
		if (kept.join(' ').length > 600) break;
	}
	return kept.join(' ').slice(0, 600);
}

/** Runs jest with an inline configuration (the compat file does not match the e2e project). */
async function runJest(version, files, { testNamePattern, label, logFile }) {
	const out = path.join(os.tmpdir(), `sbl-compat-${process.pid}-${label}-${version}.json`);
	const config = {
		rootDir: root,
		roots: ['<rootDir>/test'],
		testEnvironment: 'node',
		testMatch: ['<rootDir>/test/e2e/**/*.test.js', '<rootDir>/test/e2e/compat/*.compat.js'],
		slowTestThreshold: 120,
	};
	const args = [
		path.join(root, 'node_modules', 'jest', 'bin', 'jest.js'),
		'--config',
		JSON.stringify(config),
		'--runInBand',
		'--json',
		`--outputFile=${out}`,
		'--runTestsByPath',
		...files.map((f) => path.join(root, f)),
	];
	if (testNamePattern) args.push('-t', testNamePattern.source);
	fs.appendFileSync(logFile, `\n===== ${label} ${version} at ${new Date().toISOString()}\n`);
	const r = await runChild(process.execPath, args, {
		env: cleanEnv({ SBL_E2E_VERSIONS: version, FORCE_COLOR: '0' }),
		logFile,
	});
	let tests = [];
	let suiteErrors = [];
	try {
		const result = JSON.parse(fs.readFileSync(out, 'utf8'));
		for (const tr of result.testResults) {
			const file = path.basename(tr.name);
			for (const a of tr.assertionResults) {
				if (a.status === 'pending' || a.status === 'skipped' || a.status === 'disabled') continue;
				tests.push({
					file,
					title: a.title,
					status: a.status,
					seconds: a.duration != null ? Math.round(a.duration / 100) / 10 : null,
					failure: a.status === 'failed' ? firstFailure(a.failureMessages) : undefined,
				});
			}
			if (tr.status === 'failed' && tr.assertionResults.length === 0) {
				suiteErrors.push({ file, failure: firstFailure([tr.message]) });
			}
		}
		fs.rmSync(out, { force: true });
	} catch (e) {
		suiteErrors.push({
			file: files.join(' '),
			failure: `no jest result (${r.timedOut ? 'timed out' : `exit ${r.code ?? r.signal}`}): ${e.message}`,
		});
	}
	return { ...r, tests, suiteErrors };
}

/** Installs one version into the e2e cache (or finds it there); { ok, seconds, cached, node, error }. */
async function install(version) {
	try {
		const r = await ensureN8n(version);
		const node = spawnSync(r.node, ['-v'], { encoding: 'utf8' }).stdout.trim();
		const cached = r.installSeconds == null;
		return { ok: true, dir: r.dir, seconds: r.installSeconds, cached, installed: r.version, node };
	} catch (e) {
		return {
			ok: false,
			error: stripAnsi(e.message).split('\n').slice(0, 4).join(' ').slice(0, 600),
		};
	}
}

async function main() {
	const o = options();
	const results = loadResults();
	if (o.render) {
		render(results);
		say(`rendered ${path.relative(root, MD_FILE)}`);
		return 0;
	}
	const selected = o.versions || MATRIX.map((m) => m.version);
	const logFile = path.join(os.tmpdir(), `sbl-compat-${Date.now()}.log`);
	say(`versions ${selected.join(', ')}; log ${logFile}`);
	const b = spawnSync('npm', ['run', 'build', '--silent'], {
		cwd: root,
		stdio: 'inherit',
		env: cleanEnv({}),
	});
	if (b.status !== 0) throw new Error('npm run build failed');
	let ok = true;
	for (const version of selected) {
		const m = MATRIX.find((x) => x.version === version) || { version };
		const prev = results.versions[version];
		const entry = { at: new Date().toISOString() };
		say(`${version}: install`);
		entry.install = await install(version);
		if (entry.install.ok && entry.install.cached) {
			entry.install.coldSeconds =
				(prev &&
					prev.install &&
					(prev.install.cached ? prev.install.coldSeconds : prev.install.seconds)) ||
				null;
		}
		say(
			`${version}: install ${entry.install.ok ? (entry.install.cached ? 'cached' : `${fmtSecs(entry.install.seconds)}`) : `FAILED: ${entry.install.error}`}`,
		);
		if (entry.install.ok) {
			entry.hooks = probeHooks(entry.install.dir);
			say(`${version}: n8n internals ${JSON.stringify(entry.hooks)}`);
			say(`${version}: subset (${FILES.length} files)`);
			entry.run = await runJest(version, FILES, { label: 'subset', logFile });
			const failed =
				entry.run.tests.filter((t) => t.status === 'failed').length + entry.run.suiteErrors.length;
			say(
				`${version}: subset ${entry.run.tests.filter((t) => t.status === 'passed').length}/${entry.run.tests.length} passed, ${entry.run.suiteErrors.length} files did not run, in ${fmtSecs(entry.run.seconds)}`,
			);
			ok = ok && failed === 0;
			if (m.queue && o.queue) {
				say(`${version}: queue mode (${QUEUE_FILE}, -t ${QUEUE_TESTS.source})`);
				entry.queue = await runJest(version, [QUEUE_FILE], {
					testNamePattern: QUEUE_TESTS,
					label: 'queue',
					logFile,
				});
				const qf =
					entry.queue.tests.filter((t) => t.status === 'failed').length +
					entry.queue.suiteErrors.length;
				say(
					`${version}: queue ${entry.queue.tests.filter((t) => t.status === 'passed').length}/${entry.queue.tests.length} passed in ${fmtSecs(entry.queue.seconds)}`,
				);
				ok = ok && qf === 0;
			} else if (prev && prev.queue && !o.queue) {
				entry.queue = prev.queue; // kept from the earlier run
			}
		} else {
			ok = false;
		}
		// Re-read before writing: another run (other versions) may have written meanwhile.
		Object.assign(results.versions, { ...loadResults().versions, [version]: entry });
		results.machine = machine();
		results.updated = new Date().toISOString();
		fs.mkdirSync(path.dirname(JSON_FILE), { recursive: true });
		fs.writeFileSync(JSON_FILE, JSON.stringify(results, null, 2) + '\n');
		render(results);
	}
	say(`done: ${path.relative(root, MD_FILE)}, ${path.relative(root, JSON_FILE)}`);
	return ok ? 0 : 1;
}

if (require.main === module) {
	main().then(
		(code) => process.exit(code),
		(e) => {
			console.error(e.stack || e.message);
			process.exit(2);
		},
	);
}

// For test/scripts/compat/test-compat.test.js: the table's rendering, without running anything.
module.exports = {
	FEATURES,
	MATRIX,
	MARKS,
	featureCell,
	featureTable,
	tableIntro,
	columnLabel,
	compareVersions,
	renderReadme,
};
