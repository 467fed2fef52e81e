// Copies the package's static assets into dist: the shared icons and the node codex files.
// `npm run build` runs `n8n-node build` (tsc + svg/png next to the sources) and then this task.
const { src, dest, parallel } = require('gulp');

function copyIcons() {
	return src('icons/**/*.{svg,png}', { encoding: false }).pipe(dest('dist/icons'));
}

function copyCodex() {
	return src('nodes/**/*.node.json').pipe(dest('dist/nodes'));
}

exports['build:assets'] = parallel(copyIcons, copyCodex);
exports.default = exports['build:assets'];
