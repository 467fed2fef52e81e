// Mutation testing of the personal-data guard and the transport rules (figures: CONTRIBUTING.md, "Mutation testing"), one
// module at a time with its own tests (mutation/jest.guard.config.js):
//   SBL_MUTATION_SET=identity nice -n 10 npx stryker run mutation/stryker.guard.mjs --mutate nodes/shared/identity-search.ts
//   SBL_MUTATION_SET=minimise … --mutate nodes/shared/webhook/minimise.ts
//   SBL_MUTATION_SET=redact … --mutate nodes/shared/transport/redact.ts
//   SBL_MUTATION_SET=retry … --mutate nodes/shared/transport/retry.ts
//   SBL_MUTATION_SET=failure … --mutate nodes/shared/transport/failure.ts
// signing-credential.ts and intake.ts: stryker.webhook-intake.mjs.
import base from './stryker.config.mjs';

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
	...base,
	mutate: [
		'nodes/shared/identity-search.ts',
		'nodes/shared/webhook/minimise.ts',
		'nodes/shared/transport/redact.ts',
		'nodes/shared/transport/retry.ts',
	],
	jest: { ...base.jest, configFile: 'mutation/jest.guard.config.js' },
	htmlReporter: { fileName: `reports/mutation/guard-${process.env.SBL_MUTATION_SET}.html` },
	tempDirName: '.stryker-tmp/guard',
	concurrency: 2,
	// a mutant that loops forever is found sooner (these tests take 1-5 s; Stryker adds this to the measured time)
	timeoutMS: 5000,
};
