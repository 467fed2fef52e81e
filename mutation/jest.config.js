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
		'<rootDir>/test/nodes/shared/**/*.test.ts',
		'<rootDir>/test/nodes/ConsentFlowTrigger/{dedupe,webhook-id}*.test.ts',
		// not events-parameter, fuzz (slow HTTP) or timestamp-zones (child processes)
		'<rootDir>/test/nodes/ConsentFlowTrigger/{events,timestamp}.test.ts',
		// issue 31: rotation, CloudEvents and the unsigned-facts table (HTTP harness, a few seconds)
		'<rootDir>/test/nodes/ConsentFlowTrigger/{rotation,cloudevents,unsigned-facts}.test.ts',
	],
};
