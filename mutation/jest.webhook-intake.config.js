// Jest config for mutation/stryker.webhook-intake.mjs only: mutation/jest.config.js narrowed to the
// test files of signing-credential.ts and intake.ts (and the trigger's signed-facts attacks).
const mutation = require('./jest.config');

module.exports = {
	...mutation,
	testMatch: [
		'<rootDir>/test/nodes/shared/webhook/{signing-credential,signing-credential-rotation,intake}.test.ts',
		'<rootDir>/test/nodes/ConsentFlowTrigger/signed-facts.integration.test.ts',
	],
};
