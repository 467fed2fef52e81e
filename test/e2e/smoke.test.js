'use strict';
// Smoke: the packed package installs into a real n8n like a community package and loads there.
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const Module = require('node:module');
const path = require('node:path');
const { PKG, declaredTypes } = require('./lib/pkg');
const { versions, useN8n } = require('./lib/suite');

const EXPECTED_CREDENTIALS = [
	'consentFlowOAuth2Api',
	'realEstateEstimateOAuth2Api',
	'consentFlowWebhookSigningApi',
];

/** The NODE_PATH n8n sets for itself (load-nodes-and-credentials.js prepends its module.paths). */
function n8nNodePath(install) {
	const loaderDir = path.join(install.dir, 'node_modules', 'n8n', 'dist');
	return Module._nodeModulePaths(loaderDir).join(path.delimiter);
}

/** require('zod') from inside the installed package, run by n8n's own Node, optionally with NODE_PATH. */
function requireZodFrom(install, packageDir, nodePath) {
	const script = `
		const { createRequire } = require('node:module');
		const req = createRequire(${JSON.stringify(path.join(packageDir, 'package.json'))});
		const file = req.resolve('zod');
		const { z } = req('zod');
		const parsed = z.object({ a: z.string() }).parse({ a: 'ok' });
		console.log(JSON.stringify({ file, version: req(req.resolve('zod/package.json')).version, parsed }));`;
	const env = { PATH: process.env.PATH, HOME: process.env.HOME };
	if (nodePath) env.NODE_PATH = nodePath;
	return spawnSync(install.node, ['-e', script], { cwd: packageDir, env, encoding: 'utf8' });
}

