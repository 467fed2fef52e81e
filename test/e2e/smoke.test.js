'use strict';
// Smoke: the packed package installs into a real n8n like a community package and loads there.
const fs = require('node:fs');
const path = require('node:path');
const { PKG, declaredTypes } = require('./lib/pkg');
const { versions, useN8n } = require('./lib/suite');

const EXPECTED_CREDENTIALS = [
	'consentFlowOAuth2Api',
	'realEstateEstimateOAuth2Api',
	'consentFlowWebhookSigningApi',
];

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
});
