#!/usr/bin/env node
'use strict';

// Comment lines per code line in nodes/ (issue 32: at most 10 %). A line is a comment line when
// all it holds is comment (//, /*, *, */); a code line holds code (a trailing comment counts as
// code). Blank lines count as neither. `node scripts/check/comment-density.js [--files]`.

const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '../..');

function tsFiles(dir) {
	return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
		const full = path.join(dir, entry.name);
		if (entry.isDirectory()) return tsFiles(full);
		return entry.name.endsWith('.ts') ? [full] : [];
	});
}

/** Comment and code lines of one TypeScript source. */
function density(source) {
	let comment = 0;
	let code = 0;
	let inBlock = false;
	for (const raw of source.split('\n')) {
		const line = raw.trim();
		if (line === '') continue;
		if (inBlock) {
			comment++;
			if (line.includes('*/')) {
				inBlock = false;
				const after = line.slice(line.indexOf('*/') + 2).trim();
				if (after !== '') {
					comment--;
					code++;
				}
			}
			continue;
		}
		if (line.startsWith('//')) {
			comment++;
			continue;
		}
		if (line.startsWith('/*')) {
			const end = line.indexOf('*/', 2);
			if (end === -1) {
				inBlock = true;
				comment++;
				continue;
			}
			if (line.slice(end + 2).trim() === '') {
				comment++;
				continue;
			}
		}
		code++;
	}
	return { comment, code };
}

function measure(dir = path.join(ROOT, 'nodes')) {
	const files = tsFiles(dir).map((file) => ({
		file: path.relative(ROOT, file),
		...density(fs.readFileSync(file, 'utf8')),
	}));
	const comment = files.reduce((sum, f) => sum + f.comment, 0);
	const code = files.reduce((sum, f) => sum + f.code, 0);
	return { files, comment, code, ratio: code === 0 ? 0 : comment / code };
}

module.exports = { density, measure, tsFiles };

if (require.main === module) {
	const result = measure();
	if (process.argv.includes('--files')) {
		for (const f of result.files.sort((a, b) => b.comment / b.code - a.comment / a.code)) {
			console.log(
				`${((100 * f.comment) / f.code).toFixed(1).padStart(6)} %  ${String(f.comment).padStart(4)} / ${String(f.code).padStart(4)}  ${f.file}`,
			);
		}
	}
	console.log(
		`nodes/: ${result.comment} comment lines per ${result.code} code lines = ${(100 * result.ratio).toFixed(1)} %`,
	);
}