describe.each(versions())('n8n %s.x: the package as a community package', (major) => {
	const ctx = useN8n(major);

	test('the tarball is installed into <userFolder>/.n8n/nodes as a real folder (not a link)', () => {
		const { n8n, pkg } = ctx;
		expect(n8n.version.startsWith(`${major}.`)).toBe(true);
		const dir = n8n.packageDir;
		expect(dir).toBe(path.join(n8n.userFolder, '.n8n', 'nodes', 'node_modules', PKG.name));
		expect(fs.lstatSync(dir).isSymbolicLink()).toBe(false);
		const installed = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
		expect(installed.name).toBe(PKG.name);
		expect(installed.version).toBe(PKG.version);
		// Every file of the tarball is there, and the package files declared in `n8n` exist.
		for (const f of pkg.files) expect(fs.existsSync(path.join(dir, f))).toBe(true);
		for (const f of [...PKG.n8n.credentials, ...PKG.n8n.nodes]) {
			expect({ file: f, exists: fs.existsSync(path.join(dir, f)) }).toEqual({
				file: f,
				exists: true,
			});
		}
		// Only what `files` allows: no sources, no tests.
		expect(pkg.files.filter((f) => /^(test|nodes|credentials|scripts)\//.test(f))).toEqual([]);
	});

	test('the installed package has no runtime dependencies and brings no node_modules', () => {
		const dir = ctx.n8n.packageDir;
		const installed = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
		expect(installed.dependencies || {}).toEqual({});
		expect(fs.existsSync(path.join(dir, 'node_modules'))).toBe(false);
		// The install folder holds our package only (peer n8n-workflow is not installed, like n8n does).
		const top = fs
			.readdirSync(path.join(ctx.n8n.userFolder, '.n8n', 'nodes', 'node_modules'))
			.filter((d) => !d.startsWith('.'));
		expect(top).toEqual([PKG.name]);
	});

	test('n8n lists every node type the package declares (GET /types/nodes.json)', async () => {
		const nodes = await ctx.n8n.rest('GET', '/types/nodes.json');
		const names = nodes.map((n) => n.name);
		const ours = names.filter((n) => n.startsWith(`${PKG.name}.`)).sort();
		const { nodes: declared, tools } = declaredTypes();
		// One node class per declared file; a missing or broken file makes n8n drop the whole package.
		expect(declared.length).toBe(PKG.n8n.nodes.length);
		// Plus the AI-tool variants n8n generates for nodes marked usableAsTool.
		expect(ours).toEqual([...new Set([...declared, ...tools])].sort());
		// The other nodes of n8n are there too (the list is real, not empty).
		expect(names).toContain('n8n-nodes-base.httpRequest');
		const log = ctx.n8n.logs();
		expect(log).not.toMatch(new RegExp(`Failed to load package "${PKG.name}"`));
	});

	test('n8n lists the three credential types (GET /types/credentials.json)', async () => {
		const creds = await ctx.n8n.rest('GET', '/types/credentials.json');
		const names = creds.map((c) => c.name);
		for (const c of EXPECTED_CREDENTIALS) expect(names).toContain(c);
		expect(declaredTypes().credentials.sort()).toEqual([...EXPECTED_CREDENTIALS].sort());
		// The estimate credential extends n8n's oAuth2Api (n8n's OAuth2 machinery handles its token);
		// the Consent Flow credential fetches its own (issue 48) into a hidden expirable field.
		expect(creds.find((x) => x.name === 'realEstateEstimateOAuth2Api').extends).toEqual([
			'oAuth2Api',
		]);
		const consent = creds.find((x) => x.name === 'consentFlowOAuth2Api');
		expect(consent.extends).toBeUndefined();
		expect(consent.properties.find((p) => p.name === 'accessToken')).toMatchObject({
			type: 'hidden',
			typeOptions: { expirable: true, password: true },
		});
	});

	test("require('zod') from inside the installed package resolves to n8n's copy via n8n's NODE_PATH", () => {
		const { install } = ctx.n8n;
		const dir = ctx.n8n.packageDir;
		const r = requireZodFrom(install, dir, n8nNodePath(install));
		expect(r.stderr).toBe('');
		expect(r.status).toBe(0);
		const out = JSON.parse(r.stdout.trim());
		expect(out.parsed).toEqual({ a: 'ok' });
		// …and it is n8n's own zod, not something that came with the package.
		expect(out.file.startsWith(path.join(install.dir, 'node_modules') + path.sep)).toBe(true);
		expect(out.version).toMatch(/^3\./);
		// Control: without n8n's NODE_PATH the package cannot find zod (so it brings no copy).
		const without = requireZodFrom(install, dir, '');
		expect(without.status).not.toBe(0);
		expect(without.stderr).toMatch(/Cannot find module 'zod'/);
	});

	test('node files of the package that import zod are among the node types n8n loaded', async () => {
		// The nodes import zod at runtime (n8n's copy); n8n loading them proves zod resolves in the
		// running n8n. Nothing to prove while no node file imports zod.
		const dir = ctx.n8n.packageDir;
		const names = (await ctx.n8n.rest('GET', '/types/nodes.json')).map((n) => n.name);
		const { nodes: declared } = declaredTypes();
		const importing = PKG.n8n.nodes.filter((rel) => {
			const file = path.join(dir, rel);
			if (!fs.existsSync(file)) return false;
			const deps = new Set();
			const scan = (f, seen = new Set()) => {
				if (seen.has(f) || !fs.existsSync(f)) return;
				seen.add(f);
				const src = fs.readFileSync(f, 'utf8');
				for (const m of src.matchAll(/require\("([^"]+)"\)/g)) {
					if (m[1] === 'zod') deps.add('zod');
					else if (m[1].startsWith('.'))
						scan(require.resolve(path.resolve(path.dirname(f), m[1])), seen);
				}
			};
			scan(file);
			return deps.has('zod');
		});
		const { files } = declaredTypes();
		for (const rel of importing) expect(names).toContain(files[rel]);
		console.log(
			`n8n ${ctx.n8n.version}: node files importing zod at runtime: ${importing.join(', ') || 'none'}`,
		);
		expect(declared.length).toBeGreaterThanOrEqual(importing.length);
	});
});
