#!/usr/bin/env node
// Refuses a release while a placeholder remains (issue 48): run by `npm run release` before
// `n8n-node release`, and by prepublishOnly. Placeholders:
//   - the author's address ends in `.invalid` (a reserved name no mail reaches);
//   - the README's "Version history" lists package.json's version as released, but no tag of that
//     version exists (a release written down that never happened). On GitHub Actions the tag that
//     started the workflow counts.
'use strict';
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

/** The versions the README's "Version history" lists as released (`- **1.2.3**: …`). */
function releasedVersions(readme) {
	const start = readme.search(/^## Version history\s*$/m);
	if (start < 0) return [];
	const rest = readme.slice(start).split(/\n## /)[0];
	return [...rest.matchAll(/^- \*\*v?(\d+\.\d+\.\d+[^*\s]*)\*\*/gm)].map((m) => m[1]);
}

/** Every placeholder that must go before a release; empty when none remains. */
function placeholders({ pkg, readme, tags }) {
	const found = [];
	const email = typeof pkg.author === 'object' ? pkg.author?.email : String(pkg.author ?? '');
	if (/\.invalid>?$/i.test(email ?? ''))
		found.push(
			`package.json author's address "${email}" ends in .invalid: enter a real address for the maintainers`,
		);
	const tagged = tags.some((t) => t.replace(/^v/, '') === pkg.version);
	if (releasedVersions(readme).includes(pkg.version) && !tagged)
		found.push(
			`README "Version history" lists ${pkg.version} as released, but no tag ${pkg.version} exists: move its notes under "Unreleased" until it is released`,
		);
	return found;
}

function gitTags(root) {
	const tags = [];
	try {
		tags.push(
			...execFileSync('git', ['tag', '--list'], { cwd: root, encoding: 'utf8' }).split('\n'),
		);
	} catch {
		// not a git checkout: no tags
	}
	if (process.env.GITHUB_REF_TYPE === 'tag' && process.env.GITHUB_REF_NAME)
		tags.push(process.env.GITHUB_REF_NAME);
	return tags.filter(Boolean);
}

if (require.main === module) {
	const root = path.resolve(__dirname, '../..');
	const found = placeholders({
		pkg: JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')),
		readme: fs.readFileSync(path.join(root, 'README.md'), 'utf8'),
		tags: gitTags(root),
	});
	for (const problem of found) console.error(`Not released: ${problem}`);
	process.exit(found.length ? 1 : 0);
}

module.exports = { placeholders, releasedVersions };
