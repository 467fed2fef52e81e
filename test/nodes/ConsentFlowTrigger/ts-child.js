'use strict';
// Runs a function of one of the node's TypeScript modules in a separate `node` process with a
// given environment (e.g. TZ): the module is compiled on load with TypeScript's transpileModule
// (no ts-node, no build). Kept in JavaScript: the strict lint forbids `process` and
// `child_process` in TypeScript files.
//
//   runInChild({ TZ: 'Europe/Oslo' }, 'nodes/shared/webhook/envelope.ts', body)
// `body` is the source of a function `(module) => result`; the result must be JSON.

const { spawnSync } = require('node:child_process');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '../../..');

const CHILD = `
const fs = require('node:fs');
const ts = require('typescript');
require.extensions['.ts'] = (module, filename) => {
	const source = fs.readFileSync(filename, 'utf8');
	const { outputText } = ts.transpileModule(source, {
		compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2019, esModuleInterop: true },
		fileName: filename,
	});
	module._compile(outputText, filename);
};
const [modulePath, body] = JSON.parse(process.argv[1]);
const run = (0, eval)('(' + body + ')');
const result = run(require(modulePath));
process.stdout.write(JSON.stringify(result));
`;

/** Runs `body` against the module in a child process with `env` added; returns its result. */
function runInChild(env, modulePath, body) {
	const child = spawnSync(
		process.execPath,
		['-e', CHILD, JSON.stringify([path.join(ROOT, modulePath), body])],
		{ cwd: ROOT, env: { ...process.env, ...env }, encoding: 'utf8', timeout: 30000 },
	);
	if (child.status !== 0) {
		throw new Error(`child exited ${child.status}: ${child.stderr || child.error}`);
	}
	return JSON.parse(child.stdout);
}

module.exports = { runInChild };
