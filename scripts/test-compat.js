#!/usr/bin/env node
// `npm run test:compat`: the compatibility matrix (issue 24). For each n8n version of MATRIX
// (or of --versions): install it into the e2e cache (test/e2e/lib/install.js; cached after the
// first time), run a compatibility subset of the real-n8n suite against it
// (SBL_E2E_VERSIONS=<exact version>), and on the versions marked `queue` the queue-mode
// webhook-process restarts of test/e2e/queue/production.test.js. Results per version × feature go
// to docs/compatibility.json (merged with the versions not run this time) and are rendered into
// docs/compatibility.md together with the hand-written diagnosis in test/e2e/compat/diagnosis.md.
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

const root = path.resolve(__dirname, '..');
const JSON_FILE = path.join(root, 'docs', 'compatibility.json');
const MD_FILE = path.join(root, 'docs', 'compatibility.md');
const DIAGNOSIS = path.join(root, 'test', 'e2e', 'compat', 'diagnosis.md');

/** The versions of the matrix, oldest first. `queue`: also run the queue-mode restarts there. */
const MATRIX = [
	{ version: '1.123.81', role: 'newest 1.x' },
	{ version: '2.0.3', role: 'first 2.x line (2.0.x)' },
	{ version: '2.1.4', role: 'early 2.x' },
	{ version: '2.20.12', role: 'middle of the 2.x line' },
	{ version: '2.41.1', role: 'newest 2.x that installs from the registry (what `npm test` runs)', queue: true },
	{ version: '2.41.3', label: "CLI 2.41.3 on 2.41.1's internals", role: "newest 2.x — CLI 2.41.3 on 2.41.1's internals (see below)", queue: true },
];

/** A version's column heading: `n8n 2.41.3 (CLI 2.41.3 on 2.41.1's internals)` where the column is not that release as published. */
function columnLabel(v) {
	const m = MATRIX.find((x) => x.version === v);
	return m && m.label ? `n8n ${v} (${m.label})` : `n8n ${v}`;
}

/** -1, 0, 1 for dotted versions. */
function compareVersions(a, b) {
	const x = String(a).split('.').map(Number);
	const y = String(b).split('.').map(Number);
	for (let i = 0; i < Math.max(x.length, y.length); i++) {
		const d = (x[i] || 0) - (y[i] || 0);
		if (d) return d < 0 ? -1 : 1;
	}
	return 0;
}

/**
 * One meaning per mark (issue 33). A feature's rules say, per version, what is expected there
 * besides "works": `degrades` (it works with a fallback, `how` says which; `tests` = tests that
 * assert the full behaviour and may fail there without the feature being broken) or `refused`
 * (the node refuses the feature with a clear message before doing anything; its test asserts the
 * refusal). `when(version, entry)` decides, from the version or from the internals probed in it.
 */
const MARKS = [
	['✅', 'works: every test of the feature passed'],
	['⚠️', 'degrades: works, with the fallback named in the cell (details under "What degrades, and why")'],
	['🚫', 'refused with a clear message: the node refuses the feature before it sends anything, and says what it needs'],
	['❌', 'does not work: n of m tests passed (the failures are listed under "Failures")'],
];
const IMMEDIATELY_FALLBACK = {
	when: (v, e) => Boolean(e && e.hooks && e.hooks.resolvers === false),
	how: '200 when the run starts, not when stored',
};

/** Test files of the subset, run in one jest process per version (one n8n per file). */
const FILES = [
	'test/e2e/smoke.test.js',
	'test/e2e/consent-flow-node.test.js',
	'test/e2e/estimate.test.js',
	'test/e2e/trigger-loop.test.js',
	'test/e2e/compat/respond-modes.compat.js',
	'test/e2e/create-and-wait.test.js',
];
const QUEUE_FILE = 'test/e2e/queue/production.test.js';
const QUEUE_TESTS = /faults: the webhook process restarted \(SIGTERM\)|Create and Wait for Outcome: executions wait in Postgres/;

