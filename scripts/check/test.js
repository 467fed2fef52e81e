#!/usr/bin/env node
// `npm test`: lint (n8n-node lint, strict), a type check of sources and tests, prettier --check, build, n8n's
// community-package scanner rules (scripts/check/scan.mjs), the unit and simulator suites, then the
// real-n8n end-to-end suite (which installs n8n into a cache on first use). Prints each step's time
// and the total, then the plain summary line "N passed, N failed" summed over all jest runs.
'use strict';
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const root = path.resolve(__dirname, '../..');
const begun = Date.now();
const seconds = (since) => `${((Date.now() - since) / 1000).toFixed(1)} s`;
const bin = (name) => path.join(root, 'node_modules', '.bin', name);
const only = process.argv.slice(2); // e.g. `npm test -- unit simulator` runs those projects only

function run(label, cmd, args, extraEnv = {}) {
	const started = Date.now();
	console.log(`\n=== ${label}: ${[path.basename(cmd), ...args].join(' ')}`);
	const result = spawnSync(cmd, args, {
		cwd: root,
		stdio: 'inherit',
		env: { ...process.env, ...extraEnv },
	});
	console.log(`=== ${label}: exit ${result.status} in ${seconds(started)}`);
	return result.status === 0;
}

let passed = 0;
let failed = 0;
let ok = true;

function jest(label, projects, extraArgs = [], extraEnv = {}) {
	const out = path.join(os.tmpdir(), `sbl-jest-${process.pid}-${label}.json`);
	const good = run(
		label,
		bin('jest'),
		['--selectProjects', ...projects, '--json', `--outputFile=${out}`, ...extraArgs],
		extraEnv,
	);
	let counted = false;
	try {
		const result = JSON.parse(fs.readFileSync(out, 'utf8'));
		passed += result.numPassedTests;
		failed += result.numFailedTests;
		// A suite that fails to load has no failed test but must still count.
		failed += result.testResults.filter(
			(r) => r.status === 'failed' && r.assertionResults.length === 0,
		).length;
		counted = true;
		fs.rmSync(out, { force: true });
	} catch {
		// no result file: jest itself failed
	}
	if (!counted) failed += 1;
	ok = ok && good;
}

const want = (name) => only.length === 0 || only.includes(name);

if (want('lint')) ok = run('lint', bin('n8n-node'), ['lint']) && ok;
if (want('lint')) ok = run('typecheck', bin('tsc'), ['--noEmit', '-p', 'tsconfig.test.json']) && ok;
// prettier with the repository's config over every source, test and script (dist and node_modules: .gitignore)
if (want('lint')) ok = run('format', bin('prettier'), ['--check', '**/*.{ts,js,mjs}']) && ok;
if (want('build') || want('e2e') || want('scan'))
	ok = run('build', 'npm', ['run', 'build', '--silent']) && ok;
// n8n's community-package scanner rules on the source and the packed tarball + provenance prerequisites.
if (want('scan')) ok = run('scan', process.execPath, ['scripts/check/scan.mjs']) && ok;
const fast = ['unit', 'simulator'].filter(want);
if (fast.length) jest('fast', fast);
// The trigger's tests and the webhook modules' (several drive the trigger over HTTP) again with the
// n8n-like harness following n8n 1.x (the node answers from its execution; on 2.x n8n answers once
// it stored the execution): both paths stay covered.
if (want('unit'))
	jest(
		'trigger-as-n8n-1',
		['unit'],
		['test/nodes/ConsentFlowTrigger', 'test/nodes/shared/webhook'],
		{ SBL_HARNESS_N8N: '1' },
	);
if (want('e2e')) jest('e2e', ['e2e'], ['--runInBand']);

console.log(`\n=== total: ${seconds(begun)}`);
console.log(`${passed} passed, ${failed} failed`);
process.exit(ok && failed === 0 ? 0 : 1);
