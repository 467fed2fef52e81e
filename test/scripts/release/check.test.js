// `npm run release` refuses while a placeholder remains (scripts/release/check.js, issue 48).
'use strict';
const { spawnSync } = require('node:child_process');
const path = require('node:path');
const { placeholders, releasedVersions } = require('../../../scripts/release/check');

const ROOT = path.resolve(__dirname, '../../..');
const readme = (history) =>
	`# x\n\n## Version history\n\n${history}\n\n## License\n\n- **9.9.9**: not history\n`;
const pkg = (over = {}) => ({
	version: '0.2.0',
	author: { name: 'M', email: 'maintainers@example.org' },
	...over,
});

test('the released versions are the bold entries of "Version history" only', () => {
	expect(releasedVersions(readme('- **0.1.0**: first\n- **Unreleased**: next'))).toEqual(['0.1.0']);
	expect(releasedVersions('no history')).toEqual([]);
});

test('a real address and a version not yet listed: nothing to refuse', () => {
	expect(placeholders({ pkg: pkg(), readme: readme('- **0.1.0**: a'), tags: ['0.1.0'] })).toEqual(
		[],
	);
});

test('an author address ending in .invalid is refused (object or string form)', () => {
	const [one] = placeholders({
		pkg: pkg({ author: { email: 'm@n8n-nodes-sbl.invalid' } }),
		readme: '',
		tags: [],
	});
	expect(one).toMatch(/m@n8n-nodes-sbl\.invalid" ends in \.invalid/);
	expect(
		placeholders({ pkg: pkg({ author: 'M <m@x.invalid>' }), readme: '', tags: [] }),
	).toHaveLength(1);
});

test('a version listed as released without its tag is refused; with the tag (or v-tag) it is not', () => {
	const r = readme('- **0.2.0**: listed');
	expect(placeholders({ pkg: pkg(), readme: r, tags: [] })[0]).toMatch(
		/lists 0\.2\.0 as released, but no tag 0\.2\.0 exists/,
	);
	expect(placeholders({ pkg: pkg(), readme: r, tags: ['0.2.0'] })).toEqual([]);
	expect(placeholders({ pkg: pkg(), readme: r, tags: ['v0.2.0'] })).toEqual([]);
});

test('this repository today: the script refuses, naming the placeholder, and exits 1', () => {
	const run = spawnSync(process.execPath, ['scripts/release/check.js'], {
		cwd: ROOT,
		encoding: 'utf8',
		env: { ...process.env, GITHUB_REF_TYPE: '', GITHUB_REF_NAME: '' },
	});
	expect(run.status).toBe(1);
	expect(run.stderr).toMatch(/^Not released: package\.json author's address .*\.invalid/m);
});

test('release and prepublishOnly run the check before n8n-node', () => {
	const { scripts } = require('../../../package.json');
	expect(scripts.release).toBe('node scripts/release/check.js && n8n-node release');
	expect(scripts.prepublishOnly).toBe('node scripts/release/check.js && n8n-node prerelease');
});