/** Rows of the table: each a file and optionally a test-title pattern. */
const FEATURES = [
	{ key: 'smoke', name: 'Package loads as a community package (nodes, credentials, n8n\'s zod)', file: 'smoke.test.js' },
	{ key: 'consentFlow', name: 'Consent Flow node (create, delete, token refresh, Continue On Fail)', file: 'consent-flow-node.test.js' },
	{
		key: 'estimate',
		name: 'Real Estate Estimate node (estimates, documents, binary, 404/429/500)',
		file: 'estimate.test.js',
		// n8n-workflow up to 2.20 drops a failed request's headers (test/e2e/compat/diagnosis.md)
		degrades: { when: (v) => compareVersions(v, '2.21.0') < 0, tests: /Retry-After/, how: 'Retry-After not seen, own backoff' },
	},
	{ key: 'loop', name: 'Consent Flow Trigger in the consent loop (Immediately; dedupe across a restart)', file: 'trigger-loop.test.js', degrades: IMMEDIATELY_FALLBACK },
	{ key: 'immediately', name: 'Trigger respond mode Immediately (ack JSON, duplicate)', file: 'respond-modes.compat.js', title: /Immediately:/, degrades: IMMEDIATELY_FALLBACK },
	{ key: 'whenFinished', name: 'Trigger respond mode When the Workflow Finishes (5xx → redelivery → 2xx)', file: 'respond-modes.compat.js', title: /When the Workflow Finishes:/ },
	{ key: 'createAndWait', name: 'Create and Wait for Outcome (outcomes, restart while waiting)', file: 'create-and-wait.test.js', title: /^(?!.*Limit Wait Time)/ },
	{
		key: 'limitWait',
		name: 'Create and Wait: Limit Wait Time (needs n8n 2.39 or newer)',
		file: 'create-and-wait.test.js',
		title: /Limit Wait Time/,
		// the code's own bound (nodes/ConsentFlow/flow/createAndWait.ts): n8n forwarding every output of a resumed node
		refused: { when: (v) => compareVersions(v, '2.39.0') < 0, how: 'refused before a flow is created (needs 2.39)' },
	},
	{ key: 'queueRestart', name: 'Queue mode: a webhook process restarted under load (trigger, nothing lost)', file: 'production.test.js', title: /faults: the webhook process restarted/, queue: true },
	{ key: 'queueWait', name: 'Queue mode: Create and Wait, webhook process restarted while waiting', file: 'production.test.js', title: /Create and Wait for Outcome/, queue: true },
];

const RUN_TIMEOUT_MS = 40 * 60 * 1000;

function parseArgs(argv) {
	const o = { versions: null, queue: true, render: false };
	for (let i = 0; i < argv.length; i++) {
		const a = argv[i];
		if (a === '--versions') o.versions = argv[++i].split(',').map((v) => v.trim()).filter(Boolean);
		else if (a.startsWith('--versions=')) o.versions = a.slice(11).split(',').map((v) => v.trim()).filter(Boolean);
		else if (a === '--no-queue') o.queue = false;
		else if (a === '--render') o.render = true;
		else throw new Error(`unknown argument ${a}`);
	}
	return o;
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
		load: os.loadavg().map((x) => x.toFixed(1)).join(' '),
	};
}

/** Environment without npm's and jest's variables. */
function cleanEnv(extra) {
	const env = {};
	for (const [k, v] of Object.entries(process.env)) {
		if (/^(npm_|JEST_)/i.test(k) || ['INIT_CWD', 'NODE_ENV'].includes(k)) continue;
		env[k] = v;
	}
	return { ...env, ...extra };
}

