// Mutation testing: `npm run test:mutation` (slow; not part of `npm test`). Mutates the pure
// modules below and runs the tests in mutation/jest.config.js against each mutant. Prints a
// per-file score table and writes reports/mutation/mutation.html.
/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
	// One entry per module; edit freely.
	mutate: [
		'nodes/shared/identifiers.ts',
		'nodes/shared/dates.ts',
		'nodes/shared/transport/retry.ts',
		'nodes/shared/transport/failure.ts',
		'nodes/shared/webhook/signature.ts',
		'nodes/shared/webhook/envelope.ts',
		'nodes/ConsentFlowTrigger/dedupe.ts',
		'nodes/shared/webhook/webhook-id.ts',
		'nodes/shared/webhook/json-scan.ts',
		'nodes/shared/webhook/events.ts',
		'nodes/shared/webhook/signing-credential.ts',
		'nodes/shared/webhook/intake.ts',
		'nodes/shared/personal.ts',
		'nodes/shared/webhook/minimise.ts',
	],
	testRunner: 'jest',
	jest: {
		projectType: 'custom',
		configFile: 'mutation/jest.config.js',
		enableFindRelatedTests: false,
	},
	coverageAnalysis: 'perTest',
	reporters: ['clear-text', 'html', 'progress'],
	htmlReporter: { fileName: 'reports/mutation/mutation.html' },
	clearTextReporter: { allowColor: false, logTests: false },
	// report high ≥ 95, low < 80; set `break: 95` to fail the run below 95
	thresholds: { high: 95, low: 80, break: null },
	tempDirName: '.stryker-tmp',
	// not copied into the sandbox (node_modules is linked, .git and the reports are skipped anyway)
	ignorePatterns: ['dist', 'coverage', '.e2e', 'reports', '*.tgz'],
	timeoutMS: 10000,
};
