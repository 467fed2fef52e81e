#!/usr/bin/env node
// n8n's community-package scanner (`@n8n/scan-community-package`), run locally as far as it goes
// without a published version. The scanner itself downloads a published version, checks its npm
// provenance, fetches the attested GitHub source and lints both. Here:
//   1. its ESLint rules on the source files it lints (`SOURCE_FILE_PATTERNS`: package.json,
//      nodes/**, credentials/**), with its own config (`buildScanConfig`);
//   2. the same on what `npm pack` would publish (the tarball's .js and package.json), as its
//      tarball leg does;
//   3. what provenance needs and only a publish can prove: package.json `repository` names a
//      public GitHub repository in the form the scanner parses, `homepage`/`bugs` point at the same
//      repository, and `.github/workflows/publish.yml` publishes with provenance (id-token: write,
//      `npm run release`, which `n8n-node release` turns into `npm publish` with
//      NPM_CONFIG_PROVENANCE=true on GitHub Actions).
// Exit 1 on any failure, with the scanner's own report.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import {
	buildScanConfig,
	SOURCE_FILE_PATTERNS,
} from '@n8n/scan-community-package/scanner/scanner.mjs';

// The scanner's own ESLint (its pinned version), resolved from the scanner package.
const scannerRequire = createRequire(
	createRequire(import.meta.url).resolve('@n8n/scan-community-package/package.json'),
);
const { ESLint } = scannerRequire('eslint');
const glob = scannerRequire('fast-glob');

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const problems = [];

/** The scanner's analyzePackage, also listing warnings (the scanner passes them; we print them). */
async function analyze(dir, patterns) {
	const eslint = new ESLint({
		cwd: dir,
		allowInlineConfig: false,
		overrideConfigFile: true,
		overrideConfig: await buildScanConfig(),
	});
	const files = glob.sync(patterns, {
		cwd: dir,
		absolute: true,
		ignore: ['node_modules/**', '**/package-lock.json'],
	});
	if (files.length === 0)
		return { passed: false, message: `no files matched ${patterns.join(', ')} in ${dir}` };
	const results = await eslint.lintFiles(files);
	const errors = results.reduce((n, r) => n + r.errorCount, 0);
	const warnings = results.reduce((n, r) => n + r.warningCount, 0);
	const details =
		errors + warnings > 0
			? await (await eslint.loadFormatter('stylish')).format(results)
			: undefined;
	return {
		passed: errors === 0,
		message: `${files.length} files, ${errors} errors, ${warnings} warnings`,
		details,
	};
}

function check(label, result) {
	if (result.passed) {
		console.log(`ok   ${label}${result.message ? ` (${result.message})` : ''}`);
		if (result.details) console.log(result.details);
		return;
	}
	console.log(`FAIL ${label}: ${result.message}`);
	if (result.details) console.log(result.details);
	problems.push(label);
}

// The scanner's pattern for the source repository recorded in provenance (scanner.mjs parseSourceRepo).
const GITHUB_REPO =
	/^git\+https:\/\/github\.com\/([A-Za-z0-9_.-]+)\/([A-Za-z0-9_.-]+?)(?:\.git)?(?:@|$)/;

export function repositoryProblems(pkg) {
	const found = [];
	const url = typeof pkg.repository === 'string' ? pkg.repository : pkg.repository?.url;
	const normalised = `git+${String(url ?? '').replace(/^git\+/, '')}`;
	const match = GITHUB_REPO.exec(normalised);
	if (!match) {
		found.push(
			`package.json "repository" must be a public GitHub repository (https://github.com/<owner>/<name>.git), is ${JSON.stringify(url)}`,
		);
		return found;
	}
	const base = `https://github.com/${match[1]}/${match[2]}`;
	if (pkg.homepage !== `${base}#readme`)
		found.push(
			`package.json "homepage" must be ${base}#readme (is ${JSON.stringify(pkg.homepage)})`,
		);
	const bugs = typeof pkg.bugs === 'string' ? pkg.bugs : pkg.bugs?.url;
	if (bugs !== `${base}/issues`)
		found.push(`package.json "bugs.url" must be ${base}/issues (is ${JSON.stringify(bugs)})`);
	return found;
}

