// The README as builders read it (issues 33, 48): n8n's community-node template order, at most 200
// lines, the two commands that try it in one section after Usage, the screenshots the browser test
// writes by absolute URL, no test or n8n internals, events matched by flowId, and what the service
// leaves open worded as assumptions in one place. Links and anchors: test/scripts/check/links.test.js.
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '../..');
const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
const lines = readme.split('\n');

/** GitHub's anchor for a heading. */
const anchor = (heading) =>
	heading
		.trim()
		.toLowerCase()
		.replace(/[^\p{L}\p{N} _-]/gu, '')
		.replace(/ /g, '-');

test('at most 200 lines', () => {
	expect(lines.length).toBeLessThanOrEqual(200);
});

test("the sections in the order of n8n's community-node README template", () => {
	const sections = lines.filter((l) => /^## /.test(l)).map((l) => l.slice(3));
	expect(sections).toEqual([
		'Installation',
		'Operations',
		'Credentials',
		'Compatibility',
		'Usage',
		'Try it from a clone',
		'Resources',
		'Version history',
		'License',
	]);
});

const section3 = (h) => section(h);

/** The lines of a level-2 or level-3 section, heading excluded. */
function section(heading) {
	const start = lines.indexOf(heading);
	expect(start).toBeGreaterThan(-1);
	const level = heading.indexOf(' ');
	const end = lines.findIndex((l, i) => i > start && /^#+ /.test(l) && l.indexOf(' ') <= level);
	return lines.slice(start + 1, end < 0 ? undefined : end);
}

test('the two commands that try it on a clone, in one short section after Usage', () => {
	const clone = section('## Try it from a clone').join('\n');
	expect(clone).toContain('npm install && npm start');
	expect(clone).toMatch(/^npm test /m);
	expect(clone).toContain('CONTRIBUTING.md');
	expect(section('## Try it from a clone').length).toBeLessThanOrEqual(12);
	expect(readme.indexOf('npm install && npm start')).toBe(
		readme.lastIndexOf('npm install && npm start'),
	);
});

test('Usage: a quick start from credentials to a signed test delivery', () => {
	const steps = section('## Usage').filter((l) => /^\d\. /.test(l));
	expect(steps.map((l) => l.match(/^\d\. \*\*([^*]+)\*\*/)?.[1])).toEqual([
		'Credentials',
		'Trigger',
		'Create',
		"Store the flow's `id`",
		'First event',
		'Signed test delivery',
	]);
	expect(section('## Usage').join('\n')).toContain('(docs/reference.md#a-signed-test-delivery)');
});

test('Credentials: a checklist of what to ask the operator', () => {
	const asks = section('## Credentials')
		.filter((l) => l.startsWith('- [ ] '))
		.join('\n');
	for (const item of [
		/identity provider url/i,
		/realm/i,
		/client id and client secret/i,
		/base url/i,
		/signing secret/i,
		/estimate api/i,
	])
		expect(asks).toMatch(item);
});

test('the environment-variable install names the n8n version it needs', () => {
	expect(readme).toMatch(/Environment variables\*\* \([^)]*n8n 2\.21\.0 or newer/);
	expect(readme).not.toMatch(/n8n 2\.x\)/);
});

test('no links to test internals or n8n-core internals', () => {
	expect(readme).not.toMatch(/\]\((\.\/)?test\//);
	expect(readme).not.toMatch(
		/test\/e2e\/lib|installIntoUserFolder|InstanceSettings|checkForMissingPackages|community-packages\.config/,
	);
});

test('shows the trigger canvas by its absolute URL in the repository, under the name the browser test writes', () => {
	const editorTest = fs.readFileSync(path.join(ROOT, 'test/e2e/editor.test.js'), 'utf8');
	const { repository } = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
	const repo = repository.url.match(/github\.com\/([^/]+\/[^/.]+)/)[1];
	const name = 'trigger-canvas';
	expect(readme).toContain(
		`](https://raw.githubusercontent.com/${repo}/main/docs/screenshots/${name}.png)`,
	);
	expect(fs.existsSync(path.join(ROOT, `docs/screenshots/${name}.png`))).toBe(true);
	expect(editorTest).toContain(`'${name}'`);
});

test('no n8n internals a builder cannot act on', () => {
	for (const term of [
		/static data/i,
		/node context/i,
		/resume URL/i,
		/lazy expression engine/i,
		/saved as version 1/i,
		/idempotent/i,
		/execution's first step/i,
	]) {
		expect({ term: String(term), found: readme.match(term)?.[0] }).toEqual({
			term: String(term),
			found: undefined,
		});
	}
});

test('events are matched by flowId; externalId is not promised in every event', () => {
	expect(readme).toMatch(/Match events to your applications by \*\*`flowId`\*\*/);
	expect(readme).not.toMatch(/comes back in every (webhook )?event/i);
	expect(readme).not.toMatch(/matched to the application\s+by\s+`externalId`/i);
});

test('one "What the service does not publish" section, naming each open point as an assumption', () => {
	expect(lines.filter((l) => /^#+ What the service does not publish$/.test(l))).toHaveLength(1);
	const section = [
		'### What the service does not publish',
		...section3('### What the service does not publish'),
	].join('\n');
	expect(section).toMatch(/\*\*assumes\*\*/);
	for (const topic of [
		/Retries and delivery guarantees/,
		/`requestStatus`, `validTo`, `coveredBy`/,
		/`href`/,
		/realm/,
		/authorization code/,
		/signing key/,
	]) {
		expect(section).toMatch(topic);
	}
	// no longer stated as facts elsewhere
	expect(readme).not.toMatch(/`href` is always at the top/);
	expect(readme).not.toMatch(/no workflow needs the authorization code/i);
});

test('Limit Wait Time has one bound everywhere: n8n 2.39 or newer', () => {
	const mentions = readme
		.split('Limit Wait')
		.slice(1)
		.map((after) => after.slice(0, 200));
	expect(mentions.length).toBeGreaterThan(1);
	expect(readme).not.toMatch(/Limit Wait Time[^.]{0,80}n8n 2\.x/);
	expect(readme).toMatch(/2\.39 or newer/);
});

test("queue mode: the package on every process, with n8n's two options", () => {
	expect(readme).toMatch(/installed on \*\*every n8n process\*\*/);
	expect(readme).toContain('N8N_USER_FOLDER');
	expect(readme).toContain('N8N_REINSTALL_MISSING_PACKAGES=true');
});

test('the manual install is the command the test suite runs', () => {
	const pkg = fs.readFileSync(path.join(ROOT, 'test/e2e/lib/pkg.js'), 'utf8');
	const flags = pkg
		.match(/\[\s*'install',\s*((?:'[^']+',\s*)+)tgz,?\s*\]/)[1]
		.match(/'([^']+)'/g)
		.map((f) => f.slice(1, -1));
	expect(readme).toContain(`npm install ${flags.join(' ')} n8n-nodes-sbl`);
});

test('every documentation link of the nodes and credentials lands on a README heading (issue 43)', () => {
	const headings = new Set(
		lines.filter((l) => /^#{2,3} /.test(l)).map((l) => anchor(l.replace(/^#+ /, ''))),
	);
	const sources = ['nodes', 'credentials'].flatMap((dir) =>
		fs
			.readdirSync(path.join(ROOT, dir), { recursive: true })
			.filter((f) => /\.(ts|json)$/.test(f))
			.map((f) => path.join(ROOT, dir, f)),
	);
	const links = sources.flatMap(
		(f) => fs.readFileSync(f, 'utf8').match(/n8n-nodes-sbl#[a-z0-9-]+/g) || [],
	);
	expect(links.length).toBeGreaterThan(5);
	for (const link of new Set(links))
		expect({ link, exists: headings.has(link.split('#')[1]) }).toEqual({ link, exists: true });
	expect(links).toContain('n8n-nodes-sbl#credentials');
});

test('n8n 2.x says Publish; "activate" only next to n8n 1.x (issue 43)', () => {
	for (const line of lines.filter((l) => /\bactivat/i.test(l))) expect(line).toMatch(/1\.x/);
	expect(readme).toMatch(/\*\*Publish\*\*/);
});

test('the local build packs after building (.npmrc turns npm scripts off, so not a bare npm pack)', () => {
	const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
	expect(fs.readFileSync(path.join(ROOT, '.npmrc'), 'utf8')).toMatch(/ignore-scripts=true/);
	expect(pkg.scripts.pack).toMatch(/^npm run build && npm pack/);
	expect(readme).toContain('`npm ci && npm run pack`');
	expect(readme).toContain('N8N_COMMUNITY_PACKAGES_MANAGED_BY_ENV=true');
});

test('the signed test delivery recipe signs what it sends (openssl equals HMAC-SHA256 of the body)', () => {
	const { execFileSync } = require('node:child_process');
	const crypto = require('node:crypto');
	const reference = fs.readFileSync(path.join(ROOT, 'docs/reference.md'), 'utf8');
	const block = reference.split('### A signed test delivery')[1].match(/```sh\n([\s\S]*?)```/)[1];
	const signing = block
		.split('\n')
		.filter((l) => /^(BODY|SIG)=/.test(l))
		.join('\n');
	const secret = 'a-test-secret-of-32-characters!!';
	const out = execFileSync(
		'bash',
		['-c', `SECRET='${secret}'\n${signing}\nprintf '%s\\n%s' "$SIG" "$BODY"`],
		{ encoding: 'utf8' },
	);
	const [sig, body] = out.split('\n');
	expect(sig).toBe(crypto.createHmac('sha256', secret).update(body).digest('hex'));
	expect(JSON.parse(body)).toMatchObject({
		event: 'consent.created',
		payload: { flow: 'test-flow' },
	});
	expect(block).toContain('--data-binary "$BODY"');
});
