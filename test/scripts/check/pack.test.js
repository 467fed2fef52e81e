// What `npm pack` ships (issue 48): only what runs in n8n — the built nodes, credentials and
// icons, package.json, README and LICENSE — within the size the README states.
'use strict';
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '../../..');
const PKG = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
// The bounds the README's Installation section states ("under 100 files, under 150 kB").
const MAX_FILES = 100;
const MAX_PACKED_BYTES = 150 * 1024;

const ALLOWED = [
	/^package\.json$/,
	/^README\.md$/,
	/^LICENSE\.md$/,
	/^dist\/(nodes|credentials)\/[\w/.-]+\.js$/,
	/^dist\/nodes\/\w+\/\w+\.node\.json$/,
	/^dist\/(icons|nodes|credentials)\/[\w/.-]+\.(svg|png)$/,
];

function run(cmd, args) {
	const r = spawnSync(cmd, args, { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
	if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed:\n${r.stderr}`);
	return r.stdout;
}

let packed;
beforeAll(() => {
	const declared = [...PKG.n8n.credentials, ...PKG.n8n.nodes];
	if (declared.some((f) => !fs.existsSync(path.join(ROOT, f))))
		run('npm', ['run', 'build', '--silent']);
	// --ignore-scripts as the project's .npmrc has it: pack what the build left in dist
	[packed] = JSON.parse(run('npm', ['pack', '--dry-run', '--json', '--ignore-scripts']));
}, 300_000);

test('every packed file is a built node, credential or icon, package.json, README or LICENSE', () => {
	const paths = packed.files.map((f) => f.path);
	expect(paths.filter((p) => !ALLOWED.some((re) => re.test(p)))).toEqual([]);
	for (const f of [...PKG.n8n.credentials, ...PKG.n8n.nodes, 'README.md', 'LICENSE.md'])
		expect(paths).toContain(f);
	// what the old `files` let through: screenshots, type declarations, the copied package.json
	expect(paths.filter((p) => /^dist\/(docs|package\.json)|\.d\.ts$|\.map$/.test(p))).toEqual([]);
});

test(`at most ${MAX_FILES} files and ${MAX_PACKED_BYTES / 1024} kB packed, as the README states`, () => {
	expect(packed.entryCount).toBeLessThanOrEqual(MAX_FILES);
	expect(packed.size).toBeLessThanOrEqual(MAX_PACKED_BYTES);
	const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
	expect(readme).toContain(`under ${MAX_FILES} files, under ${MAX_PACKED_BYTES / 1024} kB`);
});

test('the README shows no image from the repository by a relative path (none is packed)', () => {
	const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
	const images = [...readme.matchAll(/!\[[^\]]*\]\(([^)]+)\)/g)].map((m) => m[1]);
	expect(images.filter((src) => !/^https:\/\//.test(src))).toEqual([]);
});

test("the publish workflow is the @n8n/node-cli starter's, rendered for npm (provenance, NPM_TOKEN from secrets)", () => {
	const template = fs
		.readFileSync(
			path.join(
				ROOT,
				'node_modules/@n8n/node-cli/dist/template/templates/shared/default/.github/workflows/publish.yml',
			),
			'utf8',
		)
		.replace(/\{\{packageManager\.name\}\}/g, 'npm')
		.replace(/\{\{packageManager\.installCommand\}\}/g, 'ci');
	const ours = fs.readFileSync(path.join(ROOT, '.github/workflows/publish.yml'), 'utf8');
	expect(ours).toBe(template);
	expect(ours).toMatch(/^\s*id-token: write$/m);
	expect(ours).toContain('NPM_TOKEN: ${{ secrets.NPM_TOKEN }}');
});
