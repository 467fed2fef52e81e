// The scores of signing-credential.ts and intake.ts in CONTRIBUTING.md ("Mutation testing")
// are measured with this configuration: stryker.config.mjs with Jest narrowed to the test files
// written for these modules (mutation/jest.webhook-intake.config.js). With the
// whole mutation/jest.config.js every mutant run loads ~28 suites (15–40 s a run on the shared
// 2-core machine; here a few seconds). A mutant counts as killed when any test fails, so the full
// `npm run test:mutation`, which runs these tests and more, can only kill more. One module at a time:
//   nice -n 10 npx stryker run mutation/stryker.webhook-intake.mjs --mutate nodes/shared/webhook/intake.ts --concurrency 1
import base from './stryker.config.mjs';

export default {
	...base,
	mutate: ['nodes/shared/webhook/signing-credential.ts', 'nodes/shared/webhook/intake.ts'],
	jest: { ...base.jest, configFile: 'mutation/jest.webhook-intake.config.js' },
	htmlReporter: { fileName: 'reports/mutation/webhook-intake.html' },
};
