// Every relative link and #anchor in the README, CONTRIBUTING and docs/*.md lands (issue 48):
// the file exists, and an anchor names a heading of it by GitHub's slug rule.
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '../../..');
const DOCS = [
	'README.md',
	'CONTRIBUTING.md',
	...fs
		.readdirSync(path.join(ROOT, 'docs'))
		.filter((f) => f.endsWith('.md'))
		.map((f) => `docs/${f}`),
];

/** GitHub's slug of a heading: lower case, punctuation dropped, spaces to hyphens. */
const slug = (heading) =>
	heading
		.replace(/`/g, '')
		.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
		.trim()
		.toLowerCase()
		.replace(/[^\p{L}\p{N}\p{M} _-]/gu, '')
		.replace(/ /g, '-');

/** The text outside fenced code blocks (links there are examples, not links). */
const prose = (text) => text.replace(/^```[\s\S]*?^```/gm, '');

function anchors(file) {
	const seen = new Map();
	const out = new Set();
	for (const line of prose(fs.readFileSync(file, 'utf8')).split('\n')) {
		const m = /^#{1,6} (.+?)\s*#*\s*$/.exec(line);
		if (!m) continue;
		const base = slug(m[1]);
		const n = seen.get(base) ?? 0;
		seen.set(base, n + 1);
		out.add(n ? `${base}-${n}` : base);
	}
	return out;
}

function links(file) {
	const text = prose(fs.readFileSync(path.join(ROOT, file), 'utf8')).replace(/`[^`\n]*`/g, '');
	return [...text.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)]
		.map((m) => m[1])
		.filter((target) => !/^(https?|mailto):/.test(target));
}

function broken(file) {
	return links(file).filter((target) => {
		const [rel, anchor] = target.split('#');
		const dest = rel
			? path.resolve(path.dirname(path.join(ROOT, file)), rel)
			: path.join(ROOT, file);
		if (!fs.existsSync(dest)) return true;
		if (anchor === undefined) return false;
		return !(dest.endsWith('.md') && anchors(dest).has(decodeURIComponent(anchor)));
	});
}

test.each(DOCS)('%s: every relative link and anchor resolves', (file) => {
	expect(broken(file)).toEqual([]);
});

test('the scan finds the links (README and reference link to each other)', () => {
	expect(DOCS.flatMap(links).length).toBeGreaterThan(50);
	expect(links('README.md')).toContain('docs/reference.md#a-signed-test-delivery');
});

test('the slug rule: GitHub drops punctuation and numbers repeated headings', () => {
	expect(slug('Credentials: where each secret comes from')).toBe(
		'credentials-where-each-secret-comes-from',
	);
	expect(slug('Consent Flow OAuth2 API (`consentFlowOAuth2Api`)')).toBe(
		'consent-flow-oauth2-api-consentflowoauth2api',
	);
	expect(slug('Maximum age (replay window)')).toBe('maximum-age-replay-window');
	const tmp = path.join(require('node:os').tmpdir(), `links-${process.pid}.md`);
	fs.writeFileSync(tmp, '# A\n## Errors\n```\n## Not a heading\n```\n## Errors\n');
	expect([...anchors(tmp)]).toEqual(['a', 'errors', 'errors-1']);
	fs.rmSync(tmp);
});
