// Jest config for mutation/stryker.webhook-intake.mjs only: mutation/jest.config.js narrowed to the three
// test files of rotation.ts, cloudevents.ts and signed.ts (issue 31).
const mutation = require('./jest.config');

module.exports = {
	...mutation,
	testMatch: ['<rootDir>/test/nodes/shared/webhook/{rotation,cloudevents,signed}.test.ts'],
};