export function publishWorkflowProblems(text, pkg) {
	const found = [];
	if (text === undefined)
		return [
			'.github/workflows/publish.yml is missing (n8n-node release --init-workflow creates it)',
		];
	if (!/^\s*id-token:\s*write\s*$/m.test(text))
		found.push('publish.yml: the job needs "permissions: id-token: write" for npm provenance');
	if (!/^\s*tags:\s*$/m.test(text)) found.push('publish.yml: it must run on version tags');
	if (!/npm run release/.test(text))
		found.push(
			'publish.yml: it must publish through "npm run release" (n8n-node release: provenance on)',
		);
	const token = text.match(/^\s*NPM_TOKEN:\s*(.*?)\s*$/m)?.[1];
	if (token !== undefined && token !== '${{ secrets.NPM_TOKEN }}')
		found.push(
			'publish.yml: NPM_TOKEN must be written as the starter writes it: ${{ secrets.NPM_TOKEN }}',
		);
	// scripts/release/check.js may run first (it refuses placeholders)
	if (!/^(node scripts\/release\/check\.js && )?n8n-node release$/.test(pkg.scripts?.release ?? ''))
		found.push('package.json scripts.release must end in "n8n-node release"');
	if (
		!/^(node scripts\/release\/check\.js && )?n8n-node prerelease$/.test(
			pkg.scripts?.prepublishOnly ?? '',
		)
	)
		found.push(
			'package.json scripts.prepublishOnly must end in "n8n-node prerelease" (no publish outside the release path)',
		);
	return found;
}

/** The rules must bite: a planted violation (a console call and an fs import in a node file) must be reported. */
async function plantedViolationFound() {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sbl-scan-planted-'));
	try {
		fs.mkdirSync(path.join(dir, 'nodes', 'Planted'), { recursive: true });
		fs.writeFileSync(
			path.join(dir, 'package.json'),
			fs.readFileSync(path.join(root, 'package.json')),
		);
		fs.writeFileSync(
			path.join(dir, 'nodes', 'Planted', 'Planted.node.ts'),
			"import fs from 'fs';\nexport const planted = () => console.log(fs);\n",
		);
		const result = await analyze(dir, SOURCE_FILE_PATTERNS);
		return {
			passed: !result.passed,
			message: result.passed
				? 'the scanner rules reported nothing for a console call and an fs import: the scan is not working'
				: 'reported',
		};
	} finally {
		fs.rmSync(dir, { recursive: true, force: true });
	}
}

async function main() {
	check('the scanner rules report a planted violation', await plantedViolationFound());
	const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));

	check(
		'scanner rules on the source (package.json, nodes/, credentials/)',
		await analyze(root, SOURCE_FILE_PATTERNS),
	);

	const work = fs.mkdtempSync(path.join(os.tmpdir(), 'sbl-scan-'));
	try {
		const packed = spawnSync('npm', ['pack', '--silent', '--pack-destination', work], {
			cwd: root,
			encoding: 'utf8',
		});
		if (packed.status !== 0) throw new Error(`npm pack failed: ${packed.stderr}`);
		const tgz = path.join(work, packed.stdout.trim().split('\n').pop());
		const dir = path.join(work, 'package');
		fs.mkdirSync(dir);
		const untar = spawnSync('tar', ['-xzf', tgz, '-C', dir, '--strip-components=1']);
		if (untar.status !== 0) throw new Error(`tar failed: ${untar.stderr}`);
		check(
			'scanner rules on the packed tarball (dist .js, package.json)',
			await analyze(dir, ['**/*.js', 'package.json']),
		);
	} finally {
		fs.rmSync(work, { recursive: true, force: true });
	}

	const workflowFile = path.join(root, '.github', 'workflows', 'publish.yml');
	const workflow = fs.existsSync(workflowFile) ? fs.readFileSync(workflowFile, 'utf8') : undefined;
	const provenance = [...repositoryProblems(pkg), ...publishWorkflowProblems(workflow, pkg)];
	check('provenance prerequisites (GitHub repository, publish workflow)', {
		passed: provenance.length === 0,
		message: provenance.join('; '),
	});

	if (problems.length) {
		console.log(`\nscan: ${problems.length} check(s) failed`);
		process.exit(1);
	}
	console.log(
		'\nscan: all checks passed (provenance itself is checked by n8n on the published version)',
	);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
	main().catch((error) => {
		console.error(error);
		process.exit(1);
	});
}
