// Jest config for Stryker only (`npm run test:mutation`): the `unit` project of ../jest.config.js
// (same ts-jest transform), narrowed to the fast pure tests of the modules stryker.config.mjs mutates.
const path = require('node:path');
const { projects } = require('../jest.config');

const { displayName, ...unit } = projects.find((project) => project.displayName === 'unit');

module.exports = {
	...unit,
	// <rootDir> is the repository, not this folder
	rootDir: path.resolve(__dirname, '..'),
	testMatch: [
		// the shared modules' tests, the webhook ones included (rotation, signed facts
		// and the ids drive the trigger through its HTTP harness, a few seconds each)
		'<rootDir>/test/nodes/shared/**/*.test.ts',
		'<rootDir>/test/nodes/ConsentFlowTrigger/dedupe*.test.ts',
	],
};
