#!/usr/bin/env node
// The one place to change where the package is published from:
//   npm run set-repository -- https://github.com/<owner>/<name>
// writes package.json "repository", "homepage" and "bugs" consistently (the form n8n's scanner
// and npm provenance expect). `npm test` (scripts/check/scan.mjs) fails when the three disagree.
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const arg = process.argv[2] ?? '';
const match =
	/^(?:git\+)?https:\/\/github\.com\/([A-Za-z0-9_.-]+)\/([A-Za-z0-9_.-]+?)(?:\.git)?\/?$/.exec(arg);
if (!match) {
	console.error('Usage: npm run set-repository -- https://github.com/<owner>/<name>');
	process.exit(1);
}
const base = `https://github.com/${match[1]}/${match[2]}`;
const file = path.resolve(__dirname, '../..', 'package.json');
const pkg = JSON.parse(fs.readFileSync(file, 'utf8'));
pkg.repository = { type: 'git', url: `git+${base}.git` };
pkg.homepage = `${base}#readme`;
pkg.bugs = { url: `${base}/issues` };
fs.writeFileSync(file, `${JSON.stringify(pkg, null, 2)}\n`);
console.log(
	`package.json: repository ${pkg.repository.url}, homepage ${pkg.homepage}, bugs ${pkg.bugs.url}`,
);