/** Runs a child in its own process group; kills the group (by pid) after timeoutMs. */
function runChild(cmd, args, { env, timeoutMs = RUN_TIMEOUT_MS, logFile }) {
	return new Promise((resolve) => {
		const started = Date.now();
		const out = fs.openSync(logFile, 'a');
		const child = spawn(cmd, args, { cwd: root, env, stdio: ['ignore', out, out], detached: true });
		fs.closeSync(out);
		let timedOut = false;
		const timer = setTimeout(() => {
			timedOut = true;
			try {
				process.kill(-child.pid, 'SIGTERM');
			} catch {}
			setTimeout(() => {
				try {
					process.kill(-child.pid, 'SIGKILL');
				} catch {}
			}, 20000).unref();
		}, timeoutMs);
		const onSignal = () => {
			try {
				process.kill(-child.pid, 'SIGTERM');
			} catch {}
		};
		process.once('SIGINT', onSignal);
		child.on('close', (code, signal) => {
			clearTimeout(timer);
			process.removeListener('SIGINT', onSignal);
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
		suiteErrors.push({ file: files.join(' '), failure: `no jest result (${r.timedOut ? 'timed out' : `exit ${r.code ?? r.signal}`}): ${e.message}` });
	}
	return { ...r, tests, suiteErrors };
}

/** Installs one version (node test/e2e/lib/install.js <v>); { ok, seconds, cached, node, error }. */
async function install(version, logFile) {
	fs.appendFileSync(logFile, `\n===== install ${version} at ${new Date().toISOString()}\n`);
	const started = Date.now();
	const r = spawnSync(process.execPath, [path.join(root, 'test/e2e/lib/install.js'), version], {
		cwd: root,
		env: cleanEnv({}),
		encoding: 'utf8',
		timeout: RUN_TIMEOUT_MS,
	});
	fs.appendFileSync(logFile, `${r.stdout}\n${r.stderr}\n`);
	const seconds = (Date.now() - started) / 1000;
	const line = (r.stdout || '').trim().split('\n').pop();
	if (r.status !== 0) {
		const err = stripAnsi(r.stderr || '').split('\n').filter((l) => /notarget|error|Error/.test(l)).slice(0, 4).join(' ');
		return { ok: false, seconds, error: err.slice(0, 600) || `exit ${r.status}` };
	}
	const info = JSON.parse(line);
	return {
		ok: true,
		dir: info.dir,
		seconds: info.installSeconds,
		cached: info.installSeconds == null,
		installed: info.version,
		node: spawnSync(info.node, ['-v'], { encoding: 'utf8' }).stdout.trim(),
	};
}

/**
 * The n8n internals the package relies on (see test/e2e/compat/diagnosis.md), looked up in an
 * installed version's files: true = found, false = not found, null = file missing.
 */
const HOOKS = [
	{ key: 'resolvers', name: "n8n-workflow's webhook-description resolvers (`Symbol.for('n8n.webhookDescriptionResolvers')`)", use: 'nodes/ConsentFlowTrigger/respond.ts: the flag that tells the trigger n8n answers Immediately after storing the execution', file: 'node_modules/n8n-workflow/dist/cjs', text: 'n8n.webhookDescriptionResolvers' },
	{ key: 'deferOnReceived', name: 'n8n answers `onReceived` after `WorkflowRunner.run` (reads `webhookResponse` then)', use: 'ConsentFlowTrigger.node.ts: the `webhookResponse` getter records the id once the execution is stored', file: 'node_modules/n8n/dist/webhooks/webhook-helpers.js', text: 'shouldDeferOnReceivedResponse' },
	{ key: 'dataChanged', name: "static data's change flag (`__dataChanged` of n8n-workflow's ObservableObject)", use: 'nodes/ConsentFlowTrigger/dedupe.ts: assigning the top-level key makes n8n save the remembered ids', file: 'node_modules/n8n-workflow/dist/cjs/observable-object.js', text: '__dataChanged' },
	{ key: 'waitingStack', name: "the webhook context's `runExecutionData.executionData.nodeExecutionStack`", use: 'nodes/ConsentFlow/flow/createAndWait.ts: un-disables the waiting node so execute() routes the outcome', file: 'node_modules/n8n-core/dist/execution-engine/node-execution-context/webhook-context.js', text: 'nodeExecutionStack' },
	{ key: 'oauthPrefix', name: 'n8n-core prefixes token errors with "Failed to acquire OAuth2 access token"', use: 'nodes/shared/transport/failure.ts: recognises the OAuth2 client\'s error texts (with or without the prefix)', file: 'node_modules/n8n-core/dist', text: 'Failed to acquire OAuth2 access token' },
	{ key: 'forwardAllOutputs', name: "n8n-core forwards every output of a resumed node (`metadata.forwardAllOutputs`)", use: 'nodes/ConsentFlow/flow/createAndWait.ts: Limit Wait Time → Wait Timed Out on its own output', file: 'node_modules/n8n-core/dist/execution-engine/workflow-execute.js', text: 'forwardAllOutputs' },
	{ key: 'clientAuthText', name: '@n8n/client-oauth2\'s "Client authentication failed" text', use: 'nodes/shared/transport/failure.ts: the wrong-client-secret message', file: 'node_modules/@n8n/client-oauth2/dist', text: 'Client authentication failed' },
];

function probeHooks(dir) {
	const out = {};
	for (const h of HOOKS) {
		const target = path.join(dir, h.file);
		if (!fs.existsSync(target)) {
			out[h.key] = null;
			continue;
		}
		const r = spawnSync('grep', ['-rlF', '--include=*.js', h.text, target], { encoding: 'utf8' });
		const found = r.status === 0 && r.stdout.trim() !== '';
		out[h.key] = h.negate ? !found : found;
	}
	return out;
}

function featureCell(entry, feature) {
	if (!entry) return '—';
	if (entry.install && !entry.install.ok) return '❌ does not install';
	if (feature.queue && !entry.queue) return 'not run';
	const source = feature.queue ? entry.queue : entry.run;
	if (!source) return 'not run';
	const tests = source.tests.filter((t) => t.file === feature.file && (!feature.title || feature.title.test(t.title)));
	const suiteError = source.suiteErrors.find((s) => s.file === feature.file || s.file.includes(feature.file));
	if (!tests.length) return suiteError ? '❌ suite failed to run' : 'not run';
	const passed = tests.filter((t) => t.status === 'passed').length;
	const failed = tests.filter((t) => t.status !== 'passed');
	const version = entry.version || (entry.install && entry.install.installed);
	const refused = feature.refused && feature.refused.when(version, entry);
	const degrades = feature.degrades && feature.degrades.when(version, entry);
	// A failure counts as the expected degradation only when every failing test is one that asserts
	// the full behaviour the fallback lacks; any other failure: does not work.
	const onlyDegradedFail = degrades && feature.degrades.tests && failed.every((t) => feature.degrades.tests.test(t.title));
	if (failed.length && !onlyDegradedFail) return `❌ ${passed}/${tests.length}`;
	if (refused) return `🚫 ${feature.refused.how}`;
	if (degrades) return `⚠️ ${feature.degrades.how}`;
	return `✅ ${passed}/${tests.length}`;
}

/** The oldest version whose package-loads row works: the minimum n8n version the table shows. */
function minimumVersion(results, vs) {
	const smoke = FEATURES.find((f) => f.key === 'smoke');
	const ok = vs.filter((v) => featureCell({ ...results.versions[v], version: v }, smoke).startsWith('✅'));
	return ok.sort(compareVersions)[0];
}

/** The lines above the table: minimum version and the marks. */
function tableIntro(results, vs) {
	const min = minimumVersion(results, vs);
	return [
		min
			? `**Minimum n8n version: ${min}** — the oldest release tested here on which the package loads and runs (older releases are not tested). The tested releases run on Node 20 (1.x) and Node 24 (2.x).`
			: '**Minimum n8n version:** none of the versions run so far loaded the package.',
		'',
		`Marks: ${MARKS.map(([mark, meaning]) => `${mark} ${meaning}`).join(' · ')} · "not run": not part of that version's run.`,
	];
}

const fmtSecs = (s) => (s == null ? '—' : s >= 90 ? `${Math.floor(s / 60)} min ${Math.round(s % 60)} s` : `${Math.round(s)} s`);

function featureTable(results, vs) {
	const lines = [];
	lines.push(`| Feature | ${vs.map(columnLabel).join(' | ')} |`);
	lines.push(`|---|${vs.map(() => '---').join('|')}|`);
	for (const f of FEATURES) {
		lines.push(`| ${f.name} | ${vs.map((v) => featureCell(results.versions[v] && { ...results.versions[v], version: v }, f)).join(' | ')} |`);
	}
	return lines;
}

const README = path.join(root, 'README.md');
const README_START = '<!-- compat-table:start (npm run test:compat writes this table) -->';
const README_END = '<!-- compat-table:end -->';

/** The README's Compatibility table, between its markers (left alone when they are missing). */
function renderReadme(results, vs) {
	if (!fs.existsSync(README)) return;
	const text = fs.readFileSync(README, 'utf8');
	const a = text.indexOf(README_START);
	const b = text.indexOf(README_END);
	if (a < 0 || b < a) return;
	const date = (results.updated || '').slice(0, 10);
	const table = [README_START, '', ...tableIntro(results, vs), '', ...featureTable(results, vs), '', `From \`npm run test:compat\` (${date}); times, failures and what degrades: [docs/compatibility.md](docs/compatibility.md).`, '', README_END];
	fs.writeFileSync(README, text.slice(0, a) + table.join('\n') + text.slice(b + README_END.length));
}

function render(results) {
	const order = [...MATRIX.map((m) => m.version), ...Object.keys(results.versions).filter((v) => !MATRIX.some((m) => m.version === v))];
	const vs = order.filter((v) => results.versions[v]);
	const lines = [];
	lines.push('# Compatibility with n8n versions');
	lines.push('');
	lines.push('<!-- Generated by `npm run test:compat` (scripts/test-compat.js) from docs/compatibility.json and');
	lines.push('     test/e2e/compat/diagnosis.md. Edit those, not this file. -->');
	lines.push('');
	lines.push('Each version was installed the way `npm test` installs n8n (its own folder in the e2e cache, from');
	lines.push('the registry) and ran a compatibility subset of the real-n8n suite with the packed package installed');
	lines.push('as a community package.');
	lines.push('');
	lines.push(...tableIntro(results, vs));
	lines.push('');
	lines.push(...featureTable(results, vs));
	lines.push('');
	lines.push('## Runs');
	lines.push('');
	lines.push('| n8n | Role | Node | Install | Subset run | Queue-mode run | Tests passed | Run at (UTC) |');
	lines.push('|---|---|---|---|---|---|---|---|');
	for (const v of vs) {
		const e = results.versions[v];
		const m = MATRIX.find((x) => x.version === v) || {};
		const all = [...((e.run && e.run.tests) || []), ...((e.queue && e.queue.tests) || [])];
		const inst = !e.install ? '—' : !e.install.ok ? 'fails' : e.install.cached ? `cached (${fmtSecs(e.install.coldSeconds)} cold)` : fmtSecs(e.install.seconds);
		lines.push(
			`| ${v} | ${m.role || ''} | ${(e.install && e.install.node) || '—'} | ${inst} | ${e.run ? fmtSecs(e.run.seconds) : '—'} | ${e.queue ? fmtSecs(e.queue.seconds) : '—'} | ${all.filter((t) => t.status === 'passed').length}/${all.length} | ${e.at ? e.at.replace('T', ' ').slice(0, 16) : '—'} |`,
		);
	}
	lines.push('');
	const mach = results.machine || {};
	lines.push(
		`Machine: ${mach.cpus} × ${mach.cpuModel}, ${mach.memoryGiB} GiB, ${mach.os}, system Node ${mach.systemNode} (load average at the last run ${mach.load}); shared with other work, so times vary. ` +
			'Install = `npm install --ignore-scripts` + `npm rebuild sqlite3` into an empty folder (npm\'s download cache warm or not); ' +
			'"cached" = the folder was there already (its cold time in brackets when known).',
	);
	lines.push('');
	lines.push('## What the package relies on, per version');
	lines.push('');
	lines.push('Looked up in each installed n8n\'s files by the script (✓ found, ✗ not there). Where a hook is missing');
	lines.push('the package takes its fallback (see "What degrades" below).');
	lines.push('');
	lines.push(`| n8n internal | Used by | ${vs.map(columnLabel).join(' | ')} |`);
	lines.push(`|---|---|${vs.map(() => '---').join('|')}|`);
	for (const h of HOOKS) {
		const cell = (v) => {
			const e = results.versions[v];
			if (!e || !e.hooks) return '—';
			return e.hooks[h.key] === true ? '✓' : e.hooks[h.key] === false ? '✗' : '?';
		};
		lines.push(`| ${h.name} | ${h.use} | ${vs.map(cell).join(' | ')} |`);
	}
	lines.push('');
	lines.push('## Failures');
	lines.push('');
	let any = false;
	for (const v of vs) {
		const e = results.versions[v];
		const failed = [];
		if (e.install && !e.install.ok) failed.push(`- install: ${e.install.error}`);
		for (const part of [e.run, e.queue]) {
			if (!part) continue;
			for (const s of part.suiteErrors) failed.push(`- \`${s.file}\` did not run: ${s.failure}`);
			for (const t of part.tests.filter((x) => x.status === 'failed')) failed.push(`- \`${t.file}\` — ${t.title}: ${t.failure}`);
		}
		if (!failed.length) continue;
		any = true;
		lines.push(`### n8n ${v}`);
		lines.push('');
		lines.push(...failed.map((l) => l.replace(/\|/g, '\\|')));
		lines.push('');
	}
	if (!any) lines.push('None.', '');
	if (fs.existsSync(DIAGNOSIS)) {
		lines.push(fs.readFileSync(DIAGNOSIS, 'utf8').trim());
		lines.push('');
	}
	fs.writeFileSync(MD_FILE, lines.join('\n'));
	renderReadme(results, vs);
}

async function main() {
	const o = parseArgs(process.argv.slice(2));
	const results = loadResults();
	if (o.render) {
		// Versions run before the internals were probed: look them up in their install folders.
		const { installPlan } = require(path.join(root, 'test/e2e/lib/install.js'));
		for (const [version, entry] of Object.entries(results.versions)) {
			if (!entry.install || !entry.install.ok) continue;
			const dir = entry.install.dir || (await installPlan(version)).dir;
			if (fs.existsSync(path.join(dir, '.installed'))) entry.hooks = probeHooks(dir);
		}
		fs.writeFileSync(JSON_FILE, JSON.stringify(results, null, 2) + '\n');
		render(results);
		say(`rendered ${path.relative(root, MD_FILE)}`);
		return 0;
	}
	const selected = o.versions || MATRIX.map((m) => m.version);
	const logFile = path.join(os.tmpdir(), `sbl-compat-${Date.now()}.log`);
	say(`versions ${selected.join(', ')}; log ${logFile}`);
	const b = spawnSync('npm', ['run', 'build', '--silent'], { cwd: root, stdio: 'inherit', env: cleanEnv({}) });
	if (b.status !== 0) throw new Error('npm run build failed');
	let ok = true;
	for (const version of selected) {
		const m = MATRIX.find((x) => x.version === version) || { version };
		const prev = results.versions[version];
		const entry = { at: new Date().toISOString() };
		say(`${version}: install`);
		entry.install = await install(version, logFile);
		if (entry.install.ok && entry.install.cached) {
			entry.install.coldSeconds = (prev && prev.install && (prev.install.cached ? prev.install.coldSeconds : prev.install.seconds)) || null;
		}
		say(`${version}: install ${entry.install.ok ? (entry.install.cached ? 'cached' : `${fmtSecs(entry.install.seconds)}`) : `FAILED: ${entry.install.error}`}`);
		if (entry.install.ok) {
			entry.hooks = probeHooks(entry.install.dir);
			say(`${version}: n8n internals ${JSON.stringify(entry.hooks)}`);
			say(`${version}: subset (${FILES.length} files)`);
			entry.run = await runJest(version, FILES, { label: 'subset', logFile });
			const failed = entry.run.tests.filter((t) => t.status === 'failed').length + entry.run.suiteErrors.length;
			say(`${version}: subset ${entry.run.tests.filter((t) => t.status === 'passed').length}/${entry.run.tests.length} passed, ${entry.run.suiteErrors.length} files did not run, in ${fmtSecs(entry.run.seconds)}`);
			ok = ok && failed === 0;
			if (m.queue && o.queue) {
				say(`${version}: queue mode (${QUEUE_FILE}, -t ${QUEUE_TESTS.source})`);
				entry.queue = await runJest(version, [QUEUE_FILE], { testNamePattern: QUEUE_TESTS, label: 'queue', logFile });
				const qf = entry.queue.tests.filter((t) => t.status === 'failed').length + entry.queue.suiteErrors.length;
				say(`${version}: queue ${entry.queue.tests.filter((t) => t.status === 'passed').length}/${entry.queue.tests.length} passed in ${fmtSecs(entry.queue.seconds)}`);
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

// For test/scripts/test-compat.test.js: the table's rendering, without running anything.
module.exports = { FEATURES, MATRIX, MARKS, featureCell, featureTable, tableIntro, columnLabel, compareVersions, renderReadme };
